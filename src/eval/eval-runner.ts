/**
 * An evaluation: every task × agent × repeat, run in parallel under a
 * per-provider queue, each result appended to results.jsonl as it comes so a
 * long evaluation resumes where it stopped (runs already in the file are not
 * run again). Cancel stops the runs under way and keeps what finished.
 */
import { spawnSync } from 'node:child_process';
import { withoutSecrets } from '../config/secret-variables';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { ProviderQueue } from '../agents/provider-queue';
import { runTask, type EvalResult, type RunSettings } from './eval-run';
import type { EvalTask } from './eval-task';

export interface EvalOptions extends RunSettings {
  tasks: readonly EvalTask[];
  agents: readonly string[];
  repeat: number;
  /** Runs at once per provider. */
  concurrency: number;
  /** Where results.jsonl (and the reports) go. */
  out: string;
  signal: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
}

export type EvalProgress =
  | { kind: 'planned'; total: number; resumed: number; skipped: { task: string; reason: string }[] }
  | { kind: 'started'; task: string; agent: string; repeat: number }
  | { kind: 'finished'; result: EvalResult; done: number; total: number };

export interface EvalOutcome {
  /** Every result in the file, earlier ones included. */
  results: EvalResult[];
  /** Runs that did not finish (cancelled): run again to complete them. */
  unfinished: number;
  cancelled: boolean;
}

export const RESULTS_FILE = 'results.jsonl';

export async function runEval(options: EvalOptions): Promise<EvalOutcome> {
  mkdirSync(options.out, { recursive: true });
  const file = join(options.out, RESULTS_FILE);
  const earlier = readResults(file);
  const done = new Set(earlier.map(keyOf));
  const skipped = options.tasks.flatMap((task) => {
    const missing = task.requires.filter((program) => !available(program));
    return missing.length > 0 ? [{ task: task.name, reason: `needs ${missing.join(', ')}, not found on PATH` }] : [];
  });
  const runnable = options.tasks.filter((task) => !skipped.some((skip) => skip.task === task.name));
  const planned = runnable.flatMap((task) =>
    options.agents.flatMap((agent) => Array.from({ length: options.repeat }, (_, i) => ({ task, agent, repeat: i + 1 }))),
  );
  const pending = planned.filter((run) => !done.has(keyOf({ task: run.task.name, agent: run.agent, repeat: run.repeat })));
  options.onProgress?.({ kind: 'planned', total: planned.length, resumed: planned.length - pending.length, skipped });

  const results = [...earlier];
  // Every waiting run listens to the signal: one inner signal, allowed that many listeners, keeps Node from warning.
  const inner = new AbortController();
  setMaxListeners(0, inner.signal);
  const stop = (): void => inner.abort();
  if (options.signal.aborted) stop();
  else options.signal.addEventListener('abort', stop, { once: true });
  const signal = inner.signal;
  // One queue per provider: runs of the same provider share its concurrency.
  const provider = options.overrides.provider ?? options.env.CROW_PROVIDER ?? 'default';
  const queue = new ProviderQueue(() => options.concurrency);
  let finished = planned.length - pending.length;
  let unfinished = 0;
  await Promise.all(
    pending.map(async (run) => {
      let release: (() => void) | undefined;
      try {
        release = await queue.acquire(provider, signal);
      } catch {
        unfinished += 1;
        return;
      }
      try {
        if (signal.aborted) {
          unfinished += 1;
          return;
        }
        options.onProgress?.({ kind: 'started', task: run.task.name, agent: run.agent, repeat: run.repeat });
        const result = await runTask(run.task, run.agent, run.repeat, options, signal);
        if (result.ended === 'cancelled') {
          unfinished += 1;
          return;
        }
        appendFileSync(file, `${JSON.stringify(result)}\n`, { mode: 0o600 });
        results.push(result);
        finished += 1;
        options.onProgress?.({ kind: 'finished', result, done: finished, total: planned.length });
      } finally {
        release();
      }
    }),
  );
  options.signal.removeEventListener('abort', stop);
  const tasks = new Set(options.tasks.map((task) => task.name));
  const ours = results.filter((result) => options.agents.includes(result.agent) && tasks.has(result.task) && result.repeat <= options.repeat);
  return { results: ours, unfinished, cancelled: options.signal.aborted };
}

/** The results of a file; a torn last line (a killed evaluation) is left out. */
export function readResults(file: string): EvalResult[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as EvalResult];
      } catch {
        return [];
      }
    });
}

function keyOf(run: { task: string; agent: string; repeat: number }): string {
  return `${run.task}\u0000${run.agent}\u0000${run.repeat}`;
}

function available(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${JSON.stringify(program)}`], { stdio: 'ignore', env: withoutSecrets(process.env) }).status === 0;
}
