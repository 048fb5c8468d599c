import type { ToolCallBlock } from '../llm/types';
import { TASK_COMPLETE } from '../config/tool-names';
import type { TurnStopReason } from './events';
import type { RepeatedCallDetector } from './stop-rules';
import { executeToolCall, skipToolCall, type ToolRunScope } from './tool-execution';
import type { ExecutedToolCall } from './turn';

export interface RoundStop {
  reason: TurnStopReason;
  message: string;
}

export interface RoundOutcome {
  stop?: RoundStop;
  /** The task_complete summary, when the agent called it. */
  taskSummary?: string;
}

export interface ToolRound {
  scope: ToolRunScope;
  repeats: RepeatedCallDetector;
  signal: AbortSignal;
  record(call: ExecutedToolCall): void;
}

/**
 * Runs the tool calls of one model response. Calls run in order, except
 * that consecutive calls of tools marked parallel (subagent tasks) start
 * together; whatever limits them (a per-provider queue) lives in the tool.
 * Once the turn must stop (cancel, doom loop, task_complete), the remaining
 * calls are recorded as not run, so every call still has one result.
 */
export async function runToolRound(round: ToolRound, calls: ToolCallBlock[]): Promise<RoundOutcome> {
  const outcome: RoundOutcome = {};
  for (const batch of batches(round, calls)) {
    const runnable = batch.filter((call) => admit(round, call, outcome));
    const executed = await Promise.all(runnable.map((call) => executeToolCall(round.scope, call)));
    for (const call of executed) {
      round.record(call);
      if (call.result.status === 'cancelled' && round.signal.aborted) {
        outcome.stop ??= { reason: 'cancelled', message: 'Cancelled by the user.' };
      } else if (call.name === TASK_COMPLETE && call.result.status === 'success' && !outcome.stop) {
        outcome.taskSummary = call.result.output;
        outcome.stop = { reason: 'task_complete', message: 'The task was completed.' };
      }
    }
  }
  return outcome;
}

/** Decides whether a call runs; records the ones that do not. */
function admit(round: ToolRound, call: ToolCallBlock, outcome: RoundOutcome): boolean {
  const { scope } = round;
  if (outcome.stop) {
    round.record(skipToolCall(scope, call, 'cancelled', `Not run: ${outcome.stop.message}`));
    return false;
  }
  if (round.signal.aborted) {
    outcome.stop = { reason: 'cancelled', message: 'Cancelled by the user.' };
    round.record(skipToolCall(scope, call, 'cancelled', 'Not run: cancelled by the user.'));
    return false;
  }
  if (round.repeats.record(call.name, call.arguments)) {
    const n = round.repeats.threshold;
    outcome.stop = { reason: 'doom_loop', message: `The same ${call.name} call was made ${n} times in a row.` };
    scope.emit({ type: 'doom_loop', agent: scope.agent, tool: call.name, repeats: n });
    round.record(skipToolCall(scope, call, 'error', `Not run: this exact call was repeated ${n} times in a row. Try a different approach.`));
    return false;
  }
  return true;
}

/** Consecutive calls of parallel tools form one batch; every other call is a batch of its own. */
function batches(round: ToolRound, calls: ToolCallBlock[]): ToolCallBlock[][] {
  const out: ToolCallBlock[][] = [];
  for (const call of calls) {
    const parallel = round.scope.tools.get(call.name)?.parallel === true;
    const last = out.at(-1);
    const lastParallel = last !== undefined && round.scope.tools.get(last[0]!.name)?.parallel === true;
    if (parallel && lastParallel) last.push(call);
    else out.push([call]);
  }
  return out;
}
