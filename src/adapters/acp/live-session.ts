/**
 * A session open on this connection, in the protocol's terms, and nothing
 * more: its modes and config options, its prompts (live, or stored and shown
 * again on session/load) as session updates through one UpdateTranslator
 * each, permissions asked through the client, files and terminals through
 * the client where it offers them. Everything else (the composition, MCP
 * servers, undo, cost, the one running prompt and its one cancel signal) is
 * the HostSession's.
 */
import { randomUUID } from 'node:crypto';
import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  CreateElicitationRequest,
  RequestPermissionRequest,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { NoticeLevel } from '../../engine/events';
import type { WorkspaceCatalog } from '../../host/catalog';
import { CostMeter } from '../../host/cost';
import { HostError } from '../../host/host-error';
import { CANCEL_GRACE_MS, HostSession, type HostSessionOptions, type HostStore } from '../../host/host-session';
import { storedPrompts } from '../../host/stored-prompts';
import type { McpAuth } from '../../mcp/mcp-connection';
import type { McpServerConfig } from '../../mcp/server-config';
import { NodeWorkspace } from '../../tools/node-workspace';
import type { PermissionRequest } from '../../tools/permissions';
import { errorText } from '../../vocabulary/text';
import type { AcpLogger } from './acp-log';
import { mcpElicitation } from './acp-elicit';
import { clientAsk } from './acp-permissions';
import { ClientWorkspace } from './client-workspace';
import { checkPrompt, promptBlocks } from './prompt-content';
import { requestErrors } from './request-errors';
import { promptAnswer, requestError } from './prompt-answer';
import { configOptionsOf, modesOf, setConfigOption, setMode } from './session-config';
import { SessionAttempts } from './acp-attempts';
import { ATTEMPTS_OPTION, attemptsValue } from './attempts-option';
import { UpdateSink } from './update-sink';
import { noticeText, ToolCallIds, UpdateTranslator } from './update-translator';
import type { OfferedCommand } from '../../mcp/prompt-commands';

/** What a live session uses of its connection and folder. */
export interface SessionServices {
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  catalog: WorkspaceCatalog;
  store: HostStore;
  logger: AcpLogger;
  /** The catalog of another folder (an attempt's worktree); absent: the session's own. */
  catalogFor?: (cwd: string) => WorkspaceCatalog | Promise<WorkspaceCatalog>;
  /** The session's MCP servers given by the client, besides the folder's configured ones. */
  mcpServers: readonly McpServerConfig[];
  /** Undo points for the session's prompts; absent: none. */
  undo?: { dataHome: string; env: NodeJS.ProcessEnv };
  /** How the session's remote MCP servers sign in. */
  mcpAuth?: McpAuth;
  env: NodeJS.ProcessEnv;
}

/** The prompt being answered: its translator and updates, and whether the client cancelled it. */
interface RunningPrompt {
  translator: UpdateTranslator;
  sink: UpdateSink;
  cancelled: boolean;
  /** Resolves CANCEL_GRACE_MS after a cancel: the answer waits no longer for the run to wind down. */
  grace: Promise<undefined>;
  startGrace(): void;
}

/** How long a session's opening waits, in the background, for the servers to list their models. */
const MODEL_LIST_WAIT_MS = 5_000;

export class LiveSession {
  private readonly toolCallIds = new ToolCallIds();
  /** Updates outside prompts (modes, options, commands, titles), in order. */
  readonly updates: UpdateSink;
  private running: RunningPrompt | undefined;
  /** The answer of the prompt running now (or last), which a queued prompt that joined it shares. */
  private answering: Promise<StopReason> | undefined;
  /** The MCP servers' prompts last offered, offered again with the folder's commands. */
  private mcpPrompts: readonly OfferedCommand[] = [];
  /** Prompts run as several attempts (the session's "Attempts" option). */
  private readonly attempts: SessionAttempts;

  private constructor(
    private readonly host: HostSession,
    private readonly services: SessionServices,
  ) {
    this.updates = this.sink();
    this.attempts = new SessionAttempts(host, services, () => this.sink(), (err, sink) => this.crashed(err, sink));
  }

  /** A new session (no `id`) or a stored one, live on this connection. Throws the host's HostError when it cannot open. */
  static async open(services: SessionServices, cwd: string, stored?: string): Promise<LiveSession> {
    let live: LiveSession | undefined;
    const sessionId = stored ?? randomUUID();
    const workspace = new ClientWorkspace(new NodeWorkspace(cwd), {
      sessionId,
      capabilities: services.capabilities,
      client: services.client,
      embedTerminal: (terminalId) => live?.embedTerminal(terminalId) ?? Promise.resolve(),
    });
    const options: HostSessionOptions = {
      catalog: () => services.catalog,
      store: services.store,
      workspace,
      ask: clientAsk({
        sessionId,
        request: (params: RequestPermissionRequest, signal) =>
          services.client.request('session/request_permission', params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
        toolCall: async (request) => (await live?.toolCall(request)) ?? { toolCallId: request.callId, title: request.title },
        ...(services.capabilities?.elicitation?.form
          ? {
              elicit: (params: CreateElicitationRequest, signal: AbortSignal) =>
                services.client.request('elicitation/create', params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
            }
          : {}),
      }),
      ...mcpElicitation(sessionId, services),
      howToAllow: (category) => `allow "${category}" in the permission settings (permissions.${category} in config.toml)`,
      mcpServers: services.mcpServers,
      ...(services.undo ? { undo: services.undo } : {}),
      ...(services.mcpAuth ? { mcpAuth: services.mcpAuth } : {}),
      env: services.env,
      observer: {
        notice: (level, message, title) => live?.notice(level, message, live.updates, title),
        agentChanged: (agent) => live?.modeChanged(agent),
        commandsOffered: (commands) => live?.offerCommands(commands),
        titled: (title) => live?.notify({ sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() }),
      },
    };
    const host = stored === undefined ? await HostSession.create(options, { id: sessionId }) : await HostSession.load(options, stored);
    live = new LiveSession(host, services);
    return live;
  }

  get id(): string {
    return this.host.id;
  }

  get cwd(): string {
    return this.host.session.cwd;
  }

  modes(): SessionModeState {
    return modesOf(this.host, this.services.catalog);
  }

  configOptions(): SessionConfigOption[] {
    return [...configOptionsOf(this.host, this.services.catalog), this.attempts.option()];
  }

  /** Tells the client, once the session is open, its slash commands and what it should know of the folder's configuration. */
  async announce(): Promise<void> {
    this.offerCommands(this.mcpPrompts);
    void this.offerServedModels();
    if (!this.services.capabilities?.session?.notices) return;
    for (const message of await this.host.takeNotices()) this.notice('warning', message);
  }

  /** The folder's slash commands and the MCP servers' prompts, as the client offers them. */
  offerCommands(mcpPrompts: readonly OfferedCommand[]): void {
    this.mcpPrompts = mcpPrompts;
    const folder = (this.services.catalog.commands?.().list() ?? []).map(({ name, description, hint }) => ({ name, description, hint: hint ?? 'optional arguments' }));
    const availableCommands = [...folder, ...mcpPrompts].map(({ name, description, hint }) => ({ name, description, input: { hint } }));
    this.notify({ sessionUpdate: 'available_commands_update', availableCommands });
  }

  /** Once the servers have listed their models, the model options offer those (when that changes them). */
  private async offerServedModels(): Promise<void> {
    const before = JSON.stringify(this.configOptions());
    if (!(await this.services.catalog.refreshModels?.(this.host.session.agentName, MODEL_LIST_WAIT_MS))) return;
    const options = this.configOptions();
    if (JSON.stringify(options) !== before) this.notify({ sessionUpdate: 'config_option_update', configOptions: options });
  }

  async setMode(modeId: string): Promise<void> {
    await setMode(this.host, this.services.catalog, modeId);
    this.notify({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
  }

  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    if (configId === ATTEMPTS_OPTION) this.attempts.count = attemptsValue(value);
    else await setConfigOption(this.host, this.services.catalog, configId, value, [ATTEMPTS_OPTION]);
    return this.configOptions();
  }

  /**
   * Shows the stored session again (session/load): each prompt's events
   * through a translator of its own, as they were shown live, the session's
   * cost growing as it did. Resolves once every update has been delivered;
   * a session deleted before its record was read is an unknown session.
   */
  async replay(): Promise<void> {
    const sink = this.sink();
    const meter = new CostMeter();
    let prompts: ReturnType<typeof storedPrompts>;
    try {
      prompts = storedPrompts(this.host.session);
    } catch (err) {
      if (err instanceof Error && err.name === 'UnknownSessionError') throw requestErrors.unknownSession(this.id);
      throw err;
    }
    for (const { start, events } of prompts) {
      const translator = this.translator(sink, () => meter.session.costUsd, true);
      for (const event of [start, ...events]) {
        meter.observe(event);
        translator.handle(event);
      }
      translator.flush();
    }
    await sink.drained();
  }

  /**
   * Answers one prompt: the host's events as session updates, then the stop
   * reason. A prompt the host refuses to start is the JSON-RPC error it
   * deserves. After a cancel the answer waits at most the host's grace
   * period for the run to wind down; once answered, nothing more of the
   * prompt reaches the client. A prompt sent while another runs is queued
   * for the agents' next step and answered when that run ends (or run as
   * the next prompt when the run ends first: prompts handed back together
   * start one prompt and join it), unless the client asked to
   * interrupt or to be refused (`_meta["crow/whileBusy"]`). A prompt Crow
   * cannot take (see checkPrompt) is refused before anything happens.
   */
  async prompt(content: ContentBlock[], whileBusy: WhileBusy = 'queue', attempts = this.attempts.count): Promise<StopReason> {
    checkPrompt(content);
    this.attempts.checkIdle();
    if (attempts > 1) return this.attempts.answer(content, attempts);
    if (whileBusy === 'queue') {
      // Given to the working agent at its next step: this request is answered when the run it joined ends.
      let joined = this.host.busy ? this.answering : undefined;
      while (joined) {
        const outcome = await this.host.steer(promptBlocks(content, true));
        if (outcome.delivered) return (await joined.catch(() => undefined)) ?? 'end_turn';
        // Handed back (the run ended first): join the prompt another message handed back with it has started, else start one.
        joined = this.host.busy && this.answering !== joined ? this.answering : undefined;
      }
    } else if (this.host.busy && whileBusy === 'interrupt') {
      this.cancel();
    }
    const answer = this.answer(content);
    this.answering = answer;
    return answer;
  }

  private async answer(content: ContentBlock[]): Promise<StopReason> {
    const sink = this.sink();
    const running = runningPrompt(this.translator(sink, () => this.host.meter.session.costUsd, false), sink);
    this.running = running;
    let refused: Error | undefined;
    const consumed = this.host
      .prompt(promptBlocks(content, true))
      .forEach((event) => {
        if (event.type === 'notice') this.log(event.level, event.message);
        running.translator.handle(event);
      })
      .catch((err: unknown) => {
        if (err instanceof HostError) refused = requestError(err);
        else this.crashed(err, sink);
        return undefined;
      });
    try {
      const outcome = await Promise.race([consumed, running.grace]);
      if (refused) throw refused;
      running.translator.flush();
      await Promise.race([sink.drained(), running.grace]);
      return running.cancelled ? 'cancelled' : promptAnswer(outcome, running.translator.lastPrimaryStop);
    } finally {
      sink.close();
      void consumed.finally(() => {
        if (this.running === running) this.running = undefined;
      });
    }
  }

  /** The client cancelled the prompt: the host's one signal for it aborts, and the answer waits only the grace period. */
  cancel(): void {
    this.attempts.cancel();
    this.running?.startGrace();
    this.host.cancel();
  }

  /**
   * Stops serving the session; it stays stored. A running prompt is
   * cancelled (answered `cancelled` within the grace period, however long
   * its run takes to wind down) and so is a prompt queued behind it; no
   * update of the session reaches the client from now on. Settles once the
   * host has closed.
   */
  close(): Promise<void> {
    this.cancel();
    this.updates.close();
    return this.host.close();
  }

  /**
   * The client's view of the tool call a permission request comes from,
   * once every event emitted before it has been translated and delivered
   * (events reach the translator through promise continuations only, so
   * all of them have by the next macrotask).
   */
  private async toolCall(request: PermissionRequest): Promise<ToolCallUpdate> {
    await this.settled();
    const details = request.question?.details;
    // A request of no tool call (an MCP server's sampling) shows what it asks as the call's content.
    const content = details ? { content: [{ type: 'content' as const, content: { type: 'text' as const, text: details } }] } : {};
    const title = details ? `${request.agent}: ${request.title}` : request.title;
    return this.running?.translator.toolCall(request.agent, request.callId) ?? { toolCallId: request.callId, title, ...content };
  }

  /** Embeds a client terminal in the tool call now running, and waits until the client has been told. */
  private async embedTerminal(terminalId: string): Promise<void> {
    await this.settled();
    const running = this.running;
    if (running?.translator.attachTerminal(terminalId)) await running.sink.drained();
  }

  private async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.running?.translator.flush();
    await this.running?.sink.drained();
  }

  private translator(sink: UpdateSink, sessionCost: () => number | undefined, replaying: boolean): UpdateTranslator {
    return new UpdateTranslator({
      replaying,
      cwd: this.cwd,
      sink,
      toolCallIds: this.toolCallIds,
      contextWindow: (model) => this.services.catalog.contextWindow(model),
      readText: async (path) => new TextDecoder().decode(await this.host.workspace.readFile(path)),
      notices: this.services.capabilities?.session?.notices !== undefined,
      sessionCost,
    });
  }

  /** A run that failed outside the engine's own error handling (a bug): logged, and told in the answer. */
  private crashed(err: unknown, sink: UpdateSink): void {
    this.services.logger.log('error', 'prompt run crashed', { session: this.id, error: errorText(err) });
    sink.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Crow failed: ${errorText(err)}` } });
  }

  private log(level: NoticeLevel, message: string): void {
    this.services.logger.log(level === 'info' ? 'info' : 'warn', message, { session: this.id });
  }

  /** Something the user should know outside a prompt: a notice update where the client shows them, else the log only. */
  private notice(level: NoticeLevel, message: string, sink: UpdateSink = this.updates, title?: string): void {
    this.log(level, message);
    if (this.services.capabilities?.session?.notices) {
      sink.send({ sessionUpdate: 'notice', severity: level, ...noticeText(message, title) });
    } else if (level !== 'info') {
      sink.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `${level === 'error' ? 'Error' : 'Warning'}: ${message}\n` } });
    }
  }

  private modeChanged(agent: string): void {
    this.notify({ sessionUpdate: 'current_mode_update', currentModeId: agent });
    this.notify({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
  }

  private sink(): UpdateSink {
    return new UpdateSink(
      (update) => this.services.client.notify('session/update', { sessionId: this.id, update }),
      (err) => this.services.logger.log('warn', 'session/update not delivered', { session: this.id, error: errorText(err) }),
    );
  }

  private notify(update: SessionUpdate): void {
    this.updates.send(update);
  }
}

function runningPrompt(translator: UpdateTranslator, sink: UpdateSink): RunningPrompt {
  let startTimer!: () => void;
  const grace = new Promise<undefined>((resolve) => {
    startTimer = () => void setTimeout(resolve, CANCEL_GRACE_MS, undefined).unref();
  });
  const running: RunningPrompt = {
    translator,
    sink,
    cancelled: false,
    grace,
    startGrace: () => {
      if (running.cancelled) return;
      running.cancelled = true;
      startTimer();
    },
  };
  return running;
}

/** What a prompt sent while another runs does: joins it at its next step (default), stops it and runs at once, or is refused. */
export type WhileBusy = 'queue' | 'interrupt' | 'refuse';
