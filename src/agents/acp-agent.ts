import { cancelMessage } from '../vocabulary/interruption';
import type { PromptRegistry } from '../config/prompts';
import type { BaseAgent } from '../engine/base-agent';
import type { AgentEvent } from '../engine/events';
import { EventStream } from '../engine/event-stream';
import type { UserBlock } from '../llm/types';
import type { ACPSession } from '../session/acp-session';
import type { Hooks } from '../tools/hooks';
import type { PermissionGate } from '../tools/permissions';
import { TASK_COMPLETE } from '../vocabulary/tool-names';
import { runCoagent } from './coagent-flow';
import { coagentCanTerminate, type ControlFlow, describeFlow, type HandoffPrompt } from '../config/control-flow';
import { BudgetReached, FlowRun, type AgentMessage } from './flow-run';
import { runGenerated } from './generated-flow';
import { runHitl } from './hitl-flow';
import { runLoop } from './loop-flow';
import type { RunResult } from './run-result';
import { runStatic } from './static-flow';
import { errorText } from '../vocabulary/text';

export interface ACPAgentOptions {
  /** What users pick, e.g. "pair". */
  name: string;
  /** One line for a picker. */
  description: string;
  primary: BaseAgent;
  /** Required by coagent flows, refused by the others. */
  coagent?: BaseAgent;
  flow: ControlFlow;
  prompts: PromptRegistry;
  /** How the reviewer is briefed (coagent flows). Default: the `review-handoff` template. */
  handoff?: HandoffPrompt;
}

export type RunStream = EventStream<AgentEvent, RunResult>;

/**
 * What a user picks: base agents composed under a control flow, presenting
 * as one agent. Whatever happens inside, the caller sees one event stream
 * (every event names the acting agent) ending in one RunResult.
 */
export class ACPAgent {
  readonly name: string;
  readonly description: string;
  readonly flow: ControlFlow;
  readonly primary: BaseAgent;
  readonly coagent: BaseAgent | undefined;

  constructor(private readonly options: ACPAgentOptions) {
    this.name = options.name;
    this.description = options.description;
    this.flow = options.flow;
    this.primary = options.primary;
    this.coagent = options.coagent;
    validate(options);
  }

  /** "Pair programming — reviewed (smart, …)", for pickers. */
  get summary(): string {
    return `${this.description} — ${describeFlow(this.flow)}`;
  }

  /**
   * Runs the user's prompt in the session until the flow hands control back.
   * `permissions`, when given, judges this run's tool calls instead of the
   * session's gate (e.g. a read-only run: `session.permissions.forcing(...)`).
   * `hooks`, for a prompt a person sent: its user_prompt_submit hooks run
   * before the flow starts, its stop hooks when the run is about to end.
   */
  run(
    session: ACPSession,
    prompt: string | UserBlock[],
    options: { signal: AbortSignal; permissions?: PermissionGate; hooks?: Hooks },
  ): RunStream {
    const stream: RunStream = new EventStream();
    const run = new FlowRun(
      { name: this.name, primary: this.primary, prompts: this.options.prompts, ...(this.coagent ? { coagent: this.coagent } : {}) },
      session,
      promptText(prompt),
      options.signal,
      (event) => stream.push(event),
      options.permissions ?? session.permissions,
    );
    this.drive(run, this.firstMessage(session, prompt), options.hooks).then(
      (result) => stream.end(run.complete(result)),
      (err: unknown) => stream.fail(err),
    );
    return stream;
  }

  private async drive(run: FlowRun, first: AgentMessage, hooks: Hooks | undefined): Promise<RunResult> {
    try {
      if (!hooks) return await this.flowPass(run, first);
      const submitted = await hooks.promptSubmitted({ agent: this.name, text: run.task }, run.signal, run.span);
      if (submitted.blocked !== undefined) return run.finish('needs_input', submitted.blocked);
      const context = submitted.context.map((text) => this.options.prompts.render('prompt-hook-context', { context: text }).trim());
      const result = await this.flowPass(run, context.length > 0 ? withText(first, context) : first);
      return await this.beforeStop(run, result, hooks);
    } catch (err) {
      if (err instanceof BudgetReached) return run.finish('budget', err.message);
      if (run.signal.aborted) return run.finish('cancelled', cancelMessage(run.signal, 'Cancelled. All work so far is kept; send a new prompt to continue.'));
      return run.finish('error', `${this.name} failed: ${errorText(err)}`);
    }
  }

  /** One pass of the control flow, from `message` to where it hands control back. */
  private async flowPass(run: FlowRun, message: AgentMessage): Promise<RunResult> {
    const flow = this.flow;
    switch (flow.kind) {
      case 'hitl':
        return runHitl(run, message);
      case 'loop':
        return runLoop(run, message, flow.maxTurns);
      case 'static':
        return runStatic(run, message, flow.maxTurns, flow.message);
      case 'generated':
        return runGenerated(run, message, flow.maxTurns, flow.generatorPrompt);
      case 'coagent':
        return runCoagent(run, message, {
          style: flow.style,
          maxRounds: flow.maxRounds,
          fixedRounds: flow.fixedRounds === true,
          canTerminate: coagentCanTerminate(flow),
          handoff: this.options.handoff ?? { kind: 'template' },
        });
    }
  }

  /**
   * The stop hooks of a run that ended by itself (completed, or waiting for
   * the person): one may send the agents back to work with its reason,
   * once; asked again, it cannot (stop_hook_active tells it so).
   */
  private async beforeStop(run: FlowRun, result: RunResult, hooks: Hooks): Promise<RunResult> {
    let current = result;
    for (const active of [false, true]) {
      if (!STOPPABLE.has(current.status) || run.stoppedByHook || run.signal.aborted) return current;
      const ending = { agent: this.name, status: current.status, message: current.message, lastMessage: run.lastText, active };
      const { continueWith } = await hooks.stopping(ending, run.signal, run.span);
      if (continueWith === undefined || active || run.signal.aborted) return current;
      current = await this.flowPass(run, this.options.prompts.render('stop-hook', { reason: continueWith }).trim());
    }
    return current;
  }

  /** The user's prompt, preceded by a note when the last run was cancelled (cancel is feedback). */
  private firstMessage(session: ACPSession, prompt: string | UserBlock[]): AgentMessage {
    const interruption = session.interruption;
    session.interruption = undefined;
    if (!interruption) return prompt;
    const note = this.options.prompts.render('interrupted', { interrupted_agent: interruption.agent }).trim();
    const blocks: UserBlock[] = typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
    return [{ type: 'text', text: note }, ...blocks];
  }
}

/** The run statuses stop hooks are asked about: the run ended by itself, not by a cancel, an error or a limit. */
const STOPPABLE: ReadonlySet<RunResult['status']> = new Set(['completed', 'needs_input']);

/** A message with texts added after it. */
function withText(message: AgentMessage, texts: string[]): AgentMessage {
  const blocks: UserBlock[] = typeof message === 'string' ? [{ type: 'text', text: message }] : [...message];
  return [...blocks, ...texts.map((text) => ({ type: 'text' as const, text }))];
}

function promptText(prompt: string | UserBlock[]): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.map((block) => (block.type === 'text' ? block.text : `[image: ${block.mimeType}]`)).join('\n');
}

function validate(options: ACPAgentOptions): void {
  const { name, flow, coagent } = options;
  if (flow.kind === 'coagent') {
    if (!coagent) throw new Error(`ACP agent "${name}": a ${flow.style} review flow needs a coagent.`);
    if (coagentCanTerminate(flow) && !coagent.toolNames.includes(TASK_COMPLETE)) {
      throw new Error(`ACP agent "${name}": coagent "${coagent.name}" must have the task_complete tool, since only it can end the task.`);
    }
    if (flow.maxRounds < 1) throw new Error(`ACP agent "${name}": maxRounds must be at least 1.`);
  } else {
    if (coagent) throw new Error(`ACP agent "${name}": a ${flow.kind} flow has no use for coagent "${coagent.name}".`);
    if (flow.kind !== 'hitl' && flow.maxTurns < 1) throw new Error(`ACP agent "${name}": maxTurns must be at least 1.`);
  }
}
