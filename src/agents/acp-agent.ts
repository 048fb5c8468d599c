import type { PromptRegistry } from '../config/prompts';
import type { BaseAgent } from '../engine/base-agent';
import type { AgentEvent } from '../engine/events';
import { EventStream } from '../engine/event-stream';
import type { UserBlock } from '../llm/types';
import type { ACPSession } from '../session/acp-session';
import type { PermissionGate } from '../tools/permissions';
import { TASK_COMPLETE } from '../vocabulary/tool-names';
import { runCoagent } from './coagent-flow';
import { type ControlFlow, describeFlow, type HandoffPrompt } from '../config/control-flow';
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
   */
  run(session: ACPSession, prompt: string | UserBlock[], options: { signal: AbortSignal; permissions?: PermissionGate }): RunStream {
    const stream: RunStream = new EventStream();
    const run = new FlowRun(
      { name: this.name, primary: this.primary, prompts: this.options.prompts, ...(this.coagent ? { coagent: this.coagent } : {}) },
      session,
      promptText(prompt),
      options.signal,
      (event) => stream.push(event),
      options.permissions ?? session.permissions,
    );
    this.drive(run, this.firstMessage(session, prompt)).then(
      (result) => stream.end(result),
      (err: unknown) => stream.fail(err),
    );
    return stream;
  }

  private async drive(run: FlowRun, first: AgentMessage): Promise<RunResult> {
    try {
      const flow = this.flow;
      switch (flow.kind) {
        case 'hitl':
          return await runHitl(run, first);
        case 'loop':
          return await runLoop(run, first, flow.maxTurns);
        case 'static':
          return await runStatic(run, first, flow.maxTurns, flow.message);
        case 'generated':
          return await runGenerated(run, first, flow.maxTurns, flow.generatorPrompt);
        case 'coagent':
          return await runCoagent(run, first, {
            style: flow.style,
            maxRounds: flow.maxRounds,
            handoff: this.options.handoff ?? { kind: 'template' },
          });
      }
    } catch (err) {
      if (err instanceof BudgetReached) return run.finish('budget', err.message);
      if (run.signal.aborted) return run.finish('cancelled', 'Cancelled. All work so far is kept; send a new prompt to continue.');
      return run.finish('error', `${this.name} failed: ${errorText(err)}`);
    }
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

function promptText(prompt: string | UserBlock[]): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.map((block) => (block.type === 'text' ? block.text : `[image: ${block.mimeType}]`)).join('\n');
}

function validate(options: ACPAgentOptions): void {
  const { name, flow, coagent } = options;
  if (flow.kind === 'coagent') {
    if (!coagent) throw new Error(`ACP agent "${name}": a ${flow.style} review flow needs a coagent.`);
    if (!coagent.toolNames.includes(TASK_COMPLETE)) {
      throw new Error(`ACP agent "${name}": coagent "${coagent.name}" must have the task_complete tool, since only it can end the task.`);
    }
    if (flow.maxRounds < 1) throw new Error(`ACP agent "${name}": maxRounds must be at least 1.`);
  } else {
    if (coagent) throw new Error(`ACP agent "${name}": a ${flow.kind} flow has no use for coagent "${coagent.name}".`);
    if (flow.kind !== 'hitl' && flow.maxTurns < 1) throw new Error(`ACP agent "${name}": maxTurns must be at least 1.`);
  }
}
