import { clip } from '../vocabulary/text';
import type { TurnResult } from '../engine/turn';
import type { AgentMessage, FlowRun } from './flow-run';
import type { RunResult } from './run-result';

/**
 * The shape Loop, Static and Generated share: the primary takes turns until
 * it calls task_complete, a turn ends the run another way, or the maximum is
 * reached; between turns `nextMessage` writes what the primary reads next.
 */
export async function repeatTurns(
  run: FlowRun,
  first: AgentMessage,
  maxTurns: number,
  nextMessage: (last: TurnResult, turn: number) => Promise<string>,
): Promise<RunResult> {
  const primary = run.agents.primary.name;
  let message = first;
  let from: string | undefined;
  for (let turn = 1; ; turn++) {
    const result = await run.primaryTurn(message, from !== undefined ? { from } : {});
    const stopped = run.stopped(result, 'primary');
    if (stopped) return stopped;
    if (result.taskComplete !== undefined) {
      return run.finish('completed', `${primary} completed the task.`, result.taskComplete);
    }
    if (turn >= maxTurns) return run.finish('limit', limitMessage(run, maxTurns, result));
    message = await nextMessage(result, turn);
    if (run.signal.aborted) return run.stopped({ ...result, stopReason: 'cancelled' }, 'primary')!;
    from = run.agents.name;
    run.handoff(run.agents.name, primary, 'follow_up', message);
  }
}

function limitMessage(run: FlowRun, maxTurns: number, last: TurnResult): string {
  const primary = run.agents.primary.name;
  const lastWords = last.text.trim() ? ` Its last message: "${clip(last.text.trim(), 300)}".` : '';
  return (
    `Stopped after ${maxTurns} turns (this agent's maximum) without ${primary} calling task_complete.${lastWords} ` +
    `Todo list: ${run.todoState().replace(/\n/g, '; ')} Send a prompt to continue.`
  );
}

