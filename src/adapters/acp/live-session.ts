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
import type { ACPAgent } from '../../agents/acp-agent';
import type { ACPSession, AgentRole, ThoughtLevel } from '../../session/acp-session';
import type { McpProblem } from '../../mcp/mcp-connection';
import { McpServers } from '../../mcp/mcp-servers';
import type { McpServerConfig } from '../../mcp/server-config';
import { NodeWorkspace } from '../../tools/node-workspace';
import { noticeOnce } from '../../tools/sandbox-setup';
import type { AskFn } from '../../tools/permissions';
import type { Tool } from '../../tools/tool';
import type { AgentCatalog, CommandCatalog, ModelChoice } from './agent-catalog';
import type { AcpLogger } from './acp-log';
import { clientAsk } from './acp-permissions';
import { ClientWorkspace } from './client-workspace';
import { replayUpdates } from './history-replay';
import { promptBlocks, promptTitle } from './prompt-content';
import { PromptTurn } from './prompt-turn';
import { errorText, requestErrors } from './request-errors';
import { UpdateSink } from './update-sink';
import { ToolCallIds, UpdateTranslator } from './update-translator';

/** How long a new prompt waits for a cancelled one to wind down before refusing. */
const STOP_WAIT_MS = 5_000;

/** Config option ids of the model select of each role. */
const THOUGHT_OPTION = 'thought_level';
const THOUGHT_LEVELS: readonly ThoughtLevel[] = ['off', 'low', 'medium', 'high'];
/** Thinking budget in tokens per level (Anthropic extended thinking). */
const THINKING_BUDGETS: Record<ThoughtLevel, number> = { off: 0, low: 2_048, medium: 8_192, high: 24_576 };

const MODEL_OPTION: Record<AgentRole, { id: string; name: string }> = {
  primary: { id: 'model', name: 'Model' },
  coagent: { id: 'coagent_model', name: 'Reviewer model' },
};

/** What a live session uses of its connection and workspace configuration. */
export interface SessionServices {
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  catalog: AgentCatalog;
  commands: CommandCatalog;
  logger: AcpLogger;
  /** Keeps the session stored; `save` after every change the store does not see by itself. */
  keeper: { save(): void; close(): void };
  /** The session's MCP servers (configured, and given by the client); they start when its first prompt builds an agent. */
  mcpServers: readonly McpServerConfig[];
}

/**
 * A session open on this connection: its workspace (backed by the client
 * where it offers fs and terminals), its composition (rebuilt when the mode
 * or a model changes), and at most one running prompt.
 */
export class LiveSession {
  readonly ask: AskFn;
  private readonly toolCallIds = new ToolCallIds();
  private readonly workspace: ClientWorkspace;
  /** Updates outside prompts (modes, options, commands, titles), in order. */
  private readonly updates: UpdateSink;
  private turn: PromptTurn | undefined;
  /** Set while a prompt prepares its turn (starts the MCP servers); aborted by a cancel. */
  private preparing: AbortController | undefined;
  private built: { key: string; agent: ACPAgent } | undefined;
  private readonly mcp: McpServers;

  constructor(
    private readonly session: ACPSession,
    private readonly services: SessionServices,
  ) {
    const { client, capabilities } = services;
    this.updates = this.sink();
    const sandbox = services.catalog.sandbox?.();
    if (sandbox && noticeOnce(sandbox)) services.logger.log('warn', sandbox.notice!);
    this.workspace = new ClientWorkspace(new NodeWorkspace(session.cwd, { sandbox: sandbox?.options }), {
      sessionId: session.id,
      capabilities,
      client,
      embedTerminal: (terminalId) => this.turn?.embedTerminal(terminalId) ?? Promise.resolve(),
    });
    this.mcp = new McpServers(services.mcpServers, { cwd: session.cwd, report: (problem) => this.reportMcp(problem) });
    this.ask = clientAsk({
      sessionId: session.id,
      request: (params: RequestPermissionRequest, signal) =>
        client.request('session/request_permission', params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
      toolCall: async (request) => (await this.turn?.toolCall(request)) ?? { toolCallId: request.callId, title: request.title },
    });
  }

  get id(): string {
    return this.session.id;
  }

  modes(): SessionModeState {
    return {
      currentModeId: this.session.agentName,
      availableModes: this.services.catalog.list().map(({ name, description }) => ({ id: name, name, description })),
    };
  }

  configOptions(): SessionConfigOption[] {
    const choice = this.modelChoice();
    const models: SessionConfigOption[] = this.services.catalog.models(this.session.agentName).map(({ role, current, options }) => ({
      type: 'select',
      ...MODEL_OPTION[role],
      ...(role === 'primary' ? { category: 'model' } : {}),
      currentValue: choice[role] ?? current,
      options: options.map((model) => ({ value: model, name: model })),
    }));
    if (!this.services.catalog.thinks?.(this.session.agentName)) return models;
    const thought: SessionConfigOption = {
      type: 'select',
      id: THOUGHT_OPTION,
      name: 'Thinking',
      category: 'thought_level',
      currentValue: this.session.thoughtLevel,
      options: THOUGHT_LEVELS.map((level) => ({ value: level, name: level })),
    };
    return [...models, thought];
  }

  /** Announces what the client can offer the user besides prompts: the slash commands. */
  announceCommands(): void {
    const availableCommands = this.services.commands
      .list()
      .map(({ name, description }) => ({ name, description, input: { hint: 'optional arguments' } }));
    this.notify({ sessionUpdate: 'available_commands_update', availableCommands });
  }

  setMode(modeId: string): void {
    const names = this.services.catalog.list().map((entry) => entry.name);
    if (!names.includes(modeId)) throw requestErrors.invalidParams(`Unknown mode "${modeId}". Modes: ${names.join(', ')}.`);
    this.session.agentName = modeId;
    this.services.keeper.save();
    this.notify({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
  }

  setModel(configId: string, value: unknown): SessionConfigOption[] {
    if (configId === THOUGHT_OPTION && this.services.catalog.thinks?.(this.session.agentName)) return this.setThoughtLevel(value);
    const role = (Object.keys(MODEL_OPTION) as AgentRole[]).find((r) => MODEL_OPTION[r].id === configId);
    const offered = role && this.services.catalog.models(this.session.agentName).find((models) => models.role === role);
    if (!role || !offered) {
      const ids = this.configOptions().map((option) => option.id);
      throw requestErrors.invalidParams(`Unknown config option "${configId}" for ${this.session.agentName}. Options: ${ids.join(', ')}.`);
    }
    if (typeof value !== 'string' || !offered.options.includes(value)) {
      throw requestErrors.invalidParams(`"${String(value)}" is not a model offered for ${configId}: ${offered.options.join(', ')}.`);
    }
    this.session.models = { ...this.session.models, [role]: value };
    this.services.keeper.save();
    return this.configOptions();
  }

  private setThoughtLevel(value: unknown): SessionConfigOption[] {
    if (!THOUGHT_LEVELS.includes(value as ThoughtLevel)) {
      throw requestErrors.invalidParams(`"${String(value)}" is not a thinking level: ${THOUGHT_LEVELS.join(', ')}.`);
    }
    this.session.thoughtLevel = value as ThoughtLevel;
    this.services.keeper.save();
    return this.configOptions();
  }

  /** Replays the history to the client; resolves once every update has been delivered. */
  async replay(): Promise<void> {
    const sink = this.sink();
    for (const update of replayUpdates(this.session, this.toolCallIds)) sink.send(update);
    await sink.drained();
  }

  async prompt(content: ContentBlock[]): Promise<StopReason> {
    await this.claim();
    const sessionTools = await this.beforeTurn(this.mcp.tools());
    if (sessionTools === 'cancelled') return 'cancelled';
    this.session.subagents ??= this.services.catalog.subagents?.(this.workspace, sessionTools);
    const expanded = this.expandCommand(content);
    const composition = this.composition(sessionTools);
    const sink = this.sink();
    const translator = new UpdateTranslator({
      primary: composition.primary.name,
      cwd: this.session.cwd,
      sink,
      toolCallIds: this.toolCallIds,
      contextWindow: (model) => this.services.catalog.contextWindow(model),
      readText: async (path) => new TextDecoder().decode(await this.workspace.readFile(path)),
    });
    const turn = new PromptTurn({
      session: this.session,
      composition,
      translator,
      sink,
      onCrash: (err) => {
        this.services.logger.log('error', 'prompt run crashed', { session: this.id, error: errorText(err) });
        sink.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Crow failed: ${errorText(err)}` } });
      },
    });
    this.turn = turn;
    this.nameAfter(content);
    try {
      return await turn.run(promptBlocks(expanded, composition.primary.provider.supportsImages));
    } finally {
      this.services.keeper.save();
      void turn.finished.then(() => {
        if (this.turn === turn) this.turn = undefined;
      });
    }
  }

  cancel(): void {
    this.preparing?.abort();
    this.turn?.cancel();
  }

  close(): void {
    this.cancel();
    this.services.keeper.close();
    void this.mcp.close();
  }

  /** Waits for work a prompt needs before its turn can start; a cancel meanwhile answers `cancelled`. */
  private async beforeTurn<T>(work: Promise<T>): Promise<T | 'cancelled'> {
    const preparing = new AbortController();
    this.preparing = preparing;
    const cancelled = new Promise<'cancelled'>((resolve) => preparing.signal.addEventListener('abort', () => resolve('cancelled'), { once: true }));
    try {
      return await Promise.race([work, cancelled]);
    } finally {
      this.preparing = undefined;
    }
  }

  /** A server's problem goes to the log, and to the user where the client shows notices. */
  private reportMcp(problem: McpProblem): void {
    this.services.logger.log('warn', problem.message, { session: this.id, server: problem.server });
    if (!this.services.capabilities?.session?.notices) return;
    this.notify({ sessionUpdate: 'notice', severity: 'warning', title: `MCP server "${problem.server}" has a problem`, description: problem.message });
  }

  /** Makes way for a new prompt: refuses while one runs (or prepares), waits for a cancelled one to wind down. */
  private async claim(): Promise<void> {
    if (this.preparing) throw requestErrors.invalidRequest(`A prompt is already starting in session ${this.id}: wait for it, or cancel it first.`);
    const previous = this.turn;
    if (!previous) return;
    if (!previous.cancelled) {
      throw requestErrors.invalidRequest(`A prompt is already running in session ${this.id}: wait for it, or cancel it first.`);
    }
    const stopped = await Promise.race([previous.finished.then(() => true), delay(STOP_WAIT_MS).then(() => false)]);
    if (!stopped) throw requestErrors.invalidRequest(`The cancelled prompt in session ${this.id} is still stopping; try again in a moment.`);
    if (this.turn !== undefined && this.turn !== previous) {
      throw requestErrors.invalidRequest(`A prompt is already running in session ${this.id}: wait for it, or cancel it first.`);
    }
  }

  /** A prompt starting with a known `/command` becomes the command's prompt, run by the agent it names. */
  private expandCommand(content: ContentBlock[]): ContentBlock[] {
    const [first, ...rest] = content;
    const name = first?.type === 'text' ? /^\s*\/(\S+)/.exec(first.text)?.[1] : undefined;
    if (first?.type !== 'text' || name === undefined || !this.services.commands.get(name)) return content;
    let expanded: { prompt: string; agent?: string };
    try {
      expanded = this.services.commands.expand(first.text, { workspaceRoot: this.session.cwd, agentName: this.session.agentName });
    } catch (err) {
      throw requestErrors.invalidParams(`/${name}: ${errorText(err)}`);
    }
    if (expanded.agent !== undefined && expanded.agent !== this.session.agentName) {
      this.setMode(expanded.agent);
      this.notify({ sessionUpdate: 'current_mode_update', currentModeId: expanded.agent });
    }
    return [{ type: 'text', text: expanded.prompt }, ...rest];
  }

  /** The models chosen for the current agent's roles, where the agent offers them. */
  private modelChoice(): ModelChoice {
    const choice: ModelChoice = {};
    for (const { role, options } of this.services.catalog.models(this.session.agentName)) {
      const chosen = this.session.models[role];
      if (chosen !== undefined && options.includes(chosen)) choice[role] = chosen;
    }
    return choice;
  }

  private composition(sessionTools: readonly Tool[]): ACPAgent {
    const agent = this.session.agentName;
    const choice = this.modelChoice();
    const thinking = this.services.catalog.thinks?.(agent) ? THINKING_BUDGETS[this.session.thoughtLevel] : undefined;
    const key = JSON.stringify([agent, choice, thinking]);
    if (this.built?.key === key) return this.built.agent;
    try {
      const options = { sessionTools, ...(thinking === undefined ? {} : { thinkingBudget: thinking }) };
      this.built = { key, agent: this.services.catalog.build(agent, this.workspace, choice, options) };
    } catch (err) {
      const missing = this.services.catalog.missingKeys();
      if (missing.length > 0) throw requestErrors.authRequired(`${errorText(err)} (missing: ${missing.join(', ')})`);
      throw requestErrors.internal(`Cannot start ${agent}: ${errorText(err)}`);
    }
    return this.built.agent;
  }

  private nameAfter(content: ContentBlock[]): void {
    if (this.session.title !== '') return;
    const title = promptTitle(content);
    if (title === undefined) return;
    this.session.title = title;
    this.notify({ sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() });
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
