import { randomUUID } from 'node:crypto';
import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  RequestPermissionRequest,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import type { CompositionRole } from '../../agents/role-models';
import { errorText } from '../../vocabulary/text';
import type { NoticeLevel } from '../../engine/events';
import type { WorkspaceCatalog } from '../../host/catalog';
import { HostError } from '../../host/host-error';
import { currentModels, HostSession, type HostSessionOptions, type HostStore } from '../../host/host-session';
import { THOUGHT_LEVELS } from '../../host/prompt-input';
import type { McpServerConfig } from '../../mcp/server-config';
import { NodeWorkspace } from '../../tools/node-workspace';
import type { AcpLogger } from './acp-log';
import { clientAsk } from './acp-permissions';
import { ClientWorkspace } from './client-workspace';
import { replayUpdates } from './history-replay';
import { promptBlocks } from './prompt-content';
import { PromptTurn } from './prompt-turn';
import { requestErrors } from './request-errors';
import { UpdateSink } from './update-sink';
import { noticeText, ToolCallIds, UpdateTranslator } from './update-translator';

/** Config option ids of the thinking level and of each role's model select. */
const THOUGHT_OPTION = 'thought_level';
const MODEL_OPTION: Record<CompositionRole, { id: string; name: string }> = {
  primary: { id: 'model', name: 'Model' },
  coagent: { id: 'coagent_model', name: 'Reviewer model' },
};

/** What a live session uses of its connection and folder. */
export interface SessionServices {
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  catalog: WorkspaceCatalog;
  store: HostStore;
  logger: AcpLogger;
  /** The session's MCP servers given by the client, besides the folder's configured ones. */
  mcpServers: readonly McpServerConfig[];
  /** Undo points for the session's prompts; absent: none. */
  undo?: { dataHome: string; env: NodeJS.ProcessEnv };
  env: NodeJS.ProcessEnv;
}

/**
 * A session open on this connection, in the protocol's terms: its modes and
 * config options, its prompts as session updates, permissions asked through
 * the client, files and terminals through the client where it offers them.
 * Everything else (the composition, MCP servers, undo, cost, the one running
 * prompt) is the HostSession's.
 */
export class LiveSession {
  private readonly toolCallIds = new ToolCallIds();
  /** Updates outside prompts (modes, options, commands, titles), in order. */
  readonly updates: UpdateSink;
  private turn: PromptTurn | undefined;

  private constructor(
    private readonly host: HostSession,
    private readonly services: SessionServices,
  ) {
    this.updates = this.sink();
  }

  /** A new session (no `id`) or a stored one, live on this connection. */
  static async open(services: SessionServices, cwd: string, stored?: string): Promise<LiveSession> {
    let live: LiveSession | undefined;
    const sessionId = stored ?? randomUUID();
    const workspace = new ClientWorkspace(new NodeWorkspace(cwd), {
      sessionId,
      capabilities: services.capabilities,
      client: services.client,
      embedTerminal: (terminalId) => live?.turn?.embedTerminal(terminalId) ?? Promise.resolve(),
    });
    const options: HostSessionOptions = {
      catalog: () => services.catalog,
      store: services.store,
      workspace,
      ask: clientAsk({
        sessionId,
        request: (params: RequestPermissionRequest, signal) =>
          services.client.request('session/request_permission', params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
        toolCall: async (request) => (await live?.turn?.toolCall(request)) ?? { toolCallId: request.callId, title: request.title },
      }),
      howToAllow: (category) => `allow "${category}" in the permission settings (permissions.${category} in config.toml)`,
      mcpServers: services.mcpServers,
      ...(services.undo ? { undo: services.undo } : {}),
      env: services.env,
      observer: {
        notice: (level, message, title) => live?.notice(level, message, live.updates, title),
        agentChanged: (agent) => live?.modeChanged(agent),
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
    return {
      currentModeId: this.host.session.agentName,
      availableModes: this.services.catalog.list().map(({ name, description }) => ({ id: name, name, description })),
    };
  }

  configOptions(): SessionConfigOption[] {
    const { catalog } = this.services;
    const agent = this.host.session.agentName;
    const models: SessionConfigOption[] = currentModels(catalog, agent, this.host.session.models).map(({ role, current, options }) => ({
      type: 'select',
      ...MODEL_OPTION[role],
      ...(role === 'primary' ? { category: 'model' } : {}),
      currentValue: current,
      options: options.map((model) => ({ value: model, name: model })),
    }));
    if (!catalog.thinks?.(agent)) return models;
    const thought: SessionConfigOption = {
      type: 'select',
      id: THOUGHT_OPTION,
      name: 'Thinking',
      category: 'thought_level',
      currentValue: this.host.thoughtLevel(),
      options: THOUGHT_LEVELS.map((level) => ({ value: level, name: level })),
    };
    return [...models, thought];
  }

  /** Tells the client, once the session is open, its slash commands and what it should know of the folder's configuration. */
  async announce(): Promise<void> {
    const availableCommands = (this.services.catalog.commands?.().list() ?? []).map(({ name, description, hint }) => ({
      name,
      description,
      input: { hint: hint ?? 'optional arguments' },
    }));
    this.notify({ sessionUpdate: 'available_commands_update', availableCommands });
    if (!this.services.capabilities?.session?.notices) return;
    for (const message of await this.host.takeNotices()) this.notice('warning', message);
  }

  async setMode(modeId: string): Promise<void> {
    const names = this.services.catalog.list().map((entry) => entry.name);
    if (!names.includes(modeId)) throw requestErrors.invalidParams(`Unknown mode "${modeId}". Modes: ${names.join(', ')}.`);
    await this.host.setAgent(modeId);
    this.notify({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
  }

  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    try {
      if (configId === THOUGHT_OPTION && this.services.catalog.thinks?.(this.host.session.agentName)) {
        this.host.setThoughtLevel(String(value));
        return this.configOptions();
      }
      const role = (Object.keys(MODEL_OPTION) as CompositionRole[]).find((r) => MODEL_OPTION[r].id === configId);
      if (!role || !this.configOptions().some((option) => option.id === configId)) {
        const ids = this.configOptions().map((option) => option.id);
        throw requestErrors.invalidParams(`Unknown config option "${configId}" for ${this.host.session.agentName}. Options: ${ids.join(', ')}.`);
      }
      if (typeof value !== 'string') throw requestErrors.invalidParams(`The value of ${configId} must be a model name, not ${JSON.stringify(value)}.`);
      // The option is a closed list: a value it does not offer is a client's mistake.
      const offered = (await this.host.choices()).models.find((offer) => offer.role === role)?.options ?? [];
      if (!offered.includes(value)) throw requestErrors.invalidParams(`${configId}: "${value}" is not a model offered for the ${role === 'coagent' ? 'reviewer' : 'primary'}: ${offered.join(', ')}.`);
      await this.host.setModel(role, value);
      return this.configOptions();
    } catch (err) {
      if (err instanceof HostError) throw requestErrors.invalidParams(`${configId}: ${err.message}`);
      throw err;
    }
  }

  /** Replays the history to the client; resolves once every update has been delivered. */
  async replay(): Promise<void> {
    const sink = this.sink();
    for (const update of replayUpdates(this.host.session, this.toolCallIds)) sink.send(update);
    await sink.drained();
  }

  async prompt(content: ContentBlock[]): Promise<StopReason> {
    const sink = this.sink();
    const turn = new PromptTurn({
      host: this.host,
      sink,
      translatorFor: (composition) =>
        new UpdateTranslator({
          primary: composition.primary.name,
          cwd: this.cwd,
          sink,
          toolCallIds: this.toolCallIds,
          contextWindow: (model) => this.services.catalog.contextWindow(model),
          readText: async (path) => new TextDecoder().decode(await this.host.workspace.readFile(path)),
          notices: this.services.capabilities?.session?.notices !== undefined,
          sessionCost: () => this.host.meter.session.costUsd,
        }),
      earlyNotice: (event) => this.notice(event.level, event.message, sink, event.title),
      onCrash: (err) => {
        this.services.logger.log('error', 'prompt run crashed', { session: this.id, error: errorText(err) });
        sink.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Crow failed: ${errorText(err)}` } });
      },
    });
    this.turn = turn;
    try {
      return await turn.run(promptBlocks(content, true));
    } finally {
      void turn.finished.then(() => {
        if (this.turn === turn) this.turn = undefined;
      });
    }
  }

  cancel(): void {
    this.turn?.cancel();
    this.host.cancel();
  }

  /** Cancels a running prompt and stops serving the session; it stays stored. */
  close(): Promise<void> {
    return this.host.close();
  }

  /** Something the user should know: a notice update where the client shows them, else the log only. */
  private notice(level: NoticeLevel, message: string, sink: UpdateSink = this.updates, title?: string): void {
    this.services.logger.log(level === 'info' ? 'info' : 'warn', message, { session: this.id });
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
