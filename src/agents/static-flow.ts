import type { AgentMessage, FlowRun } from './flow-run';
import type { RunResult } from './run-result';
import { repeatTurns } from './turn-loop';

/**
 * Level 1: after each turn the primary reads a fixed follow-up — the
 * definition's own message, or the `follow-up` template.
 */
export function runStatic(run: FlowRun, first: AgentMessage, maxTurns: number, message?: string): Promise<RunResult> {
  return repeatTurns(run, first, maxTurns, async () => message ?? run.render('follow-up'));
}
