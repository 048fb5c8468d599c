import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type * as ClientAuth from '@modelcontextprotocol/sdk/client/auth.js';
import type * as Sse from '@modelcontextprotocol/sdk/client/sse.js';
import type * as Stdio from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as StdioLines from '@modelcontextprotocol/sdk/shared/stdio.js';
import type * as StreamableHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { boundedFetch, type Fetch } from '../llm/bounded-body';
import { BoundedLineBuffer, MCP_BODY_LIMITS, McpInputLimitError } from './bounded-input';
import { type AuthGuard, guardAuthFetch } from './oauth-guard';
import type { McpOAuthProvider } from './oauth-provider';
import type { McpTransportConfig } from './server-config';

/** How much of a stdio server's stderr is kept, to say why it stopped. */
const STDERR_TAIL_CHARS = 2_000;

/** A transport for one connection attempt, and what it can tell about a failure. */
export interface OpenedTransport {
  transport: Transport;
  /** The end of what the server wrote to stderr, for reports; '' when it wrote nothing (or is not a process). */
  stderrTail(): string;
  /** Ends the server's session politely (streamable HTTP) before the transport closes. */
  release(): Promise<void>;
  /** Why the transport was closed on the server, when it sent more than Crow reads in one message (see bounded-input.ts); else undefined. */
  overLimit(): string | undefined;
  /** What signing in to the server met that Crow would not follow (oauth-guard.ts); undefined when nothing, or without sign-in. */
  authRefusal(): string | undefined;
  /** Renews an access token about to run out before connecting (with sign-in only). */
  freshen(): Promise<void>;
}

/** The transport of a server without sign-in (stdio), or before any was tried. */
const NO_AUTH = { authRefusal: () => undefined, freshen: async () => undefined };

/**
 * The SDK transport a server config asks for, required (not imported) here
 * so that sessions without MCP servers never load the SDK.
 * Stdio servers start in `cwd` (the session's workspace) with the SDK's
 * safe default environment plus the variables the config passes; their
 * stderr is kept rather than mixed into ours. What every server sends is
 * read in messages of bounded size: one over the limit closes the transport.
 */
export function openTransport(config: McpTransportConfig, cwd: string, auth?: McpOAuthProvider): OpenedTransport {
  let limitReason: string | undefined;
  const overLimit = (): string | undefined => limitReason;
  switch (config.type) {
    case 'stdio': {
      const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js') as typeof Stdio;
      const { deserializeMessage } = require('@modelcontextprotocol/sdk/shared/stdio.js') as typeof StdioLines;
      const transport = new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd, stderr: 'pipe' });
      boundStdout(transport, new BoundedLineBuffer(deserializeMessage));
      // The SDK closes the transport after a read error of the buffer; the reason is ours to keep.
      transport.onerror = (error) => {
        if (error instanceof McpInputLimitError) limitReason = error.message;
      };
      let tail = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
      });
      return { transport, stderrTail: () => tail.trim(), release: async () => undefined, overLimit, ...NO_AUTH };
    }
    case 'http': {
      const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof StreamableHttp;
      const { fetch, guard } = httpFetch(config, auth, (reason) => {
        limitReason = reason;
        void transport.close().catch(() => undefined);
      });
      const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch, ...(auth ? { authProvider: auth } : {}) });
      const release = (): Promise<void> => transport.terminateSession().catch(() => undefined);
      return { transport, stderrTail: () => '', release, overLimit, ...signingIn(config, auth, guard) };
    }
    case 'sse': {
      const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js') as typeof Sse;
      const { fetch, guard } = httpFetch(config, auth, (reason) => {
        limitReason = reason;
        void transport.close().catch(() => undefined);
      });
      const transport = new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch, ...(auth ? { authProvider: auth } : {}) });
      return { transport, stderrTail: () => '', release: async () => undefined, overLimit, ...signingIn(config, auth, guard) };
    }
  }
}

type HttpConfig = Extract<McpTransportConfig, { type: 'http' | 'sse' }>;

/** What an HTTP server's transport fetches with: bounded messages, and with sign-in every other request checked (oauth-guard.ts). */
function httpFetch(config: HttpConfig, auth: McpOAuthProvider | undefined, onLimit: (reason: string) => void): { fetch: Fetch; guard?: AuthGuard } {
  const raw: Fetch = (url, init) => globalThis.fetch(url, init);
  const mcp = boundedFetch(raw, MCP_BODY_LIMITS, (error) => onLimit(error.message));
  if (!auth) return { fetch: mcp };
  const guard = guardAuthFetch(config.url, { mcp, raw }, Object.keys(config.headers));
  return { fetch: guard.fetch, guard };
}

function signingIn(config: HttpConfig, auth: McpOAuthProvider | undefined, guard: AuthGuard | undefined): Pick<OpenedTransport, 'authRefusal' | 'freshen'> {
  if (!auth || !guard) return NO_AUTH;
  return {
    authRefusal: guard.refusal,
    freshen: async () => {
      if (!(await auth.expiring())) return;
      const { auth: authorize } = require('@modelcontextprotocol/sdk/client/auth.js') as typeof ClientAuth;
      await authorize(auth, { serverUrl: config.url, fetchFn: guard.fetch });
    },
  };
}

/**
 * Puts `buffer` in place of the stdio transport's own reader. The SDK's
 * ReadBuffer (1.x, shared/stdio.js) caps the bytes it holds at 10 MB but
 * joins every chunk to all it holds, which takes seconds per megabyte of
 * one long line; its transport reads through `_readBuffer` (append,
 * readMessage, clear), which is what BoundedLineBuffer offers. Throws when a
 * new SDK has no such field, so the swap cannot silently stop happening.
 */
function boundStdout(transport: Stdio.StdioClientTransport, buffer: BoundedLineBuffer): void {
  if (!('_readBuffer' in transport)) throw new Error('the MCP SDK\'s stdio transport no longer reads through _readBuffer: update boundStdout');
  Object.assign(transport, { _readBuffer: buffer });
}
