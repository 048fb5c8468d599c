import type { LlmRequest, Provider } from '../llm/types';
import { DEFAULT_DOOM_LOOP_THRESHOLD, DEFAULT_MAX_ITERATIONS } from '../config/keys/defaults';
import type { Span } from '../telemetry/span';
import type { Budget } from '../vocabulary/budget';
import type { InternalSession } from '../session/internal-session';
import { PermissionGate } from '../tools/permissions';
import { DEFAULT_POLICY } from '../vocabulary/permission-types';
import { type Tool, toolSpec } from '../tools/tool';
import { TodoStore } from '../tools/todos';
import type { AgentEvent } from './events';
import { EventStream } from './event-stream';
import { type CompactOutcome, ContextWindowKeeper } from './compaction';
import { charging } from './model-call';
import { assertRepeatThreshold } from './stop-rules';
import { Turn } from './agent-turn';
import type { BaseAgentOptions, TurnOptions, TurnScope } from './turn-options';
import type { TurnResult } from './turn';

export type { BaseAgentOptions, TurnOptions } from './turn-options';

export type TurnStream = EventStream<AgentEvent, TurnResult>;

/** Model calls a turn may make, and identical calls in a row that count as a loop, when nothing says otherwise. */
export { DEFAULT_DOOM_LOOP_THRESHOLD, DEFAULT_MAX_ITERATIONS } from '../config/keys/defaults';

/**
 * A ReAct loop: call the model, run the tools it asks for, repeat, until it
 * answers in text, calls task_complete, is cancelled, loops, or runs out of
 * iterations (each turn runs as a Turn, agent-turn.ts). Knows nothing about
 * other agents.
 */
export class BaseAgent {
  readonly name: string;
  readonly provider: Provider;
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly maxIterations: number;
  private readonly doomLoopThreshold: number;
  /** Keeps requests inside the model's window, across this agent's turns; undefined without compaction. */
  readonly contextWindow: ContextWindowKeeper | undefined;

  constructor(private readonly options: BaseAgentOptions) {
    this.name = options.name;
    this.provider = options.provider;
    this.contextWindow = options.compaction ? new ContextWindowKeeper(options.compaction) : undefined;
    this.tools = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.doomLoopThreshold = options.doomLoopThreshold ?? DEFAULT_DOOM_LOOP_THRESHOLD;
    if (!Number.isInteger(this.maxIterations) || this.maxIterations < 1) {
      throw new Error(`maxIterations of agent "${this.name}" must be a positive integer, got ${this.maxIterations}`);
    }
    assertRepeatThreshold(this.doomLoopThreshold);
  }

  /**
   * Runs one turn on the session, which must already hold the user's message.
   * The stream yields events as they happen and ends with the TurnResult.
   */
  executeTurn(session: InternalSession, options: TurnOptions): TurnStream {
    const stream: TurnStream = new EventStream();
    const scope: TurnScope = {
      signal: options.signal,
      permissions: options.permissions ?? new PermissionGate({ policy: this.options.policy ?? DEFAULT_POLICY }),
      todos: options.todos ?? new TodoStore(),
      ...(options.undo ? { undo: options.undo } : {}),
      ...(options.withoutTools ? { withoutTools: true } : {}),
      ...(options.span ? { span: options.span } : {}),
      ...(options.role !== undefined ? { role: options.role } : {}),
      ...(options.subagents ? { subagents: options.subagents } : {}),
      ...(options.depth !== undefined ? { depth: options.depth } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.steering ? { steering: options.steering } : {}),
      ...(options.calls ? { calls: options.calls } : {}),
      ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
      ...(options.hooks ? { hooks: options.hooks } : {}),
      outputs: options.outputs,
    };
    const turn = new Turn(this, this.options, this.tools, session, scope, charging(scope.budget, (event) => stream.push(event)));
    turn.run().then(
      (result) => stream.end(result),
      (err: unknown) => stream.fail(err),
    );
    return stream;
  }

  /**
   * Compacts the agent's history in `session` now, as a person asked
   * (/compact): everything so far becomes one summary, guided by `focus`.
   * An agent without a context window to keep (no compaction settings)
   * changes nothing.
   */
  compact(session: InternalSession, options: { signal: AbortSignal; emit: (event: AgentEvent) => void; focus?: string; span?: Span; budget?: Budget }): Promise<CompactOutcome> {
    const keeper = this.contextWindow;
    if (!keeper) return Promise.resolve({ compacted: false });
    const build = (): LlmRequest => ({ system: this.options.systemPrompt, messages: session.toMessages(), tools: [...this.tools.values()].map(toolSpec) });
    const scope = { agent: this.name, provider: this.provider, session, emit: options.emit, span: options.span, signal: options.signal, ...(options.budget ? { budget: options.budget } : {}) };
    return keeper.compactNow(scope, build, options.focus);
  }

  /** The names of the tools this agent can call. */
  get toolNames(): string[] {
    return [...this.tools.keys()];
  }

  get limits(): { maxIterations: number; doomLoopThreshold: number } {
    return { maxIterations: this.maxIterations, doomLoopThreshold: this.doomLoopThreshold };
  }
}

