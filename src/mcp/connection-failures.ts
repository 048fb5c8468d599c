/**
 * What went wrong with an MCP server, told apart and put in words: why a
 * connection attempt failed (too much sent, sign-in needed, refused while
 * signing in, or anything else with the end of its stderr), what kind of
 * failure a call met, and where the person fixes the server's settings.
 */
import { errorText } from '../vocabulary/text';
import { McpInputLimitError } from './bounded-input';
import type { OpenedTransport } from './mcp-transport';
import { McpAuthRefused } from './oauth-guard';
import { type McpOAuthProvider, McpSignInNeeded } from './oauth-provider';
import type { McpServerConfig } from './server-config';

/** The SDK's code for a connection that closed under a pending request. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** Why connecting failed, as connectOnce's callers tell the kinds apart: too much sent, sign-in needed, or refused while signing in. */
export function connectFailure(err: unknown, opened: OpenedTransport, auth: McpOAuthProvider | undefined): Error {
  const overLimit = opened.overLimit();
  if (overLimit !== undefined) return new McpInputLimitError(overLimit);
  const refusal = opened.authRefusal();
  if (refusal !== undefined) return new McpAuthRefused(`signing in to it was refused: ${refusal}`);
  if (err instanceof McpSignInNeeded || (err as Error | undefined)?.name === 'UnauthorizedError') return new McpSignInNeeded(errorText(err));
  const reason = withStderr(errorText(err), opened);
  return new Error(auth ? auth.scrub(reason) : reason);
}

/** Protocol errors come as McpError with a JSON-RPC code; anything else (fetch, HTTP status, closed pipe) means the connection failed. */
export function failureKind(err: unknown): 'timeout' | 'refused' | 'malformed' | 'connection' {
  const { name, code } = err as { name?: unknown; code?: unknown };
  if (name === 'ZodError') return 'malformed';
  if (name !== 'McpError' || code === CONNECTION_CLOSED) return 'connection';
  return code === REQUEST_TIMEOUT ? 'timeout' : 'refused';
}

export function fixHint(config: McpServerConfig): string {
  const { source } = config;
  if (source === 'client') return 'check its settings in your editor (the client started this session with it)';
  if (source === 'config.toml') return `fix [mcp_servers.${config.name}] in config.toml, or set enabled = false there`;
  return `fix it in ${source.file}, or take "${source.tool}" out of [mcp] import in config.toml`;
}

export function withStderr(reason: string, opened: OpenedTransport | undefined): string {
  const said = opened?.stderrTail() ?? '';
  return said === '' ? reason : `${reason}; its stderr ended with: ${said.split('\n').slice(-5).join(' | ')}`;
}
