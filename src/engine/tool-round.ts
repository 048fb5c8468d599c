import type { ToolCallBlock } from '../llm/types';
import { TASK_COMPLETE } from '../vocabulary/tool-names';
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
 * that consecutive read-only calls, and consecutive calls of tools marked
 * parallel (subagent tasks), start together (see batches); whatever limits
 * subagents (a per-provider queue) lives in the tool. Results are recorded
 * in the order the model made the calls.
 * Once the turn must stop (cancel, doom loop, task_complete, a hook), the remaining
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
      } else if (call.hookStop !== undefined) {
        outcome.stop ??= { reason: 'hook_stop', message: call.hookStop };
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

/** How many read-only calls of one response run at the same time. */
const MAX_CONCURRENT_READS = 8;

/**
 * Consecutive calls of parallel tools (subagent tasks) form one batch, and
 * so do consecutive read-only calls (reads, searches: up to
 * MAX_CONCURRENT_READS); every other call is a batch of its own, so writes
 * and commands keep their order against everything else.
 */
function batches(round: ToolRound, calls: ToolCallBlock[]): ToolCallBlock[][] {
  const out: ToolCallBlock[][] = [];
  let lastGroup: Group = 'alone';
  for (const call of calls) {
    const group = groupOf(round, call);
    const last = out.at(-1);
    const joins = last !== undefined && group !== 'alone' && group === lastGroup && !(group === 'read' && last.length >= MAX_CONCURRENT_READS);
    if (joins) last.push(call);
    else out.push([call]);
    lastGroup = group;
  }
  return out;
}

type Group = 'parallel' | 'read' | 'alone';

function groupOf(round: ToolRound, call: ToolCallBlock): Group {
  const tool = round.scope.tools.get(call.name);
  if (tool?.parallel) return 'parallel';
  if (tool?.readOnly) return 'read';
  return 'alone';
}
