/**
 * An evaluation: every task × agent × repeat (or one shard's slice of them),
 * run in parallel under a per-provider queue, each result appended to
 * results.jsonl as it comes so a long evaluation resumes where it stopped
 * (runs already in the file are not run again). The file opens with the
 * manifest of what its results were made with (eval-manifest.ts); a rerun
 * whose settings, tasks or agent definitions differ from it is refused
 * instead of reusing results that mean something else. Cancel stops the
 * runs under way and keeps what finished.
 */
import { withoutSecrets } from '../config/secret-variables';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { ProviderQueue } from '../agents/provider-queue';
import { runTask, type EvalResult, type RunSettings } from './eval-run';
import { buildManifest, differences, type EvalManifest, extended, isManifest } from './eval-manifest';
import { resolveSettings } from '../config/provider-config';
import { tmpdir } from 'node:os';
import { mulberry32 } from './eval-stats';
import type { EvalTask } from './eval-task';
import { bestOfLabel, runBestOf } from './eval-best-of';
import { childProcess } from '../vocabulary/first-use';

export interface EvalOptions extends RunSettings {
  tasks: readonly EvalTask[];
  agents: readonly string[];
  repeat: number;
  /** Runs at once per provider. */
  concurrency: number;
  /** Orders the shards and seeds the report's bootstrap; default 1. */
  seed?: number;
  /** Run only this slice of the runs (crow eval --shard I/N). */
  shard?: { index: number; count: number };
  /** Also run each task × agent × repeat as `count` attempts ranked by `judge` (crow eval --attempts N): the best-of arm, "AGENT@best-of-N". */
  attempts?: { count: number; judge: string };
  signal: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
}

export type EvalProgress =
  | { kind: 'planned'; total: number; resumed: number; skipped: { task: string; reason: string }[]; shard?: { index: number; count: number; of: number } }
  | { kind: 'started'; task: string; agent: string; repeat: number }
  | { kind: 'finished'; result: EvalResult; done: number; total: number };

export interface EvalOutcome {
  /** Every result in the file for these tasks, agents and repeats, earlier ones included. */
  results: EvalResult[];
  manifest: EvalManifest;
  /** Runs that did not finish (cancelled): run again to complete them. */
  unfinished: number;
  cancelled: boolean;
}

export const RESULTS_FILE = 'results.jsonl';

/** A results file made with other settings than the evaluation asked of it: what differs, and what to do. */
export class ManifestMismatchError extends Error {
  override name = 'ManifestMismatchError';
}

interface PlannedRun {
  task: EvalTask;
  /** The agent, or the best-of arm's label. */
  agent: string;
  repeat: number;
  /** Set on a run of the best-of arm: the agent its attempts run. */
  attemptsOf?: string;
}

export async function runEval(options: EvalOptions): Promise<EvalOutcome> {
  mkdirSync(options.out, { recursive: true });
  const file = join(options.out, RESULTS_FILE);
  const wanted = manifestOf(options);
  const manifest = openResults(file, wanted);
  const earlier = readResults(file);
  const done = new Set(earlier.map(keyOf));
  const skipped = options.tasks.flatMap((task) => {
    const missing = task.requires.filter((program) => !available(program, options));
    return missing.length > 0 ? [{ task: task.name, reason: `needs ${missing.join(', ')}, not found ${options.container ? `in the image ${options.container.image}` : 'on PATH'}` }] : [];
  });
  const runnable = options.tasks.filter((task) => !skipped.some((skip) => skip.task === task.name));
  const everything: PlannedRun[] = runnable.flatMap((task) =>
    options.agents.flatMap((agent) =>
      Array.from({ length: options.repeat }, (_, i) => [
        { task, agent, repeat: i + 1 },
        // The best-of arm on the same task and repeat: a run of its own, resumed and sharded as any other.
        ...(options.attempts ? [{ task, agent: bestOfLabel(agent, options.attempts.count), repeat: i + 1, attemptsOf: agent }] : []),
      ]).flat(),
    ),
  );
  const planned = options.shard ? shardOf(everything, options.shard, wanted.seed) : everything;
  const pending = planned.filter((run) => !done.has(keyOf({ task: run.task.name, agent: run.agent, repeat: run.repeat })));
  const shard = options.shard ? { ...options.shard, of: everything.length } : undefined;
  options.onProgress?.({ kind: 'planned', total: planned.length, resumed: planned.length - pending.length, skipped, ...(shard ? { shard } : {}) });

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
        const result =
          run.attemptsOf !== undefined && options.attempts
            ? await runBestOf(run.task, run.attemptsOf, run.repeat, options, { ...options.attempts, concurrency: options.concurrency }, signal)
            : await runTask(run.task, run.agent, run.repeat, options.attempts ? { ...options, commitCopies: true } : options, signal);
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
  const plannedKeys = new Set(planned.map(keyOf2));
  const ours = results.filter((result) => plannedKeys.has(keyOf(result)));
  return { results: ours, manifest, unfinished, cancelled: options.signal.aborted };
}

/**
 * One shard's runs: the whole plan in an order shuffled by `seed` (so every
 * shard gets a mix of tasks and agents), every `count`-th run from `index`.
 * The same plan, seed and count always give the same slices, and the slices
 * of 0…count-1 cover the plan exactly once.
 */
export function shardOf<T extends PlannedRun>(runs: readonly T[], shard: { index: number; count: number }, seed: number): T[] {
  const ordered = [...runs].sort((a, b) => keyOf2(a).localeCompare(keyOf2(b)));
  const random = mulberry32(seed);
  for (let i = ordered.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ordered[i], ordered[j]] = [ordered[j]!, ordered[i]!];
  }
  return ordered.filter((_, i) => i % shard.count === shard.index);
}

/** What this evaluation's results are made with: the settings a run's folder gets (it has no project configuration of its own). */
function manifestOf(options: EvalOptions): EvalManifest {
  const folder = tmpdir();
  const settings = options.settingsFor?.(folder) ?? resolveSettings(folder, options.overrides, options.env, { trusted: false });
  return buildManifest({
    tasks: options.tasks,
    // The judge's definition counts too: another judge makes other results.
    agents: options.attempts ? [...options.agents, options.attempts.judge] : options.agents,
    settings,
    env: options.env,
    budget: options.budget,
    seed: options.seed ?? 1,
    ...(options.roles ? { roles: options.roles } : {}),
    ...(options.container ? { container: options.container } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    ...(options.attempts ? { attempts: options.attempts } : {}),
  });
}

/**
 * The manifest the results file goes on with: `wanted` for a new file; the
 * file's own, extended by new tasks and agents, when they agree; a
 * ManifestMismatchError saying what differs when they do not.
 */
function openResults(file: string, wanted: EvalManifest): EvalManifest {
  const existing = readResultsFile(file);
  if (!existsSync(file) || (existing.manifest === undefined && existing.results.length === 0)) {
    writeFileSync(file, `${JSON.stringify(wanted)}\n`, { mode: 0o600 });
    return wanted;
  }
  const where = file.replace(/results\.jsonl$/, '');
  if (!existing.manifest) {
    throw new ManifestMismatchError(`${file} has results but no manifest (an older crow made it), so what they were made with is unknown. Give another --out, or move ${where} away to start over.`);
  }
  const found = differences(existing.manifest, wanted, { shards: true });
  if (JSON.stringify(existing.manifest.shard) !== JSON.stringify(wanted.shard)) {
    found.push(`shard: ${existing.manifest.shard ? `${existing.manifest.shard.index}/${existing.manifest.shard.count}` : 'none'} then, ${wanted.shard ? `${wanted.shard.index}/${wanted.shard.count}` : 'none'} now`);
  }
  if (found.length > 0) {
    throw new ManifestMismatchError(
      `${file} holds results made differently, so none of them can stand for this evaluation:\n  - ${found.join('\n  - ')}\n` +
        `Give another --out (then compare the two reports), or move ${where} away to start over.`,
    );
  }
  const merged = extended(existing.manifest, wanted);
  if (JSON.stringify(merged) !== JSON.stringify(existing.manifest)) rewriteManifest(file, merged, existing.results);
  return merged;
}

/** Rewrites the file with `manifest` first and the same results after it, replacing it whole (a crash leaves the old file). */
function rewriteManifest(file: string, manifest: EvalManifest, results: readonly EvalResult[]): void {
  const next = `${file}.next`;
  writeFileSync(next, [manifest, ...results].map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
  renameSync(next, file);
}

/** The manifest and results of a file; a torn last line (a killed evaluation) is left out. */
export function readResultsFile(file: string): { manifest?: EvalManifest; results: EvalResult[] } {
  if (!existsSync(file)) return { results: [] };
  let manifest: EvalManifest | undefined;
  const results: EvalResult[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isManifest(value)) manifest ??= value;
    else results.push(value as EvalResult);
  }
  return { ...(manifest ? { manifest } : {}), results };
}

/** The results of a file, without its manifest. */
export function readResults(file: string): EvalResult[] {
  return readResultsFile(file).results;
}

export function keyOf(run: { task: string; agent: string; repeat: number }): string {
  return `${run.task}\u0000${run.agent}\u0000${run.repeat}`;
}

function keyOf2(run: PlannedRun): string {
  return keyOf({ task: run.task.name, agent: run.agent, repeat: run.repeat });
}

/** Whether a program a task needs is there: on PATH, or in the container image. */
function available(program: string, options: EvalOptions): boolean {
  const probe = `command -v ${JSON.stringify(program)}`;
  if (options.container) {
    const { engine, image } = options.container;
    return childProcess().spawnSync(engine, ['run', '--rm', '--network', 'none', '--entrypoint', 'sh', image, '-c', probe], { stdio: 'ignore', env: withoutSecrets(options.env) }).status === 0;
  }
  return childProcess().spawnSync('sh', ['-c', probe], { stdio: 'ignore', env: withoutSecrets(process.env) }).status === 0;
}
