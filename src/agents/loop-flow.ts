import type { AgentMessage, FlowRun } from './flow-run';
import type { RunResult } from './run-result';
import { repeatTurns } from './turn-loop';

/** Level 0: the primary takes turns until it calls task_complete, at most `maxTurns`. */
export function runLoop(run: FlowRun, first: AgentMessage, maxTurns: number): Promise<RunResult> {
  return repeatTurns(run, first, maxTurns, async () => run.render('loop-continue'));
}
