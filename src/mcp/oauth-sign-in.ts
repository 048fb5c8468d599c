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
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import { version } from '../../package.json';
import { errorText } from '../vocabulary/text';
import { openTransport } from './mcp-transport';
import { McpAuthRefused } from './oauth-guard';
import { McpOAuthProvider } from './oauth-provider';
import { listenForRedirect } from './oauth-redirect';
import type { McpTokenStore } from './oauth-store';
import type { McpServerConfig } from './server-config';

export interface SignInOptions {
  store: McpTokenStore;
  /** Shows the person the authorization page (its domain first) and opens it; returns once it is shown. */
  open(authorizationUrl: URL): Promise<void>;
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
  let provider: McpOAuthProvider | undefined;
  try {
    provider = new McpOAuthProvider({
      serverUrl: transport.url,
      store: options.store,
      ...(config.oauth ? { settings: config.oauth } : {}),
      signIn: { redirectUrl: listener.redirectUrl, state, open: options.open },
    });
    const opened = openTransport(transport, options.cwd, provider);
    const client = newClient();
    try {
      await client.connect(opened.transport, { timeout: CONNECT_TIMEOUT_MS });
      // It answered without asking for a token.
      const tools = await countTools(client);
      return { signedIn: false, tools };
    } catch (err) {
      const refusal = opened.authRefusal();
      if (refusal !== undefined) throw new McpAuthRefused(refusal);
      if (!provider.sentToAuthorization) throw new Error(`signing in could not start: ${errorText(err)}`);
    } finally {
      await client.close().catch(() => undefined);
    }
    const code = await within(listener.code, options.timeoutMs);
    secrets.push(code);
    try {
      await opened.finishAuth(code);
    } catch (err) {
      throw new Error(`the authorization server did not give Crow a token: ${opened.authRefusal() ?? errorText(err)}`);
    }
    return { signedIn: true, tools: await toolsAfterSignIn(config, options) };
  } catch (err) {
    throw scrubbed(err, secrets, provider);
  } finally {
    listener.close();
  }
}

/** Connects as a session will, with the stored tokens, and counts the tools. */
async function toolsAfterSignIn(config: McpServerConfig, options: SignInOptions): Promise<number> {
  const transport = config.transport as Extract<McpServerConfig['transport'], { type: 'http' | 'sse' }>;
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
function scrubbed(err: unknown, secrets: readonly string[], provider: McpOAuthProvider | undefined): Error {
  let message = provider ? provider.scrub(errorText(err)) : errorText(err);
  for (const secret of secrets) message = message.split(secret).join('[redacted]');
  return err instanceof McpAuthRefused ? new McpAuthRefused(message) : new Error(message);
}
