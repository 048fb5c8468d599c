import * as acp from '@agentclientprotocol/sdk';
import type { AuthMethod, ClientCapabilities, InitializeResponse, McpServer } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import type { McpAuth } from '../../mcp/mcp-connection';
import type { AcpLogger } from './acp-log';
import { McpServerParams } from './acp-mcp-servers';
import type { CatalogFor, SessionTable } from './acp-sessions';
import type { LiveSession, WhileBusy } from './live-session';
import { errorText, requestErrors, shown } from './request-errors';
import type { AcpSessionStore } from './acp-session-store';

/** What sessions are made of: each folder's catalog, storage, undo. */
export interface SessionSetup {
  catalogFor: CatalogFor;
  store: AcpSessionStore;
  /** Undo points for sessions' prompts; absent: none. */
  undo?: { dataHome: string; env: NodeJS.ProcessEnv };
  /** How remote MCP servers sign in (tokens stored by `crow mcp login`); absent: a server that asks is reported as unusable. */
  mcpAuth?: McpAuth;
  /** The environment programmatic commands see; default: the process's. */
  env?: NodeJS.ProcessEnv;
  /** Stores a copy of a session (up to its checkpoint `at`, else all of it); returns the copy's id. Absent: session/fork is refused. */
  fork?: (id: string, at?: number) => string;
}

export interface AcpServerOptions {
  /**
   * Called on the first session request, not before: `initialize` must
   * answer without loading providers, tools or storage (start-up budget:
   * 1.3× an SDK-only agent). Load heavy modules inside it.
   */
  sessions: () => SessionSetup;
  /**
   * Names of the required API keys missing now, for auth methods
   * (`initialize`: must stay light, so a key the store records may be
   * counted without reading it) and for `authenticate` (read for real).
   */
  missingKeys: (when: 'initialize' | 'authenticate') => string[];
  /**
   * Reads the keys `crow login` stored again, when they changed (cheap when
   * not): called before authenticate and every session request, since the
   * client may run the login while this server runs. Absent: keys are fixed.
   */
  refreshKeys?: () => void;
  /** How a terminal runs `crow login` (the executable and its arguments), for clients that ask for the whole command (`_meta["terminal-auth"]`). */
  loginCommand?: { command: string; args: string[] };
  logger: AcpLogger;
  version: string;
  /** Whether the sessions can be forked (SessionSetup.fork): told at initialize without loading them. */
  forks?: boolean;
}

/** Auth method ids are `env:` and the variable's name, or LOGIN_METHOD. */
const ENV_METHOD = 'env:';
/** The auth method of `crow login`: a terminal method for clients that run one, else one to call once the person has run it. */
export const LOGIN_METHOD = 'crow-login';

/**
 * The Crow agent as an ACP agent app: every handler, answering in the
 * protocol's terms. Build one app per connection (it holds the
 * connection's sessions). Unknown methods, malformed messages and invalid
 * params are answered by the SDK with JSON-RPC errors; every error a
 * handler throws is a RequestError with a message a person can act on.
 */
export function createAcpServer(options: AcpServerOptions): acp.AgentApp {
  const { logger } = options;
  let capabilities: ClientCapabilities | undefined;
  let loaded: SessionTable | undefined;
  const table = (): SessionTable => {
    if (!loaded) {
      // Required here, not imported: the session machinery loads on first use.
      const { SessionTable } = require('./acp-sessions') as typeof import('./acp-sessions');
      const setup = options.sessions();
      loaded = new SessionTable({ ...setup, env: setup.env ?? process.env, logger, capabilities: () => capabilities });
    }
    refreshKeys(options);
    return loaded;
  };
  const opened = (live: LiveSession) => {
    // After the response, so the client knows the session when the commands arrive.
    setImmediate(() => {
      live.announce().catch((err: unknown) => logger.log('warn', 'could not tell the client the session\'s commands', { session: live.id, error: errorText(err) }));
    });
    return { modes: live.modes(), configOptions: live.configOptions() };
  };
  return acp
    .agent({ name: 'crow-agent' })
    .onConnect((connection) => {
      void connection.closed.then(() => {
        logger.log('info', 'connection closed');
        return loaded?.closeAll();
      });
    })
    .onRequest('initialize', ({ params }) => {
      capabilities = params.clientCapabilities;
      logger.log('info', 'initialize', { client: params.clientInfo?.name, protocolVersion: params.protocolVersion });
      return initializeResponse(options, capabilities);
    })
    .onRequest('authenticate', ({ params }) => authenticate(params.methodId, options))
    .onRequest('session/new', async ({ params, client }) => {
      const live = await table().create(params.cwd, client, params.mcpServers);
      logger.log('info', 'session/new', { session: live.id, cwd: params.cwd, mcpServers: params.mcpServers.length });
      return { sessionId: live.id, ...opened(live) };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const live = await table().reopen(params.sessionId, params.cwd, client, params.mcpServers);
      await live.replay();
      return opened(live);
    })
    .onRequest('session/resume', async ({ params, client }) => opened(await table().reopen(params.sessionId, params.cwd, client, params.mcpServers ?? [])))
    .onRequest('session/fork', ForkParams, async ({ params, client }) => {
      const live = await table().fork(params.sessionId, checkpointOf(params._meta?.[FORK_AT]), params.cwd, client, params.mcpServers as McpServer[]);
      logger.log('info', 'session/fork', { session: params.sessionId, fork: live.id });
      return { sessionId: live.id, ...opened(live) };
    })
    .onRequest('session/list', ({ params }) => ({ sessions: table().list(params.cwd ?? undefined) }))
    .onRequest('session/close', async ({ params }) => {
      await table().close(params.sessionId);
      return {};
    })
    .onRequest('session/delete', async ({ params }) => {
      await table().delete(params.sessionId);
      logger.log('info', 'session/delete', { session: params.sessionId });
      return {};
    })
    .onRequest('session/set_mode', async ({ params }) => {
      await table().get(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest('session/set_config_option', async ({ params }) => ({
      configOptions: await table().get(params.sessionId).setConfigOption(params.configId, params.value),
    }))
    .onRequest('session/prompt', async ({ params }) => {
      const started = Date.now();
      try {
        const stopReason = await table().get(params.sessionId).prompt(params.prompt, whileBusy(params._meta?.[WHILE_BUSY]));
        logger.log('info', 'prompt answered', { session: params.sessionId, stopReason, ms: Date.now() - started });
        return { stopReason };
      } catch (err) {
        logger.log('warn', 'prompt refused', { session: params.sessionId, error: errorText(err) });
        throw err;
      }
    })
    .onNotification('session/cancel', ({ params }) => {
      // A notification has no answer: a cancel for a session closed meanwhile (or never open) is only logged.
      const live = table().find(params.sessionId);
      logger.log('info', 'session/cancel', { session: params.sessionId, ...(live ? {} : { open: false }) });
      live?.cancel();
    });
}

/** What sessions offer; `fork` (session/fork, added when the sessions can fork) is unstable in the protocol, so the stable types do not name it. */
const SESSION_CAPABILITIES = { list: {}, resume: {}, close: {}, delete: {} };
const FORKING_SESSION_CAPABILITIES = { ...SESSION_CAPABILITIES, fork: {} };

function initializeResponse(options: AcpServerOptions, capabilities: ClientCapabilities | undefined): InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: 'crow-agent', title: 'Crow Agent', version: options.version },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: options.forks ? FORKING_SESSION_CAPABILITIES : SESSION_CAPABILITIES,
    },
    authMethods: [loginMethod(options, capabilities), ...missingKeys(options, 'initialize').map(authMethod)],
  };
}

/**
 * session/fork's params (the method is unstable in the protocol, so the
 * stable SDK entry point does not parse it): what a fork needs, the rest
 * left as the client sent it.
 */
const ForkParams = z
  .object({
    sessionId: z.string().min(1),
    cwd: z.string().min(1),
    mcpServers: z
      .array(McpServerParams)
      .nullish()
      .transform((servers) => servers ?? []),
    // As the SDK reads every other method's _meta: one that is not an object is ignored.
    _meta: z.record(z.string(), z.unknown()).nullish().catch(undefined),
  })
  .loose();

/** `_meta` key of session/prompt saying what a prompt sent while another runs does: "queue" (default), "interrupt" or "refuse". */
export const WHILE_BUSY = 'crow/whileBusy';

function whileBusy(value: unknown): WhileBusy {
  if (value === undefined || value === null) return 'queue';
  if (value === 'queue' || value === 'interrupt' || value === 'refuse') return value;
  throw requestErrors.invalidParams(`_meta["${WHILE_BUSY}"] must be "queue", "interrupt" or "refuse", not ${shown(value)}.`);
}

/** `_meta` key of session/fork naming the checkpoint to fork at (as /rewind lists them); without it, the whole session. */
export const FORK_AT = 'crow/checkpoint';

function checkpointOf(at: unknown): number | undefined {
  if (at === undefined || (typeof at === 'number' && Number.isInteger(at) && at >= 1)) return at;
  throw requestErrors.invalidParams(`_meta["${FORK_AT}"] must be a checkpoint number (1, 2, …; /rewind lists them), not ${shown(at)}.`);
}

/**
 * `crow login` as an auth method. A client that runs terminal auth methods
 * (ACP v1 `clientCapabilities.auth.terminal`, schema `AuthMethodTerminal`;
 * or the older `_meta["terminal-auth"]` capability, which Zed and the ACP
 * registry's verifier send, the registry reading either a `type` of
 * "terminal" or a `_meta["terminal-auth"]` entry: registry
 * .github/workflows/client.py `parse_auth_methods`) gets a terminal method:
 * the agent's own command with `login` added. Which way a client adds the
 * args is read two ways (the schema appends them to the agent's command,
 * the registry's AUTHENTICATION.md has them replace its arguments), so both
 * `crow acp login` and `crow login` sign in. Other clients get a method to
 * call once the person has run `crow login` in a terminal.
 */
function loginMethod(options: AcpServerOptions, capabilities: ClientCapabilities | undefined): AuthMethod {
  const base = { id: LOGIN_METHOD, name: 'Sign in with an API key' };
  const metaTerminal = capabilities?._meta?.['terminal-auth'] === true;
  if (capabilities?.auth?.terminal !== true && !metaTerminal) {
    return { ...base, description: 'Run "crow login" in a terminal (pick the provider, paste its API key), then choose this. A key set in the environment wins over a stored one.' };
  }
  const method: AuthMethod = {
    ...base,
    type: 'terminal',
    description: 'Opens crow login in a terminal: pick the provider and paste its API key. Crow keeps it in the OS keychain, or in a private file where there is none.',
    args: ['login'],
  };
  if (metaTerminal && options.loginCommand) method._meta = { 'terminal-auth': { ...options.loginCommand, label: 'Crow sign-in' } };
  return method;
}

function authMethod(key: string): AuthMethod {
  return {
    id: `${ENV_METHOD}${key}`,
    name: key,
    description: `Set the environment variable ${key} where your editor starts crow (e.g. "env" in Zed's agent_servers settings), then restart the agent.`,
  };
}

/**
 * Keys come from the environment and from what `crow login` stored:
 * authenticating is reading the store again and checking that the key
 * asked about (for LOGIN_METHOD: every key the default provider needs) is
 * there now.
 */
function authenticate(methodId: string, options: AcpServerOptions): Record<string, never> {
  const asked = methodId === LOGIN_METHOD ? undefined : methodId.startsWith(ENV_METHOD) ? methodId.slice(ENV_METHOD.length) : null;
  if (asked === null) {
    throw requestErrors.invalidParams(`Unknown auth method ${shown(methodId)}. Crow's methods are "${LOGIN_METHOD}" (crow login) and "${ENV_METHOD}NAME" (an environment variable).`);
  }
  refreshKeys(options);
  const missing = missingKeys(options, 'authenticate').filter((key) => asked === undefined || key === asked);
  if (missing.length === 0) return {};
  const names = missing.join(', ');
  throw requestErrors.authRequired(`No API key yet for ${names}: run "crow login" in a terminal (or set ${names} where your editor starts crow), then authenticate again.`);
}

function refreshKeys(options: AcpServerOptions): void {
  try {
    options.refreshKeys?.();
  } catch (err) {
    options.logger.log('warn', 'cannot read the stored API keys', { error: errorText(err) });
  }
}

function missingKeys(options: AcpServerOptions, when: 'initialize' | 'authenticate'): string[] {
  try {
    return options.missingKeys(when);
  } catch (err) {
    options.logger.log('warn', 'cannot check API keys', { error: errorText(err) });
    return [];
  }
}
