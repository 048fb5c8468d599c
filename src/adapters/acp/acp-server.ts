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
  /** Names of the required API keys missing now, for auth methods and authenticate; must stay light. */
  missingKeys: () => string[];
  logger: AcpLogger;
  version: string;
  /** Whether the sessions can be forked (SessionSetup.fork): told at initialize without loading them. */
  forks?: boolean;
}

/** Auth method ids are `env:` and the variable's name. */
const ENV_METHOD = 'env:';

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
      return initializeResponse(options);
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

function initializeResponse(options: AcpServerOptions): InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: 'crow-agent', title: 'Crow Agent', version: options.version },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: options.forks ? FORKING_SESSION_CAPABILITIES : SESSION_CAPABILITIES,
    },
    authMethods: missingKeys(options).map(authMethod),
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

function authMethod(key: string): AuthMethod {
  return {
    id: `${ENV_METHOD}${key}`,
    name: key,
    description: `Set the environment variable ${key} where your editor starts crow (e.g. "env" in Zed's agent_servers settings), then restart the agent.`,
  };
}

/** Keys come from the environment: authenticating is checking that the one asked about is there now. */
function authenticate(methodId: string, options: AcpServerOptions): Record<string, never> {
  if (!methodId.startsWith(ENV_METHOD)) {
    throw requestErrors.invalidParams(`Unknown auth method ${shown(methodId)}. Crow reads API keys from environment variables (methods "${ENV_METHOD}NAME").`);
  }
  const key = methodId.slice(ENV_METHOD.length);
  if (missingKeys(options).includes(key)) {
    throw requestErrors.authRequired(`${key} is not set. ${authMethod(key).description}`);
  }
  return {};
}

function missingKeys(options: AcpServerOptions): string[] {
  try {
    return options.missingKeys();
  } catch (err) {
    options.logger.log('warn', 'cannot check API keys', { error: errorText(err) });
    return [];
  }
}
