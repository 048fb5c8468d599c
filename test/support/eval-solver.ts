import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, type EvalTask } from '../../src/eval/eval-task';
import { mulberry32 } from '../../src/eval/eval-stats';
import type { Responder } from '../../testkit/fake-llm-server';
import { scriptedSolver, type SolverMode, type SolverTask } from '../../testkit/scripted-solver';

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

/** Who a request of `crow eval --attempts` comes from: the judge, attempt N (its worktree is named in the system prompt), or the single run. */
export function askerOf(body: Record<string, unknown>): 'judge' | 'single' | number {
  const system = JSON.stringify(body['system']);
  if (system.includes('the judge of several attempts')) return 'judge';
  const attempt = /crow-attempts\/[^/"\\]+\/(\d+)/.exec(system);
  return attempt ? Number(attempt[1]) : 'single';
}

/**
 * Whether the solver fixes `task` correctly for `who` (the single run, or
 * attempt N): true with probability `p`, drawn from a generator seeded by
 * the task, who asks and `seed`, so the same evaluation always gets the
 * same draws and a test can work out what every run must score.
 */
export function solvedBy(task: string, who: 'single' | number, p: number, seed: number): boolean {
  let hash = 2166136261;
  for (const char of `${task}|${who}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return mulberry32((hash ^ seed) >>> 0)() < p;
}

/**
 * A responder for `crow eval --attempts N`: the scripted solver, fixing each
 * task correctly with probability `p` per run and per attempt (solvedBy),
 * else wrongly where the task has a wrong fix or not at all; and a judge
 * that ranks the attempts by their number, highest first (Crow then puts
 * attempts that changed nothing last). `judged` collects what the judge was shown.
 */
export function attemptsSolver(tasks: readonly EvalTask[], p: number, seed: number, judged: string[] = []): Responder {
  const known = solverTasks(tasks);
  return (body) => {
    const who = askerOf(body);
    if (who === 'judge') {
      const shown = JSON.stringify(body['messages']);
      judged.push(shown);
      const numbers = [...new Set([...shown.matchAll(/<attempt n=\\"(\d+)\\">/g)].map((match) => Number(match[1])))].sort((a, b) => b - a);
      return { blocks: [{ type: 'text', text: `{"ranking": [${numbers.map((n) => `{"attempt": ${n}, "reason": "attempt ${n}: the latest"}`).join(', ')}]}` }] };
    }
    const task = tasks.find((candidate) => JSON.stringify(body['messages']).includes(JSON.stringify(candidate.prompt).slice(1, -1)));
    const mode = (solverTask: SolverTask): SolverMode => (task && solvedBy(task.name, who, p, seed) ? 'correct' : solverTask.wrong ? 'wrong' : 'give-up');
    return scriptedSolver({ tasks: known, modeOf: mode })(body);
  };
}
