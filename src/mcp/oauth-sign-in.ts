/**
 * A person signing in to a remote MCP server, the way every door does it
 * (`crow mcp login`, VS Code's "Sign In to MCP Server…"): Crow asks the
 * server without a token; on its 401 the SDK's client auth discovers the
 * authorization server (RFC 9728, RFC 8414), registers Crow when no client
 * id is configured (RFC 7591), and builds the authorization URL with PKCE
 * S256 and the `resource` parameter (RFC 8707). The door shows and opens it;
 * the browser comes back to a loopback redirect (oauth-redirect.ts); the
 * code is exchanged for tokens, which the store keeps; and Crow connects
 * once more with them to tell the person what the server offers.
 */
import { randomBytes } from 'node:crypto';
import type * as ClientAuth from '@modelcontextprotocol/sdk/client/auth.js';
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as Types from '@modelcontextprotocol/sdk/types.js';
import { version } from '../../package.json';
import { boundedFetch, type Fetch } from '../llm/bounded-body';
import { errorText } from '../vocabulary/text';
import { MCP_BODY_LIMITS } from './bounded-input';
import { openTransport } from './mcp-transport';
import { guardAuthFetch, McpAuthRefused } from './oauth-guard';
import { McpOAuthProvider } from './oauth-provider';
import { listenForRedirect } from './oauth-redirect';
import type { McpTokenStore } from './oauth-store';
import type { McpServerConfig } from './server-config';

export interface SignInOptions {
  store: McpTokenStore;
  /**
   * Shows the person the authorization page (its domain first) and opens it; returns once it is shown.
   * `launcher` is a loopback address leading to the same page, for an opener that would rewrite the page's own.
   */
  open(authorizationUrl: URL, launcher: string): Promise<void>;
  /** Ends the wait (Ctrl-C, a cancelled dialog). */
  signal: AbortSignal;
  /** How long the person has to finish in the browser. */
  timeoutMs: number;
  /** Where a stdio server would start; unused by remote ones. */
  cwd: string;
}

/** How it went: signed in, or the server never asked (it needs no sign-in); and how many tools it then offered. */
export interface SignInResult {
  signedIn: boolean;
  tools: number;
}

const CONNECT_TIMEOUT_MS = 30_000;

export async function signInToServer(config: McpServerConfig, options: SignInOptions): Promise<SignInResult> {
  const { transport } = config;
  if (transport.type === 'stdio') throw new Error(`MCP server "${config.name}" runs as a command (stdio): it has no sign-in. Only a server with a url can ask you to sign in.`);
  const state = randomBytes(32).toString('base64url');
  const port = config.oauth?.callbackPort ?? (await registeredPort(options.store, transport.url));
  const listener = await listenForRedirect({ state, signal: options.signal, ...(port !== undefined ? { port } : {}) });
  const secrets: string[] = [state];
  const provider = new McpOAuthProvider({
    serverUrl: transport.url,
    store: options.store,
    ...(config.oauth ? { settings: config.oauth } : {}),
    signIn: { redirectUrl: listener.redirectUrl, state, open: (url) => options.open(url, listener.launch(url)) },
  });
  const raw: Fetch = (url, init) => globalThis.fetch(url, init);
  const guard = guardAuthFetch(transport.url, { mcp: boundedFetch(raw, MCP_BODY_LIMITS), raw }, Object.keys(transport.headers));
  const refused = (err: unknown): Error => (guard.refusal() !== undefined ? new McpAuthRefused(guard.refusal()!) : (err as Error));
  try {
    const asked = await challenge(transport, guard.fetch).catch((err: unknown) => {
      throw refused(err);
    });
    if (!asked) return { signedIn: false, tools: await toolsAfterSignIn(config, options) };
    const { auth } = require('@modelcontextprotocol/sdk/client/auth.js') as typeof ClientAuth;
    // The scopes configured win over the server's word (RFC 6749 §3.3: the client asks, the server may grant less).
    const scope = config.oauth?.scopes?.join(' ') || asked.scope;
    const flow = { serverUrl: transport.url, fetchFn: guard.fetch, ...(asked.resourceMetadataUrl ? { resourceMetadataUrl: asked.resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
    try {
      await auth(provider, flow);
    } catch (err) {
      throw guard.refusal() !== undefined ? refused(err) : new Error(`signing in could not start: ${errorText(err)}`);
    }
    const code = await within(listener.code, options.timeoutMs);
    secrets.push(code);
    try {
      await auth(provider, { ...flow, authorizationCode: code });
    } catch (err) {
      throw new Error(`the authorization server did not give Crow a token: ${guard.refusal() ?? errorText(err)}`);
    }
    return { signedIn: true, tools: await toolsAfterSignIn(config, options) };
  } catch (err) {
    throw scrubbed(err, secrets, provider);
  } finally {
    listener.close();
  }
}

/**
 * Asks the server as a client without a token would (an initialize for
 * streamable HTTP, the event stream for SSE): what its 401's
 * WWW-Authenticate says (RFC 6750 §3, RFC 9728 §5.1), or undefined when it
 * answered without asking for a token.
 */
async function challenge(transport: RemoteTransport, fetch: Fetch): Promise<{ resourceMetadataUrl?: URL; scope?: string } | undefined> {
  const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js') as typeof Types;
  const headers = { ...transport.headers, Accept: transport.type === 'http' ? 'application/json, text/event-stream' : 'text/event-stream' };
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'crow-agent', version } } };
  const init: RequestInit =
    transport.type === 'http' ? { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(initialize) } : { method: 'GET', headers };
  const response = await fetch(transport.url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) });
  await response.body?.cancel().catch(() => undefined);
  const session = response.headers.get('mcp-session-id');
  // A server that opened a session for the question gets it closed again (streamable HTTP's DELETE).
  if (session) await fetch(transport.url, { method: 'DELETE', headers: { ...transport.headers, 'mcp-session-id': session } }).then((answer) => answer.body?.cancel(), () => undefined);
  if (response.status !== 401) return undefined;
  const { extractWWWAuthenticateParams } = require('@modelcontextprotocol/sdk/client/auth.js') as typeof ClientAuth;
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

type RemoteTransport = Extract<McpServerConfig['transport'], { type: 'http' | 'sse' }>;

/** Connects as a session will, with the stored tokens, and counts the tools. */
async function toolsAfterSignIn(config: McpServerConfig, options: SignInOptions): Promise<number> {
  const transport = config.transport as RemoteTransport;
  const provider = new McpOAuthProvider({ serverUrl: transport.url, store: options.store, ...(config.oauth ? { settings: config.oauth } : {}) });
  const opened = openTransport(transport, options.cwd, provider);
  const client = newClient();
  try {
    await client.connect(opened.transport, { timeout: CONNECT_TIMEOUT_MS });
    return await countTools(client);
  } catch (err) {
    throw new Error(`signed in, but the server still refused Crow: ${opened.authRefusal() ?? provider.scrub(errorText(err))}`);
  } finally {
    await opened.release();
    await client.close().catch(() => undefined);
  }
}

function newClient(): ClientModule.Client {
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule;
  return new Client({ name: 'crow-agent', version }, { capabilities: {} });
}

async function countTools(client: ClientModule.Client): Promise<number> {
  if (client.getServerCapabilities()?.tools === undefined) return 0;
  return (await client.listTools({}, { timeout: CONNECT_TIMEOUT_MS })).tools.length;
}

/** The port of the loopback redirect Crow registered last time, so the registration can be used again. */
async function registeredPort(store: McpTokenStore, serverUrl: string): Promise<number | undefined> {
  const client = (await store.load(serverUrl).catch(() => undefined))?.client;
  const uri = client && 'redirect_uris' in client ? (client.redirect_uris as unknown[])[0] : undefined;
  if (typeof uri !== 'string') return undefined;
  const port = Number(new URL(uri).port);
  return Number.isInteger(port) && port >= 1024 ? port : undefined;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nobody finished signing in within ${Math.round(ms / 1000)} s; run the sign-in again when you are ready`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** The error with none of the sign-in's secrets (state, code, verifier, tokens) in its words, whatever a server echoed. */
function scrubbed(err: unknown, secrets: readonly string[], provider: McpOAuthProvider): Error {
  let message = provider.scrub(errorText(err));
  for (const secret of secrets) message = message.split(secret).join('[redacted]');
  return err instanceof McpAuthRefused ? new McpAuthRefused(message) : new Error(message);
}
