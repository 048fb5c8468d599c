/**
 * Subagents that are other ACP agents: a command run over stdio (another
 * `crow acp`, any ACP agent on PATH) or a WebSocket URL (e.g. served by
 * `crow acp-bridge`). We are their ACP client for one prompt: their updates
 * become progress lines, their permission requests are decided by our own
 * policy, and their final message is the result. We offer them no file
 * system and no terminals (no client capabilities; such requests are refused).
 */
import { isAbsolute, relative } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as acp from '@agentclientprotocol/sdk';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { version } from '../../package.json';
import type { BaseAgentDefinition } from '../config/agent-definitions';
import { oneLine } from '../vocabulary/text';
import { reportSummary } from './report-summary';
import { commandAlwaysScope } from '../tools/command-rules';
import type { PermissionRequest } from '../tools/permissions';
import type { PermissionCategory } from '../vocabulary/permission-types';
import type { ToolContext } from '../tools/tool';
import { settledBefore, startAgentProcess, stopAgentProcess } from './agent-process';

export interface ExternalOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  /** The agent's final message. */
  text: string;
  /** One line: the message's first, or what went wrong. */
  summary: string;
}

/** How long an agent may take to answer initialize and session/new. */
const STARTUP_TIMEOUT_MS = 30_000;
/** How long a cancelled prompt may take to return before the agent is stopped anyway. */
const CANCEL_GRACE_MS = 2_000;
/** Enough of its stderr to explain a failure. */
const STDERR_TAIL_CHARS = 2_000;

/**
 * What an agent process gets from our environment besides the variables its
 * definition names: enough to find programs, its home folders and its
 * locale, and no keys.
 */
const BASE_ENV = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ', 'TMPDIR',
  'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR',
  'SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'TEMP', 'TMP',
];

/** ACP tool kinds as the permission categories our policy decides; anything else counts as execute. */
const CATEGORY_OF_KIND: Partial<Record<acp.ToolKind, PermissionCategory>> = {
  read: 'read', search: 'read', edit: 'write', delete: 'write', move: 'write', execute: 'execute', fetch: 'network',
};

/**
 * How a prompt ended: the agent's stop reason; `killed` when it ignored the
 * cancel; `interrupted` when the cancel came before it answered at all.
 */
type Ending = acp.StopReason | 'killed' | 'interrupted';

interface Transport {
  stream: acp.Stream;
  /** Ends the connection and whatever runs behind it; resolves once it is gone. */
  close(): Promise<void>;
  /** What the transport knows about a failure, e.g. an exit code and the end of stderr; '' when nothing. */
  diagnostics(): string;
}

/**
 * Runs `task` as one prompt of the external agent `definition` names, in a
 * new session in `cwd`. Never throws: failures are outcomes. When ctx.signal
 * aborts, the agent is sent session/cancel and stopped soon after; in every
 * case its process (and process group) or socket is gone when this returns.
 */
export async function runExternalSubagent(
  definition: BaseAgentDefinition,
  task: string,
  ctx: ToolContext,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ExternalOutcome> {
  const external = definition.external;
  if (!external) return { status: 'failed', text: '', summary: `${definition.name} is not an external ACP agent.` };
  const turn = new ExternalTurn(definition.name, ctx, options.cwd);
  let token: string | undefined;
  if ('url' in external && external.tokenEnv !== undefined) {
    token = options.env[external.tokenEnv];
    if (!token) return turn.failed(`acp_token_env names ${external.tokenEnv}, which is not set: set it to the token the server at ${external.url} asks for.`);
  }
  const transport = 'url' in external ? socketTransport(external.url, token) : processTransport(external.command, external.env, options);
  let ending: Ending | Error;
  try {
    ending = await turn.client().connectWith(transport.stream, (agent) => converse(agent, task, options.cwd, ctx.signal)).catch(asError);
  } finally {
    await transport.close();
  }
  if (!(ending instanceof Error)) return turn.outcome(ending);
  if (ctx.signal.aborted) return turn.outcome('interrupted');
  return turn.failed(`${ending.message}${transport.diagnostics()}${tokenAdvice(ending, external)}`);
}

/** For a server that refused the connection as unauthorized (HTTP 401): what to do about the token. */
function tokenAdvice(error: Error, external: NonNullable<BaseAgentDefinition['external']>): string {
  if (!('url' in external) || !/\b401\b/.test(error.message)) return '';
  if (external.tokenEnv !== undefined) return `; it refused the token in ${external.tokenEnv}`;
  return '; it asks for a token: put it in an environment variable and name that variable in acp_token_env';
}

/** initialize, session/new, then the prompt; on abort, session/cancel and a short wait for the prompt to return. */
async function converse(agent: acp.ClientContext, task: string, cwd: string, signal: AbortSignal): Promise<Ending> {
  const sessionId = await startSession(agent, cwd, signal);
  const prompt = agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: task }] });
  let ending: Ending;
  if (await settledBefore(prompt, signal)) {
    ending = (await prompt).stopReason;
  } else {
    await agent.notify('session/cancel', { sessionId });
    ending = (await settledBefore(prompt, AbortSignal.timeout(CANCEL_GRACE_MS))) ? 'cancelled' : 'killed';
  }
  // Handlers of updates that arrived before the answer may still be in flight: let them finish.
  await new Promise((resolve) => setImmediate(resolve));
  return ending;
}

async function startSession(agent: acp.ClientContext, cwd: string, signal: AbortSignal): Promise<string> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(STARTUP_TIMEOUT_MS)]);
  const options = { cancellationSignal: deadline, stopWaitingOnCancel: true };
  try {
    const init = await agent.request(
      'initialize',
      { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'crow-agent', version } },
      options,
    );
    if (init.protocolVersion !== acp.PROTOCOL_VERSION) {
      throw new Error(`it speaks ACP version ${init.protocolVersion}, and we speak version ${acp.PROTOCOL_VERSION}`);
    }
    return (await agent.request('session/new', { cwd, mcpServers: [] }, options)).sessionId;
  } catch (err) {
    if (deadline.aborted && !signal.aborted) throw new Error(`it did not start a session within ${STARTUP_TIMEOUT_MS / 1000} s`);
    throw err;
  }
}

/** What an agent told us about one of its tool calls, so far. */
interface KnownCall {
  toolCallId: string;
  title?: string;
  kind?: acp.ToolKind;
  /** The command line, when its input has one. */
  command?: string;
  /** Absolute paths it touches. */
  paths?: string[];
}

/** One prompt of an external agent, seen from its client: the text it says, the calls it makes, the lines we report. */
class ExternalTurn {
  private readonly calls = new Map<string, KnownCall>();
  /** Text since the last tool call or plan; earlier messages only go out as progress. */
  private message = '';
  private lastMessage = '';

  constructor(
    private readonly name: string,
    private readonly ctx: ToolContext,
    private readonly cwd: string,
  ) {}

  client(): acp.ClientApp {
    return acp
      .client({ name: 'crow-agent' })
      .onNotification('session/update', ({ params }) => this.update(params.update))
      .onRequest('session/request_permission', ({ params, signal }) => this.permission(params, signal));
  }

  outcome(ending: Ending): ExternalOutcome {
    const text = this.text();
    switch (ending) {
      case 'end_turn':
        return { status: 'completed', text, summary: reportSummary(text) || `${this.name} finished without a message.` };
      case 'cancelled':
        return { status: 'cancelled', text, summary: `${this.name} stopped on the cancel.` };
      case 'killed':
        return { status: 'cancelled', text, summary: `${this.name} did not stop within ${CANCEL_GRACE_MS / 1000} s of the cancel and was stopped.` };
      case 'interrupted':
        return { status: 'cancelled', text, summary: `${this.name} was cancelled.` };
      default:
        return { status: 'failed', text, summary: `${this.name} stopped early: ${ending.replaceAll('_', ' ')}.` };
    }
  }

  failed(reason: string): ExternalOutcome {
    return { status: 'failed', text: this.text(), summary: `${this.name} failed: ${reason}` };
  }

  /** Updates are handled synchronously, so they apply in the order they arrive. */
  private update(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        if (update.content.type === 'text') this.message += update.content.text;
        return;
      case 'tool_call':
        this.endMessage();
        this.remember(update);
        return this.progress(update.title);
      case 'tool_call_update': {
        const call = this.remember(update);
        if (update.status === 'failed') this.progress(`failed: ${call.title ?? call.toolCallId}`);
        return;
      }
      case 'plan': {
        this.endMessage();
        const done = update.entries.filter((entry) => entry.status === 'completed').length;
        const next = update.entries.find((entry) => entry.status !== 'completed');
        return this.progress(`plan: ${done}/${update.entries.length} done${next ? `, next: ${next.content}` : ''}`);
      }
      default:
        return;
    }
  }

  /** Decided by our policy (and, where it says ask, by our person), answered with the agent's own option. */
  private async permission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const call = this.remember(params.toolCall);
    const request = this.permissionRequest(call);
    const verdict = await this.ctx.permissions.authorize(request, AbortSignal.any([signal, this.ctx.signal]));
    if (this.ctx.signal.aborted) return { outcome: { outcome: 'cancelled' } };
    if (!verdict.allowed) this.progress(`denied (${request.category}): ${call.title ?? call.toolCallId}`);
    const kinds: acp.PermissionOptionKind[] = verdict.allowed ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const option = kinds.map((kind) => params.options.find((candidate) => candidate.kind === kind)).find((found) => found !== undefined);
    return { outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' } };
  }

  private permissionRequest(call: KnownCall): PermissionRequest {
    const category = CATEGORY_OF_KIND[call.kind ?? 'other'] ?? 'execute';
    const command = category === 'execute' ? call.command : undefined;
    return {
      tool: call.kind ?? 'other',
      callId: `${this.ctx.callId}/${call.toolCallId}`,
      agent: this.name,
      category,
      title: `${this.name}: ${call.title ?? call.toolCallId}`,
      ...(command !== undefined ? { command } : {}),
      paths: (call.paths ?? []).map((path) => (isAbsolute(path) ? relative(this.cwd, path) : path)),
      alwaysScope: command !== undefined ? commandAlwaysScope(command) : `every ${category} request`,
    };
  }

  /** Merges what `update` tells about a call into what is known of it. */
  private remember(update: acp.ToolCallUpdate): KnownCall {
    const known = this.calls.get(update.toolCallId);
    const input = update.rawInput as { command?: unknown } | null | undefined;
    const call: KnownCall = {
      toolCallId: update.toolCallId,
      title: update.title ?? known?.title,
      kind: update.kind ?? known?.kind,
      command: typeof input?.command === 'string' ? input.command : known?.command,
      paths: update.locations?.map((location) => location.path) ?? known?.paths,
    };
    this.calls.set(update.toolCallId, call);
    return call;
  }

  /** A message followed by a tool call or a plan was a step, not the answer: it goes out as a line. */
  private endMessage(): void {
    if (this.message.trim() === '') return;
    this.progress(this.message);
    this.lastMessage = this.message;
    this.message = '';
  }

  private progress(line: string): void {
    const text = oneLine(line, 160);
    this.ctx.report?.({ type: 'subagent_progress', agent: this.ctx.agentName, subagent: this.name, callId: this.ctx.callId, text });
  }

  /** The final message: the text after the last step, or the last message when the agent ended on a step. */
  private text(): string {
    return (this.message.trim() || this.lastMessage).trim();
  }
}

function processTransport(command: readonly string[], envNames: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Transport {
  const env = Object.fromEntries([...BASE_ENV, ...envNames].filter((name) => options.env[name] !== undefined).map((name) => [name, options.env[name]]));
  const child = startAgentProcess(command, { cwd: options.cwd, env, stderr: 'pipe' });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
  let spawnError: Error | undefined;
  child.on('error', (err) => (spawnError ??= err));
  const output = Readable.toWeb(child.stdout!) as WebReadableStream<Uint8Array>;
  return {
    stream: acp.ndJsonStream(Writable.toWeb(child.stdin!), output as ReadableStream<Uint8Array>),
    close: () => stopAgentProcess(child),
    diagnostics: () => {
      if (spawnError) return ` (could not run ${command[0]}: ${spawnError.message})`;
      const exit = child.exitCode !== null ? `exit code ${child.exitCode}` : child.signalCode !== null ? `signal ${child.signalCode}` : 'still running';
      const tail = stderr.trim().split('\n').slice(-5).join('\n');
      return ` (${command.join(' ')}: ${exit}${tail ? `; its stderr ended with:\n${tail}` : ''})`;
    },
  };
}

/** A WebSocket to `url`, presenting `token` (if any) as a Bearer token, as crow acp-bridge asks. */
function socketTransport(url: string, token: string | undefined): Transport {
  const headers = token !== undefined ? { authorization: `Bearer ${token}` } : undefined;
  // Closing the ACP connection closes the stream, and with it the socket.
  return {
    stream: createWebSocketStream(url, { WebSocket: QuietWebSocket, ...(headers ? { headers } : {}) }),
    close: async () => {},
    diagnostics: () => ` (${url})`,
  };
}

/**
 * A ws socket that always has an 'error' listener: the SDK's transport stops
 * listening when it closes the socket, and ws reports closing a socket that
 * is still connecting as an 'error', which unheard would end the process.
 */
class QuietWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    this.on('error', () => {});
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
