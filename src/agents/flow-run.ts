import { cancelMessage } from '../vocabulary/interruption';
import type { PromptRegistry } from '../config/prompts';
import type { BaseAgent } from '../engine/base-agent';
import type { AgentEvent, HandoffPurpose, RunStatus } from '../engine/events';
import type { TurnResult } from '../engine/turn';
import { charging, nextCall, toollessCall } from '../engine/model-call';
import { addUsage, costOf, emptyUsage, type Provider, type Usage, type UserBlock } from '../llm/types';
import type { ACPSession, SessionRole } from '../session/acp-session';
import type { InternalSession } from '../session/internal-session';
import type { PermissionGate } from '../tools/permissions';
import { formatTodos } from '../tools/builtin/todo';
import type { Span } from '../telemetry/span';
import type { RunResult } from './run-result';
import { clip } from '../vocabulary/text';

/** A flow's own model call refused by the prompt's budget: the run ends with status budget. */
export class BudgetReached extends Error {
  override name = 'BudgetReached';
}

/** A message for an agent: what the user typed, or text a flow wrote. */
export type AgentMessage = string | UserBlock[];

export interface FlowAgents {
  /** The composition's name, used on the events it emits itself. */
  name: string;
  primary: BaseAgent;
  coagent?: BaseAgent;
  prompts: PromptRegistry;
}

/**
 * The state of one run of a composition and the steps every flow is built
 * from: a turn of the primary or the coagent (events forwarded, usage and
 * files summed), a handoff between them, rendering a prompt, and ending.
 */
export class FlowRun {
  turns = 0;
  private toolCalls = 0;
  /** Summed from each call's usage and its provider's prices (0 where none are configured). */
  private costUsd = 0;
  private readonly usage = emptyUsage();
  /** What subagents started by this run's tool calls spent, their own subagents included: part of the prompt's totals. */
  private readonly subagentUsage = emptyUsage();
  private subagentCostUsd = 0;
  private readonly filesChanged = new Set<string>();
  /** A hook ended the run (continue: false): stop hooks do not get to send it on. */
  stoppedByHook = false;
  /** The text of the primary's last turn that had any: what stop hooks read as the last message. */
  lastText = '';

  /** The external span of this prompt: the root of its trace, carrying the run's totals. */
  readonly span: Span;

  constructor(
    readonly agents: FlowAgents,
    readonly session: ACPSession,
    /** The user's prompt as text: the task every handoff refers to. */
    readonly task: string,
    readonly signal: AbortSignal,
    readonly emit: (event: AgentEvent) => void,
    /** Judges the run's tool calls: the session's gate, or a narrower one for this run. */
    readonly permissions: PermissionGate = session.permissions,
  ) {
    const fields = {
      agent: agents.name,
      attributes: { 'crow.session.id': session.id, 'crow.acp_agent': agents.name, 'crow.prompt': clip(task, 500) },
    };
    // A subagent's run hangs below the task call that started it: one trace from the user's prompt down.
    const parentSpan = session.parent?.span;
    this.span = parentSpan
      ? parentSpan.child('subagent', `invoke_subagent ${agents.name}`, fields)
      : session.trace.startTrace('prompt', `prompt ${agents.name}`, fields);
  }

  get primarySession(): InternalSession {
    return this.session.sessionFor('primary', this.agents.primary.name);
  }

  get coagent(): BaseAgent {
    if (!this.agents.coagent) throw new Error(`${this.agents.name} has no coagent`);
    return this.agents.coagent;
  }

  /** Gives the primary a message and runs its turn. */
  primaryTurn(message: AgentMessage, options: { from?: string; withoutTools?: boolean } = {}): Promise<TurnResult> {
    return this.turn('primary', this.agents.primary, message, options);
  }

  /** Gives the coagent a message (a handoff from the primary) and runs its turn. */
  coagentTurn(message: AgentMessage): Promise<TurnResult> {
    return this.turn('coagent', this.coagent, message, { from: this.agents.primary.name });
  }

  /** Announces a message crossing between agents, as the receiver will read it. */
  handoff(from: string, to: string, purpose: HandoffPurpose, text: string): void {
    this.emit({ type: 'handoff', agent: from, to, purpose, text });
    // Seed 000's own attribute names: OpenTelemetry's GenAI conventions have none for a handoff.
    const span = this.span.child('handoff', `handoff ${from} → ${to}`, {
      agent: from,
      attributes: { 'handoff.from': from, 'handoff.to': to, 'handoff.prompt': clip(text, 2_000), 'crow.handoff.purpose': purpose },
    });
    span.end('ok');
  }

  render(template: string, context: Record<string, unknown> = {}): string {
    return this.agents.prompts.render(template, { task: this.task, todo_state: this.todoState(), ...context }).trim();
  }

  /** A template written in an agent's definition (an inline handoff), with what render gives every template. */
  renderInline(text: string, context: Record<string, unknown> = {}): string {
    return this.agents.prompts.renderText(text, { task: this.task, todo_state: this.todoState(), ...context }).trim();
  }

  todoState(): string {
    return formatTodos(this.session.todos.list());
  }

  /**
   * One tool-less model call made by the flow itself (a generator), traced
   * as an LLM span of the run and counted in its usage and cost. Resolves to
   * the reply text ('' when cancelled); a provider error becomes an
   * exception with its message.
   */
  async generate(label: string, provider: Provider, system: string, prompt: string): Promise<string> {
    const request = { system, messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: prompt }] }] };
    const over = this.session.budget?.exceeded(nextCall({ ...request, tools: [] }, provider));
    if (over !== undefined) throw new BudgetReached(over);
    const { response, text } = await toollessCall({ agent: label, provider, span: this.span, emit: charging(this.session.budget, (event) => this.emit(event)) }, request, this.signal);
    this.count(response.usage, provider);
    if (response.stopReason === 'error') throw new Error(`${label} failed: ${response.errorMessage ?? 'unknown error'}`);
    return text;
  }

  /**
   * How the run ends, with its totals so far. Nothing is told yet: the
   * composition completes the run (see `complete`) once stop hooks have had
   * their say, which may send the agents back to work first.
   */
  finish(status: RunStatus, message: string, summary?: string): RunResult {
    return {
      status,
      message,
      ...(summary !== undefined ? { summary } : {}),
      turns: this.turns,
      usage: this.usage,
      filesChanged: [...this.filesChanged],
    };
  }

  /** Ends the run as `ending` says: emits run_complete and closes the run's span, with the totals of all its work. */
  complete(ending: RunResult): RunResult {
    const { status, message } = ending;
    this.emit({ type: 'run_complete', agent: this.agents.name, status, message });
    // The span counts every token the prompt cost, its subagents' included; their share is kept apart too.
    const u = addUsage(addUsage(emptyUsage(), this.usage), this.subagentUsage);
    const s = this.subagentUsage;
    this.span.set({
      'crow.run.status': status,
      'crow.run.turns': this.turns,
      'crow.run.tool_calls': this.toolCalls,
      'crow.cost_usd': this.costUsd + this.subagentCostUsd,
      'crow.run.files_changed': [...this.filesChanged],
      'gen_ai.usage.input_tokens': u.input + u.cacheRead + u.cacheWrite,
      'gen_ai.usage.output_tokens': u.output,
      'gen_ai.usage.cache_read.input_tokens': u.cacheRead,
      'gen_ai.usage.cache_creation.input_tokens': u.cacheWrite,
      'crow.subagents.input_tokens': s.input + s.cacheRead + s.cacheWrite,
      'crow.subagents.output_tokens': s.output,
    });
    this.span.end(status === 'error' ? 'error' : status === 'cancelled' ? 'cancelled' : 'ok', status === 'error' ? message : undefined);
    return { ...ending, turns: this.turns, usage: this.usage, filesChanged: [...this.filesChanged] };
  }

  private count(usage: Usage, provider: Provider): void {
    addUsage(this.usage, usage);
    if (provider.pricing) this.costUsd += costOf(usage, provider.pricing);
  }

  /** The run's end for a turn that did not finish normally, if it ended that way. */
  stopped(turn: TurnResult, role: SessionRole): RunResult | undefined {
    const agent = role === 'primary' ? this.agents.primary.name : this.coagent.name;
    if (turn.stopReason === 'cancelled') {
      this.session.interruption = { agent, role, at: Date.now() };
      return this.finish('cancelled', cancelMessage(this.signal, `Cancelled while ${agent} was working. All work so far is kept; send a new prompt to continue.`));
    }
    if (turn.stopReason === 'error') return this.finish('error', `${agent} stopped on an error: ${turn.message}`);
    // Handing a refused request on to another agent would only repeat it.
    if (turn.stopReason === 'refused') return this.finish('needs_input', `${agent}: ${turn.message}`);
    if (turn.stopReason === 'budget') return this.finish('budget', turn.message);
    if (turn.stopReason === 'hook_stop') {
      this.stoppedByHook = true;
      return this.finish('needs_input', turn.message);
    }
    return undefined;
  }

  private async turn(
    role: SessionRole,
    agent: BaseAgent,
    message: AgentMessage,
    options: { from?: string; withoutTools?: boolean },
  ): Promise<TurnResult> {
    const session = this.session.sessionFor(role, agent.name);
    session.addUserMessage(message, options.from);
    const reviewed = role === 'primary' && this.agents.coagent !== undefined;
    const stream = agent.executeTurn(session, {
      signal: this.signal,
      permissions: this.permissions,
      todos: this.session.todos,
      ...(this.session.undo ? { undo: this.session.undo } : {}),
      ...(options.withoutTools ? { withoutTools: true } : {}),
      span: this.span,
      role,
      depth: this.session.depth,
      ...(this.session.subagents ? { subagents: this.session.subagents } : {}),
      ...(this.session.budget ? { budget: this.session.budget } : {}),
      ...(this.session.steering ? { steering: this.session.steering } : {}),
      calls: this.session.calls,
      ...(this.session.checkpoints ? { checkpoints: this.session.checkpoints } : {}),
      ...(this.session.hooks ? { hooks: this.session.hooks } : {}),
      outputs: this.session.outputs,
    });
    const result = await stream.forEach((event) => {
      // Under a reviewer the primary's task_complete only hands the work over; it ends nothing.
      if (reviewed && event.type === 'task_complete') return;
      if (event.type === 'subagent_usage') {
        addUsage(this.subagentUsage, event.usage);
        this.subagentCostUsd += event.costUsd ?? 0;
      }
      this.emit(event);
    });
    this.turns += 1;
    if (role === 'primary' && result.text.trim() !== '') this.lastText = result.text;
    this.toolCalls += result.toolCalls.length;
    this.count(result.usage, agent.provider);
    for (const file of result.filesChanged) this.filesChanged.add(file);
    return result;
  }
}

