/**
 * `crow eval merge`: combines evaluation folders (the shards of one
 * evaluation, or evaluations that ran different tasks with the same
 * settings) into one. Refused when their manifests differ on what makes
 * results comparable, or when two of them hold the same run; each input's
 * runs/ artifacts are copied along, so the merged report drills down too.
 */
import { cpSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { differences, type EvalManifest, extended } from './eval-manifest';
import type { EvalResult } from './eval-run';
import { keyOf, readResultsFile, RESULTS_FILE } from './eval-runner';

export class MergeError extends Error {
  override name = 'MergeError';
}

export interface Merged {
  manifest: EvalManifest;
  results: EvalResult[];
  /** Said in the report when shards are missing. */
  note?: string;
}

/** The folders' results under one manifest; a MergeError says which input disagrees and how. */
export function mergeFolders(inputs: readonly string[]): Merged {
  if (inputs.length === 0) throw new MergeError('Name the evaluation folders (or results.jsonl files) to merge, e.g. crow eval merge --out merged shard-0 shard-1.');
  let manifest: EvalManifest | undefined;
  const results: EvalResult[] = [];
  const owners = new Map<string, string>();
  const shards = new Set<number>();
  for (const input of inputs) {
    const file = resultsFile(input);
    const read = readResultsFile(file);
    if (!read.manifest) throw new MergeError(`${file} has no manifest, so what its results were made with is unknown; only folders written by crow eval with manifests can be merged.`);
    if (manifest) {
      const found = differences(manifest, read.manifest, { shards: true });
      if (found.length > 0) throw new MergeError(`${file} was made differently from ${inputs[0]}:\n  - ${found.join('\n  - ')}\nMerge only results of the same settings, tasks and agents.`);
      manifest = extended(manifest, read.manifest);
    } else {
      manifest = read.manifest;
    }
    if (read.manifest.shard) {
      if (shards.has(read.manifest.shard.index)) throw new MergeError(`Shard ${read.manifest.shard.index}/${read.manifest.shard.count} is given twice (again in ${file}).`);
      shards.add(read.manifest.shard.index);
    }
    for (const result of read.results) {
      const key = keyOf(result);
      const owner = owners.get(key);
      if (owner !== undefined) throw new MergeError(`${result.task} · ${result.agent} #${result.repeat} is in both ${owner} and ${file}: merge folders that hold different runs.`);
      owners.set(key, file);
      results.push(result);
    }
  }
  const { shard, ...whole } = manifest!;
  const count = shard?.count;
  const missing = count === undefined ? [] : Array.from({ length: count }, (_, i) => i).filter((i) => !shards.has(i));
  return {
    manifest: whole,
    results,
    ...(missing.length > 0 ? { note: `Shards ${missing.join(', ')} of ${count} are missing from this merge: their runs are not in the report.` } : {}),
  };
}

/** Copies each input's runs/ folder (diffs, check logs) into `out`. */
export function copyArtifacts(inputs: readonly string[], out: string): void {
  mkdirSync(out, { recursive: true });
  for (const input of inputs) {
    const runs = join(dirname(resultsFile(input)), 'runs');
    if (existsSync(runs)) cpSync(runs, join(out, 'runs'), { recursive: true });
  }
}

export function writeMerged(out: string, merged: Merged): void {
  mkdirSync(out, { recursive: true });
  const file = join(out, RESULTS_FILE);
  if (existsSync(file)) throw new MergeError(`${file} exists already: merge into a new folder.`);
  writeFileSync(file, [merged.manifest, ...merged.results].map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
}

function resultsFile(input: string): string {
  const file = existsSync(input) && statSync(input).isDirectory() ? join(input, RESULTS_FILE) : input;
  if (!existsSync(file)) throw new MergeError(`${input} holds no ${RESULTS_FILE}${basename(input) === RESULTS_FILE ? '' : ` (looked for ${file})`}: name evaluation folders written by crow eval.`);
  return file;
}
