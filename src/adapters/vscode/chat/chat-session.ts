/**
 * One conversation of the VS Code front door: an ACP session kept in the
 * store, its MCP servers, undo points, and the composition each prompt runs.
 * Settings, keys and agent definitions are read again at every prompt, so a
 * changed setting or a key set a moment ago applies to the next prompt.
 * Plain Node: the chat view and the `@crow` participant both drive it, and
 * the Node tests drive it against the fake LLM server.
 */
import { randomUUID } from 'node:crypto';
import type { ACPAgent } from '../../../agents/acp-agent';
import { assembleAgent, defaultAgentName, pickableAgents } from '../../../agents/assemble';
import { roleModels, type CompositionRole, type RoleModels } from '../../../agents/role-models';
import { SubagentRunner } from '../../../agents/subagent-runner';
import { AgentRegistry } from '../../../config/agent-registry';
import { formatProblem } from '../../../config/config-problems';
import { policyFromConfig } from '../../../config/permission-config';
import { PromptRegistry } from '../../../config/prompts';
import type { Settings } from '../../../config/provider-config';
import { SlashCommands } from '../../../config/slash-commands';
import { pricingFor } from '../../../llm/index';
import { McpServers } from '../../../mcp/mcp-servers';
import { serversFromSettings } from '../../../mcp/server-config';
import { ACPSession } from '../../../session/acp-session';
import { GitSnapshotManager } from '../../../session/git-snapshots';
import type { SessionStore } from '../../../session/session-store';
import { recordUndoPoint } from '../../../session/undo-point';
import { Redactor } from '../../../telemetry/redact';
import { TraceRecorder } from '../../../telemetry/trace-recorder';
import { errorMessage } from '../../../tools/define-tool';
import { AutoApproveCaps, PermissionGate, type AskFn } from '../../../tools/permissions';
import { builtinTools } from '../../../tools/registry';
import { sandboxSetup } from '../../../tools/sandbox-setup';
import type { Tool } from '../../../tools/tool';
import type { Workspace } from '../../../tools/workspace';
import type { Meter, PromptStatus, TranscriptEvent } from '../../../../webview/chat/protocol';
import { roleChoices, settingsFor, type CrowConfiguration } from '../configuration';
import { liveSessions } from './live-sessions';
import { notice, planEntries, TranscriptTranslator } from './transcript';

/** What a chat session needs from its host (the extension, or a test). */
export interface ChatHost {
  /** The workspace folder sessions work in (absolute). */
  root: string;
  /** Where sessions, traces and undo points are kept. */
  dataHome: string;
  store: SessionStore;
  /** The environment with API keys (SecretStorage over process.env); read at every prompt. */
  env(): Promise<NodeJS.ProcessEnv>;
  /** The `crow.*` settings; read at every prompt. */
  configuration(): CrowConfiguration;
  /** The workspace the tools act on (VS Code's in the extension), its commands contained as `settings` say. */
  workspace(settings?: Settings): Workspace;
}

/** How long closing waits for a cancelled prompt to wind down. */
const CLOSE_WAIT_MS = 2_000;

/** How long setup may take before the view is told what is happening. */
const SLOW_NOTICE_MS = 700;

export interface PromptObserver {
  onEvent(event: TranscriptEvent): void;
  /** The prompt's tokens and cost so far, after every LLM call. */
  onMeter(meter: Meter): void;
}

export interface PromptOutcome {
  status: PromptStatus;
  meter: Meter;
}

/** A problem that stops a prompt before it starts (settings, keys, definitions), in words a person can act on. */
export class PromptSetupError extends Error {
  override name = 'PromptSetupError';
}

export class ChatSession {
  /** Set once the session is stored: at its first prompt, or at once for a resumed one. */
  private handle: { save(): void; close(): void } | undefined;
  private mcp: { key: string; servers: McpServers } | undefined;
  private exporter: Promise<{ shutdown(): Promise<void> } | undefined> | undefined;
  private running: AbortController | undefined;
  /** Settles when the running prompt has wound down (after a cancel, a moment later). */
  private finished: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly host: ChatHost,
    readonly session: ACPSession,
    /** The caps of the session's gate; their limits follow the settings at every prompt. */
    private readonly caps: AutoApproveCaps,
    /** The session's undo snapshots: taken before each prompt and before every state-changing tool. */
    private readonly snapshots: GitSnapshotManager,
  ) {}

  /** A new session on the agent the settings name (crow.defaultAgent, default_agent, else build). */
  static async start(host: ChatHost, ask: AskFn, agentName?: string): Promise<ChatSession> {
    const { settings, env } = await readSettings(host);
    const caps = new AutoApproveCaps({});
    const permissions = gateFor(settings, ask, caps);
    const agent = agentName ?? defaultAgentName(settings);
    const snapshots = snapshotsFor(host, env);
    const session = new ACPSession({ id: randomUUID(), cwd: host.root, agentName: agent, permissions, snapshots, trace: redactingTrace(env) });
    return new ChatSession(host, session, caps, snapshots);
  }

  /** A stored session, to continue it. Throws when there is no such session. */
  static async resume(host: ChatHost, id: string, ask: AskFn): Promise<ChatSession> {
    const { settings, env } = await readSettings(host);
    const caps = new AutoApproveCaps({});
    const snapshots = snapshotsFor(host, env);
    const session = host.store.load(id, { permissions: gateFor(settings, ask, caps), snapshots, trace: redactingTrace(env) });
    const chat = new ChatSession(host, session, caps, snapshots);
    chat.handle = host.store.attach(chat.session);
    return chat;
  }

  get id(): string {
    return this.session.id;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * What a person can pick now, from one read of the settings and
   * definitions: the agents, and the models per role of the session's agent
   * with the session's own choices applied.
   */
  async choices(): Promise<{ agents: { name: string; description: string }[]; models: RoleModels[] }> {
    const { settings, registry, configuration } = await this.definitions();
    const chosen = roleChoices(configuration);
    const models = roleModels(this.session.agentName, registry, settings, chosen.providers).map((offer) => {
      const model = this.session.models[offer.role] ?? chosen.models[offer.role];
      return model !== undefined ? { ...offer, current: model, options: [...new Set([model, ...offer.options])] } : offer;
    });
    return { agents: pickableAgents(registry), models };
  }

  async setAgent(name: string): Promise<void> {
    const agents = pickableAgents((await this.definitions()).registry);
    if (!agents.some((agent) => agent.name === name)) {
      throw new PromptSetupError(`Unknown agent "${name}". Agents: ${agents.map((agent) => agent.name).join(', ')}.`);
    }
    this.session.agentName = name;
    this.handle?.save();
  }

  setModel(role: CompositionRole, model: string): void {
    this.session.models = { ...this.session.models, [role]: model };
    this.handle?.save();
  }

  /**
   * Runs one prompt to its end. Problems before the run (settings, a missing
   * key, a bad slash command) throw PromptSetupError; everything after is
   * told through `observer` and the outcome.
   */
  async prompt(text: string, observer: PromptObserver, signal?: AbortSignal): Promise<PromptOutcome> {
    if (this.running) throw new PromptSetupError('A prompt is already running in this session: wait for it, or cancel it first.');
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.running = controller;
    // A session is stored from its first prompt on: opening the view leaves no empty sessions behind.
    this.handle ??= this.host.store.attach(this.session);
    liveSessions.started(this.session.id, this.session.trace);
    const outcome = (async () => {
      const run = await this.prepare(text, observer, controller.signal);
      return this.execute(run, observer, controller.signal);
    })();
    this.finished = outcome.catch(() => undefined);
    try {
      return await outcome;
    } finally {
      signal?.removeEventListener('abort', stop);
      liveSessions.ended(this.session.id);
      this.running = undefined;
      this.handle.save();
    }
  }

  cancel(): void {
    this.running?.abort();
  }

  /**
   * Cancels a running prompt and waits (briefly) for it to wind down, so its
   * last entries and spans are stored; then stops storing the session and
   * closes its MCP servers and exporter.
   */
  async close(): Promise<void> {
    this.cancel();
    await Promise.race([this.finished, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    this.handle?.close();
    await this.mcp?.servers.close();
    await (await this.exporter)?.shutdown();
  }

  private async prepare(text: string, observer: PromptObserver, signal: AbortSignal): Promise<{ composition: ACPAgent; prompt: string; settings: Settings }> {
    const { settings, registry, configuration, env } = await this.definitions((problem) => observer.onEvent(notice('warning', problem)));
    const prompt = this.expandCommand(text, env);
    const tools = [...builtinTools(settings.webSearch ? { webSearch: settings.webSearch } : {}), ...(await this.mcpTools(settings, env, observer))];
    const prompts = PromptRegistry.forWorkspace(this.host.root, env);
    const workspace = this.host.workspace(settings);
    const { models, providers } = roleChoices(configuration);
    let composition: ACPAgent;
    try {
      composition = assembleAgent(this.session.agentName, {
        registry,
        config: settings,
        workspace,
        prompts,
        env,
        tools,
        models: { ...models, ...this.session.models },
        providers,
      });
    } catch (err) {
      throw new PromptSetupError(`Cannot start ${this.session.agentName}: ${errorMessage(err)}`);
    }
    this.session.subagents = new SubagentRunner({ registry, settings, workspace, prompts, env, tools, store: this.host.store });
    this.caps.limits = configuration.autoApprove;
    this.caps.reset();
    this.exporter ??= this.startExport(settings, env, observer);
    if (!this.session.title) this.session.title = titleOf(text);
    await recordUndoPoint({
      root: this.host.root,
      dataHome: this.host.dataHome,
      env,
      sessionId: this.session.id,
      prompt: text,
      signal,
      snapshots: this.snapshots,
      onSlow: (message) => observer.onEvent(notice('info', message)),
      onUnavailable: (message) => observer.onEvent(notice('warning', `Undo: ${message}`)),
    });
    return { composition, prompt, settings };
  }

  private async execute(run: { composition: ACPAgent; prompt: string; settings: Settings }, observer: PromptObserver, signal: AbortSignal): Promise<PromptOutcome> {
    const { composition, settings } = run;
    const translator = new TranscriptTranslator({
      primary: composition.primary.name,
      ...(composition.coagent ? { coagent: composition.coagent.name } : {}),
      pricing: (model) => pricingFor(modelInfo(settings, model)),
    });
    const stopPlan = this.session.todos.onChange((items) => observer.onEvent({ type: 'plan', entries: planEntries(items) }));
    let status: PromptStatus = 'error';
    let ended = false;
    try {
      const stream = composition.run(this.session, [{ type: 'text', text: run.prompt }], { signal });
      for await (const event of stream) {
        for (const shown of translator.handle(event)) {
          if (shown.type === 'prompt_end') ended = true;
          observer.onEvent(shown);
        }
        if (event.type === 'usage') observer.onMeter(translator.meter);
      }
      status = (await stream.result).status;
    } catch (err) {
      observer.onEvent(notice('error', `Crow failed: ${errorMessage(err)}. The session is kept; try again, or open the trace to see what happened.`));
    } finally {
      stopPlan();
    }
    if (!ended) observer.onEvent({ type: 'prompt_end', status, message: status === 'cancelled' ? 'Cancelled.' : '' });
    return { status, meter: translator.meter };
  }

  /** Settings, definitions and environment as they are now; definition problems go to `warn`. */
  private async definitions(warn: (problem: string) => void = () => undefined) {
    const { settings, configuration, env } = await readSettings(this.host);
    const { registry, errors } = AgentRegistry.load(this.host.root, env);
    for (const error of errors) warn(`${formatProblem(error)} (this definition is skipped)`);
    return { settings, registry, configuration, env };
  }

  /** A prompt starting with a known `/command` becomes the command's prompt, run by the agent it names. */
  private expandCommand(text: string, env: NodeJS.ProcessEnv): string {
    const name = /^\s*\/(\S+)/.exec(text)?.[1];
    if (name === undefined) return text;
    const { commands } = SlashCommands.load(this.host.root, env);
    if (!commands.get(name)) return text;
    try {
      const expanded = commands.expand(text.trim(), { workspaceRoot: this.host.root, agentName: this.session.agentName });
      if (expanded.agent !== undefined) this.session.agentName = expanded.agent;
      return expanded.prompt;
    } catch (err) {
      throw new PromptSetupError(`/${name}: ${errorMessage(err)}`);
    }
  }

  /** The tools of the configured MCP servers; servers restart only when their configuration changed. */
  private async mcpTools(settings: Settings, env: NodeJS.ProcessEnv, observer: PromptObserver): Promise<Tool[]> {
    const configs = serversFromSettings(settings.mcpServers, env);
    const key = JSON.stringify(configs);
    if (this.mcp?.key !== key) {
      await this.mcp?.servers.close();
      const servers = new McpServers(configs, {
        cwd: this.host.root,
        report: (problem) => observer.onEvent(notice('warning', `MCP server "${problem.server}": ${problem.message}`)),
      });
      this.mcp = { key, servers };
    }
    // Servers start on the first prompt; a slow one should not look like a hang.
    const names = configs.map((config) => config.name).join(', ');
    const slow = setTimeout(() => observer.onEvent(notice('info', `Starting MCP servers: ${names}…`)), SLOW_NOTICE_MS);
    try {
      return await this.mcp.servers.tools();
    } finally {
      clearTimeout(slow);
    }
  }

  /** Exports the session's spans over OTLP/HTTP when an endpoint is set; the exporter loads only then. */
  private async startExport(settings: Settings, env: NodeJS.ProcessEnv, observer: PromptObserver): Promise<{ shutdown(): Promise<void> } | undefined> {
    const { otlpEndpointFrom } = require('../../../telemetry/otlp-endpoint') as typeof import('../../../telemetry/otlp-endpoint');
    const endpoint = otlpEndpointFrom(settings.otlpEndpoint, env);
    if (!endpoint) return undefined;
    const { otlpSink } = require('../../../telemetry/otlp-export') as typeof import('../../../telemetry/otlp-export');
    const exported = otlpSink({ endpoint, onError: (error: Error) => observer.onEvent(notice('warning', `Telemetry export: ${error.message}`)) });
    this.session.trace.addSink(exported.sink);
    return exported;
  }
}

async function readSettings(host: ChatHost): Promise<{ settings: Settings; configuration: CrowConfiguration; env: NodeJS.ProcessEnv }> {
  const env = await host.env();
  const configuration = host.configuration();
  try {
    return { settings: settingsFor(host.root, configuration, env), configuration, env };
  } catch (err) {
    throw new PromptSetupError(errorMessage(err));
  }
}

function snapshotsFor(host: ChatHost, env: NodeJS.ProcessEnv): GitSnapshotManager {
  return new GitSnapshotManager({ workspace: host.root, dataHome: host.dataHome, env });
}

/** Spans pass a redactor that knows the keys from SecretStorage too (they are not in process.env). */
function redactingTrace(env: NodeJS.ProcessEnv): TraceRecorder {
  return new TraceRecorder([], new Redactor(env));
}

function gateFor(settings: Settings, ask: AskFn, caps: AutoApproveCaps): PermissionGate {
  return new PermissionGate(
    policyFromConfig(settings.permissions, sandboxSetup(settings).active),
    ask,
    (category) => `set "crow.permissions.${category}" to "allow" in the settings`,
    {},
    new Map(),
    caps,
  );
}

function modelInfo(settings: Settings, model: string) {
  for (const entry of Object.values(settings.providers)) if (entry.models[model]) return entry.models[model];
  return undefined;
}

function titleOf(prompt: string): string {
  const line = prompt.trim().split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
