import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, type EvalTask } from '../../src/eval/eval-task';
import type { SolverMode, SolverTask } from '../../testkit/scripted-solver';

/** What the scripted solver needs of each eval task: its prompt, fixes and checks, from the task's folders. */
export function solverTasks(tasks: readonly EvalTask[]): SolverTask[] {
  return tasks.map((task) => {
    const solution = filesUnder(join(task.dir, 'solution'));
    const wrongDir = join(task.dir, 'wrong');
    const read = Object.keys(solution).filter((path) => existsSync(join(task.dir, 'files', path)));
    return {
      prompt: task.prompt,
      solution,
      ...(existsSync(wrongDir) ? { wrong: filesUnder(wrongDir) } : {}),
      read: read.length > 0 ? read : Object.keys(filesUnder(join(task.dir, 'files'))).slice(0, 3),
      ...(task.visibleCheck ? { visibleCheck: task.visibleCheck } : {}),
    };
  });
}

/** Fixes wrongly on the first attempt where a task has a trap, correctly everywhere else. */
export const wrongFirstOnTraps = (task: SolverTask): SolverMode => (task.wrong ? 'wrong-first' : 'correct');
