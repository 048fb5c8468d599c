import type { AgentRegistry } from '../config/agent-registry';
import { type BaseAgentDefinition, takesTasks } from '../config/agent-definitions';
import { didYouMean } from '../vocabulary/did-you-mean';
import type { PromptRegistry } from '../config/prompts';
import { agentModel } from '../config/provider-config';
import type { Settings } from '../config/settings';
import type { AgentEvent } from '../engine/events';
import { chargeUsage } from '../engine/model-call';
import { ACPSession } from '../session/acp-session';
import type { SessionStore } from '../session/session-store';
import { PERMISSION_CATEGORIES, type PermissionCategory, type PermissionPolicy, type PermissionRule } from '../vocabulary/permission-types';
import { ToolRegistry } from '../tools/registry';
import type { SubagentInfo, SubagentLauncher, SubagentOutcome, SubagentReport, SubagentStatus, Tool, ToolContext } from '../tools/tool';
import type { Workspace } from '../tools/workspace';
import { ACPAgent } from './acp-agent';
import { assembleAgent } from './assemble';
import { TASK_COMPLETE } from '../vocabulary/tool-names';
import { type AgentPart, agentPolicy, agentTools, baseAgentFromDefinition } from './definition-agent';
import { concurrencySource, ProviderQueue, providerConcurrency } from './provider-queue';
import type { RunResult } from './run-result';
import { reflect } from './subagent-reflection';
import { hasSummarySection, reportSummary } from './report-summary';
import { approveSubagent } from './subagent-approval';

/** Levels of agents below the user: user → primary → subagent by default. */
export const DEFAULT_MAX_DEPTH = 2;

export interface SubagentRunnerOptions {
  registry: AgentRegistry;
  settings: Settings;
  workspace: Workspace;
  prompts: PromptRegistry;
  env: NodeJS.ProcessEnv;
  tools: readonly Tool[];
  /** Where child sessions are stored, linked to their parent; not stored without it. */
  store?: SessionStore;
  maxDepth?: number;
  /** Parallel subagents per provider name, over the defaults. */
  concurrency?: Record<string, number>;
}

/**
 * Tools any subagent may have whatever its parent has: they act on nothing
 * outside the session (ending the task, thinking, the shared todo list).
 */
export const ALWAYS_GRANTED_TOOLS: ReadonlySet<string> = new Set([TASK_COMPLETE, 'think', 'todo_read', 'todo_write']);

/** A subagent the registry offers: a base agent of role subagent, or a composition whose primary is one. */
interface Resolved {
  name: string;
  base: BaseAgentDefinition;
  /** The base agents it is made of and the part each plays, for the tools they would get. */
  parts: { definition: BaseAgentDefinition; part: AgentPart }[];
  /** The agent, its base agents picking their tools from `tools` only. */
  build(tools: readonly Tool[]): ACPAgent;
}

/**
 * Runs subagents for the task tool: each in a fresh child session (its task
 * and its own system prompt, none of the parent's history), stored and
 * linked to its parent, its spans nested below the task call, its
 * permissions never wider than the parent's (checked at spawn and at every
 * call), its tools never beyond the parent's (a definition that needs more
 * is refused), queued per provider, optionally reflecting and retrying.
 */
export class SubagentRunner implements SubagentLauncher {
  private readonly queue: ProviderQueue;
  private readonly maxDepth: number;

  constructor(private readonly options: SubagentRunnerOptions) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.queue = new ProviderQueue((provider) => this.concurrencyOf(provider));
  }

  available(): SubagentInfo[] {
    const { registry } = this.options;
    const bases = registry.baseAgents().filter(takesTasks);
    const compositions = registry.acpAgents().filter((agent) => registry.baseAgent(agent.primary)?.role === 'subagent');
    return [...bases, ...compositions].map(({ name, description }) => ({ name, description }));
  }

  /** How many runs of `agent` may go at once: its provider's concurrency (see providerConcurrency). */
  concurrencyFor(agent: string): number {
    const resolved = this.resolve(agent);
    return typeof resolved === 'string' ? 1 : this.concurrencyOf(this.providerOf(resolved.base));
  }

  concurrencySource(agent: string): { kind: string; setting?: string } {
    const resolved = this.resolve(agent);
    if (typeof resolved === 'string') return { kind: 'unknown' };
    if (resolved.base.external) return { kind: 'external' };
    const provider = this.providerOf(resolved.base);
    if (this.options.concurrency?.[provider] !== undefined) return { kind: concurrencySource(this.options.settings, provider).kind, setting: 'session' };
    return concurrencySource(this.options.settings, provider);
  }

  async run(request: { agent: string; task: string }, ctx: ToolContext): Promise<SubagentOutcome> {
    // Levels count from the agent the user talks to (1): user → primary (1) → subagent (2) → ...
    const depth = (ctx.depth ?? 0) + 1;
    if (depth + 1 > this.maxDepth) {
      return failure('failed', `depth limit reached: ${request.agent} would run at level ${depth + 1}, and at most ${this.maxDepth} levels of agents may nest here (user → primary → subagent). Do the work yourself.`);
    }
    const resolved = this.resolve(request.agent);
    if (typeof resolved === 'string') return failure('failed', resolved);
    const policy = agentPolicy(resolved.base, this.options.settings, this.options.workspace.sandboxed === true);
    const excess = ctx.permissions.exceededBy(policy);
    if (excess.length > 0) {
      const what = excess.map((e) => `${e.category}: ${e.asked} (its parent has ${e.category}: ${e.allowed})`).join(', ');
      return failure('denied', `${resolved.name} asks for more than ${ctx.agentName} may grant: ${what}. A subagent never exceeds its parent's permissions.`);
    }
    const granted = this.grantedTools(ctx);
    const missing = resolved.base.external ? [] : this.missingTools(resolved, granted);
    if (missing.length > 0) {
      return failure(
        'denied',
        `${resolved.name} needs ${missing.join(', ')}, which ${ctx.agentName} does not have. A subagent never has tools its parent lacks: pick a subagent that needs only ${ctx.agentName}'s tools, or do the work yourself.`,
      );
    }
    const { approval, task } = await approveSubagent(resolved.name, resolved.base, request.task, ctx);
    const edited = task !== request.task;
    if (approval !== 'allowed' && approval !== 'not needed') {
      return failure('denied', `${resolved.name} was not started: approval ${approval === 'timeout' ? 'timed out' : approval === 'unavailable' ? 'could not be asked for (nobody to ask)' : 'was denied'}.`, { approval });
    }
    let release: () => void;
    try {
      release = await this.queue.acquire(this.providerOf(resolved.base), ctx.signal);
    } catch {
      return failure('cancelled', `${resolved.name} was cancelled before it started.`);
    }
    try {
      const given = edited ? 'allowed with an edited task' : approval;
      const outcome = resolved.base.external
        ? await this.runExternal(resolved, task, ctx, policy, given)
        : await this.runChild(resolved, task, ctx, policy, depth, given, granted);
      return edited ? { ...outcome, result: `${outcome.result.trimEnd()}\n\n[The user edited the task before allowing ${resolved.name} to start. It ran with: ${JSON.stringify(task)}]\n` } : outcome;
    } finally {
      release();
    }
  }

  /**
   * Another ACP agent as the subagent: we are its client for one prompt, its
   * permission requests judged by the narrowed gate. Its transcript lives
   * with that agent, not in our store.
   */
  private async runExternal(resolved: Resolved, task: string, ctx: ToolContext, policy: PermissionPolicy, approval: string): Promise<SubagentOutcome> {
    const report = (event: SubagentReport): void => ctx.report?.(event);
    const target = resolved.base.external!;
    const where = 'url' in target ? target.url : target.command.join(' ');
    report({ type: 'subagent_start', agent: ctx.agentName, subagent: resolved.name, callId: ctx.callId, task, sessionId: `external: ${where}` });
    const permissions = ctx.permissions.narrow(policy).forcing(this.categoriesWithoutTools(ctx));
    // The ACP client (its SDK, schemas, WebSocket) loads only when an external agent runs: most runs never need it.
    const { runExternalSubagent } = require('./external-subagent') as typeof import('./external-subagent');
    const outcome = await runExternalSubagent(resolved.base, task, { ...ctx, permissions }, {
      cwd: this.options.workspace.root,
      env: this.options.env,
    });
    report({ type: 'subagent_end', agent: ctx.agentName, subagent: resolved.name, callId: ctx.callId, status: outcome.status, summary: outcome.summary });
    ctx.span?.set({ 'crow.subagent.external': where });
    return {
      status: outcome.status,
      summary: outcome.summary,
      result: `## Summary\n${outcome.summary}\n\n## Report\n${outcome.text.trim() || '(no report)'}\n`,
      extra: { approval, external: where },
    };
  }

  private async runChild(
    resolved: Resolved,
    task: string,
    ctx: ToolContext,
    policy: PermissionPolicy,
    depth: number,
    approval: string,
    tools: readonly Tool[],
  ): Promise<SubagentOutcome> {
    let agent: ACPAgent;
    try {
      agent = resolved.build(tools);
    } catch (err) {
      return failure('failed', `${resolved.name} could not be built: ${(err as Error).message}`);
    }
    const session = new ACPSession({
      cwd: this.options.workspace.root,
      agentName: resolved.name,
      permissions: ctx.permissions.narrow(policy),
      ...(ctx.undo ? { undo: ctx.undo } : {}),
    });
    session.title = task.split('\n', 1)[0]!.slice(0, 80);
    session.depth = depth;
    session.subagents = this;
    session.budget = ctx.budget;
    session.hooks = ctx.hooks;
    session.parent = { sessionId: ctx.sessionId, callId: ctx.callId, agent: ctx.agentName, ...(ctx.span ? { span: ctx.span } : {}) };
    const stored = this.options.store?.attach(session);
    const report = (event: SubagentReport): void => ctx.report?.(event);
    report({ type: 'subagent_start', agent: ctx.agentName, subagent: resolved.name, callId: ctx.callId, task, sessionId: session.id });
    try {
      const prompt = this.options.prompts.render('subagent-task', { task, parent: ctx.agentName }).trim();
      const attempt = (message: string) => this.attempt(agent, session, message, ctx);
      const reflecting = {
        task,
        prompts: this.options.prompts,
        provider: agent.primary.provider,
        signal: ctx.signal,
        span: ctx.span,
        report: (event: Extract<AgentEvent, { type: 'usage' }>) => {
          chargeUsage(ctx.budget, event);
          ctx.report?.(usageReport(ctx, resolved.name, event));
        },
      };
      const { result, text, reflection } = await reflect(resolved.base, reflecting, prompt, attempt);
      const status: SubagentStatus = STATUS[result.status];
      // A run that did not finish is summed up by why (a reviewer's last objection, a limit), not by its worker's last words.
      const finished = status === 'completed';
      const summary = finished ? (ownSummary(result.summary) ?? (reportSummary(text) || result.message)) : result.message;
      report({ type: 'subagent_end', agent: ctx.agentName, subagent: resolved.name, callId: ctx.callId, status, summary });
      const extra = { depth, approval, ...(reflection ? { reflection } : {}) };
      const approvedBy = agent.coagent && result.status === 'completed' ? agent.coagent.name : undefined;
      return {
        status,
        summary,
        sessionId: session.id,
        result: resultMarkdown(summary, text, result, session.id),
        extra,
        filesChanged: result.filesChanged,
        ...(approvedBy !== undefined ? { approvedBy } : {}),
      };
    } finally {
      stored?.close();
    }
  }

  /** One run of the child on `message`, its steps reported as progress. */
  private async attempt(agent: ACPAgent, session: ACPSession, message: string, ctx: ToolContext): Promise<{ result: RunResult; text: string }> {
    const stream = agent.run(session, message, { signal: ctx.signal });
    for await (const event of stream) {
      if (event.type === 'usage' || event.type === 'subagent_usage') {
        ctx.report?.(usageReport(ctx, session.agentName, event));
        continue;
      }
      const line = progressLine(event);
      if (line) ctx.report?.({ type: 'subagent_progress', agent: ctx.agentName, subagent: session.agentName, callId: ctx.callId, text: line });
    }
    const result = await stream.result;
    const primary = session.sessionFor('primary', agent.primary.name);
    return { result, text: primary.findLast('assistant_text')?.text ?? '' };
  }

  private resolve(name: string): Resolved | string {
    const { registry } = this.options;
    const base = registry.baseAgent(name);
    if (base && takesTasks(base)) {
      return { name, base, parts: [{ definition: base, part: { as: 'primary', reviewed: false } }], build: (tools) => this.single(base, tools) };
    }
    const composition = registry.acpAgent(name);
    const primary = composition ? registry.baseAgent(composition.primary) : undefined;
    if (composition && primary?.role === 'subagent') {
      const { flow } = composition;
      const coagent = composition.coagent !== undefined && flow.kind === 'coagent' ? registry.baseAgent(composition.coagent) : undefined;
      const parts: Resolved['parts'] = [
        { definition: primary, part: { as: 'primary', reviewed: flow.kind === 'coagent' } },
        ...(coagent && flow.kind === 'coagent' ? [{ definition: coagent, part: { as: 'coagent' as const, tools: flow.tools } }] : []),
      ];
      return { name, base: primary, parts, build: (tools) => assembleAgent(name, { ...this.options, config: this.options.settings, tools }) };
    }
    const names = this.available().map((agent) => agent.name);
    const guess = didYouMean(name, names);
    return `Unknown subagent "${name}".${guess ? ` Did you mean "${guess}"?` : ''} Subagents: ${names.join(', ') || 'none are defined'}.`;
  }

  /** The tools a child may pick from: those of its parent and the always-granted ones (all when the parent's are unknown). */
  private grantedTools(ctx: ToolContext): readonly Tool[] {
    const parent = ctx.agentTools;
    if (parent === undefined) return this.options.tools;
    return this.options.tools.filter((tool) => parent.includes(tool.name) || ALWAYS_GRANTED_TOOLS.has(tool.name));
  }

  /**
   * An external agent brings its own tools: what it may do is capped instead
   * by denying the categories none of the parent's tools has.
   */
  private categoriesWithoutTools(ctx: ToolContext): Partial<Record<PermissionCategory, PermissionRule>> {
    if (ctx.agentTools === undefined) return {};
    const held = new Set(this.grantedTools(ctx).filter((tool) => !ALWAYS_GRANTED_TOOLS.has(tool.name)).map((tool) => tool.permission));
    return Object.fromEntries(PERMISSION_CATEGORIES.filter((category) => !held.has(category)).map((category) => [category, 'deny']));
  }

  /** The tools `resolved`'s definitions would have that are not among `granted`, by name. */
  private missingTools(resolved: Resolved, granted: readonly Tool[]): string[] {
    const all = new ToolRegistry(this.options.tools);
    const allowed = new Set(granted.map((tool) => tool.name));
    const missing = new Set<string>();
    for (const { definition, part } of resolved.parts) {
      let wanted: Tool[];
      try {
        wanted = agentTools(definition, part, all);
      } catch {
        continue; // Reported when the agent is built.
      }
      for (const tool of wanted) if (!allowed.has(tool.name)) missing.add(tool.name);
    }
    return [...missing];
  }

  /** A lone subagent: its base agent in a one-turn composition. */
  private single(base: BaseAgentDefinition, tools: readonly Tool[]): ACPAgent {
    const { settings, workspace, prompts, env } = this.options;
    const primary = baseAgentFromDefinition(base, { as: 'primary', reviewed: false }, { settings, workspace, prompts, env, tools: new ToolRegistry(tools) });
    return new ACPAgent({ name: base.name, description: base.description, primary, flow: { kind: 'hitl' }, prompts });
  }

  /** The queue a subagent waits in: its provider's, or its own for an external agent. */
  private providerOf(base: BaseAgentDefinition): string {
    return base.external ? `acp:${base.name}` : agentModel(this.options.settings, base).provider;
  }

  private concurrencyOf(provider: string): number {
    return this.options.concurrency?.[provider] ?? providerConcurrency(this.options.settings, provider);
  }
}

const STATUS: Record<RunResult['status'], SubagentStatus> = {
  completed: 'completed',
  needs_input: 'completed',
  limit: 'failed',
  // The parent's next model call is checked against the same budget, and stops there.
  budget: 'failed',
  error: 'failed',
  cancelled: 'cancelled',
};

/** The summary task_complete was given: whole, unless it is a markdown report with a Summary section (then that section's first sentence). */
function ownSummary(summary: string | undefined): string | undefined {
  if (summary === undefined || summary.trim() === '') return undefined;
  return hasSummarySection(summary) ? reportSummary(summary) : summary;
}

function failure(status: SubagentStatus, summary: string, extra: Record<string, unknown> = {}): SubagentOutcome {
  return { status, summary, result: `## Summary\n${summary}\n`, extra };
}

function resultMarkdown(summary: string, text: string, result: RunResult, sessionId: string): string {
  const outcome = result.status === 'completed' || result.status === 'needs_input' ? '' : `\n\n## Outcome\n${result.message}`;
  return `## Summary\n${summary}\n\n## Report\n${text.trim() || '(no report)'}${outcome}\n\n(Full transcript: session ${sessionId})\n`;
}

/** The steps of a child worth a line in its parent's view. */
function progressLine(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'tool_call_start':
      return `${event.tool} ${event.summary}`.trim();
    case 'coagent_start':
      return `${event.agent} reviews (round ${event.round})`;
    case 'subagent_start':
      return `→ ${event.subagent}`;
    default:
      return undefined;
  }
}


/** A child's model call as the parent's task call reports it: the parent's prompt pays for it too. */
function usageReport(
  ctx: ToolContext,
  subagent: string,
  event: Extract<AgentEvent, { type: 'usage' | 'subagent_usage' }>,
): SubagentReport {
  const { usage, model, costUsd } = event;
  return { type: 'subagent_usage', agent: ctx.agentName, subagent, callId: ctx.callId, usage, model, ...(costUsd !== undefined ? { costUsd } : {}) };
}
