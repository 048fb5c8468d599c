import type { AgentMessage, FlowRun } from './flow-run';
import type { RunResult } from './run-result';

/** Level -1: the primary takes one turn; control returns to the human. */
export async function runHitl(run: FlowRun, first: AgentMessage): Promise<RunResult> {
  const result = await run.primaryTurn(first);
  const stopped = run.stopped(result, 'primary');
  if (stopped) return stopped;
  const primary = run.agents.primary.name;
  if (result.taskComplete !== undefined) {
    return run.finish('completed', `${primary} completed the task.`, result.taskComplete);
  }
  if (result.stopReason === 'max_iterations' || result.stopReason === 'doom_loop') {
    return run.finish('limit', `${result.message} Send a prompt to continue or change course.`);
  }
  return run.finish('needs_input', `${primary} finished its turn; your move.`);
}
