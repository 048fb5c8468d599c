/**
 * What a background run of attempts keeps so the person can pick one
 * later, after its worktrees are gone: beside the run's record
 * (background-records.ts, 0700 folder, 0600 files) `attempts.json` (the
 * base commit, the ranking, the judge, each attempt's summary, check,
 * cost and files) and one `attempt-N.patch` per attempt that changed
 * something, up to MAX_KEPT_PATCH_BYTES each (past it the attempt is kept
 * without its patch, saying so). `attempts-applied.json` says which one
 * was applied: made once (O_EXCL), so a second apply is refused.
 *
 * All of it is read back as hostile input (anything may have been put in
 * the folder): the files are read only when plain (no symlink) and small
 * enough, the result only when well formed; the files a patch touches are
 * read from the patch itself by git, never from attempts.json, and
 * applying goes through apply-attempt.ts's path checks.
 */
import type { RunStatus } from '../engine/events';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { backgroundFolder, createRunFile, readRunFile, removeRunFile, writeRunFile } from '../host/background-records';
import type { AttemptChanges, PatchTarget } from './attempt-trees';
import type { AttemptsResult } from './best-of';
import type { Ranked } from './judge';
import type { RankedAttempts } from './ranking-table';

export const KEPT_RESULT = 'attempts.json';
export const KEPT_APPLIED = 'attempts-applied.json';
/** An attempt's patch past this is not kept (nor read back). */
export const MAX_KEPT_PATCH_BYTES = 16 * 1024 * 1024;
/** attempts.json: summaries and check tails of at most 16 attempts. */
const MAX_RESULT_BYTES = 4 * 1024 * 1024;
const STATUSES: readonly RunStatus[] = ['completed', 'needs_input', 'error', 'limit', 'budget', 'cancelled'];

export function patchFileName(n: number): string {
  return `attempt-${n}.patch`;
}

export interface KeptAttempt {
  n: number;
  status: RunStatus;
  summary: string;
  tokens: number;
  costUsd?: number;
  check?: { passed: boolean; output: string };
  /** What it changed, as the run read it (shown only: applying reads the patch itself). */
  files: AttemptChanges['files'];
  sessionId: string;
  /** Whether its patch is kept beside this file ("none": it changed nothing; "too-large": past MAX_KEPT_PATCH_BYTES). */
  patch: 'kept' | 'none' | 'too-large';
  patchBytes: number;
}

export interface KeptAttempts {
  /** The commit the attempts started from (HEAD plus the person's uncommitted work then). */
  base: string;
  ranking: Ranked[];
  judge: AttemptsResult['judge'];
  costUsd?: number;
  attempts: KeptAttempt[];
}

/** Keeps `result` beside run `id`'s record: its patches first, then attempts.json (so a result never names a patch not yet written). */
export function keepAttempts(data: string, id: string, result: AttemptsResult): KeptAttempts {
  const attempts = result.attempts.map((attempt): KeptAttempt => {
    const bytes = Buffer.byteLength(attempt.changes.patch);
    const patch = attempt.changes.files.length === 0 || bytes === 0 ? 'none' : bytes > MAX_KEPT_PATCH_BYTES ? 'too-large' : 'kept';
    if (patch === 'kept') writeRunFile(data, id, patchFileName(attempt.n), attempt.changes.patch);
    const { n, status, summary, tokens, costUsd, check, sessionId } = attempt;
    return { n, status, summary, tokens, ...(costUsd !== undefined ? { costUsd } : {}), ...(check ? { check } : {}), files: attempt.changes.files, sessionId, patch, patchBytes: bytes };
  });
  const kept: KeptAttempts = { base: result.trees.base, ranking: result.ranking, judge: result.judge, ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}), attempts };
  writeRunFile(data, id, KEPT_RESULT, `${JSON.stringify(kept)}\n`);
  return kept;
}

/** Run `id`'s kept result; undefined when it kept none (not attempts, or from before runs kept them); why not when it does not read. */
export function readKept(data: string, id: string): KeptAttempts | { problem: string } | undefined {
  const read = readRunFile(data, id, KEPT_RESULT, MAX_RESULT_BYTES);
  if (read.problem === 'missing') return undefined;
  if (read.problem !== undefined) return { problem: `its ${KEPT_RESULT} ${read.problem}` };
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch {
    return { problem: `its ${KEPT_RESULT} is not valid JSON` };
  }
  const kept = keptOf(value);
  return typeof kept === 'string' ? { problem: `its ${KEPT_RESULT} ${kept}` } : kept;
}

/** Whether run `id` kept a result (a plain file; whether it reads is readKept's). */
export function keptExists(data: string, id: string): boolean {
  try {
    return lstatSync(join(backgroundFolder(data, id), KEPT_RESULT)).isFile();
  } catch {
    return false;
  }
}

/** The kept result as a ranking table reads it (no patches, no worktrees). */
export function keptRanking(kept: KeptAttempts): RankedAttempts {
  return {
    ranking: kept.ranking,
    judge: kept.judge,
    ...(kept.costUsd !== undefined ? { costUsd: kept.costUsd } : {}),
    attempts: kept.attempts.map(({ n, status, summary, tokens, costUsd, check, files, sessionId }) => ({
      n,
      tree: '',
      sessionId,
      status,
      summary,
      tokens,
      ...(costUsd !== undefined ? { costUsd } : {}),
      ...(check ? { check } : {}),
      changes: { patch: '', files },
    })),
  };
}

/** The attempts that changed something, best first: those a person may pick. */
export function pickable(kept: KeptAttempts): number[] {
  const byN = new Map(kept.attempts.map((attempt) => [attempt.n, attempt]));
  return kept.ranking.map((ranked) => ranked.n).filter((n) => byN.get(n)?.patch !== 'none');
}

/** Which attempt of run `id` was applied, if one was. */
export function keptApplied(data: string, id: string): { n: number; at: number } | undefined {
  const read = readRunFile(data, id, KEPT_APPLIED, 4096);
  if (read.problem !== undefined) return undefined;
  try {
    const { n, at } = JSON.parse(read.text) as Record<string, unknown>;
    return Number.isInteger(n) && typeof at === 'number' ? { n: n as number, at } : { n: 0, at: 0 };
  } catch {
    // Something is there, but not ours: still taken as applied (a second apply is refused).
    return { n: 0, at: 0 };
  }
}

/**
 * Attempt `n`'s changes, read to be applied to `target`: its patch (plain
 * file, within the cap) and the files git reads in it. An Error saying
 * why not, in words for the person: no such attempt, it changed nothing,
 * its patch was too large to keep, or its file does not read.
 */
export async function keptChanges(data: string, id: string, kept: KeptAttempts, n: number, target: PatchTarget): Promise<AttemptChanges> {
  const attempt = kept.attempts.find((one) => one.n === n);
  if (!attempt) throw new Error(`There is no attempt ${n}: the run had ${kept.attempts.map((one) => one.n).join(', ')}.`);
  if (attempt.patch === 'none') throw new Error(`Attempt ${n} changed nothing: there is nothing of it to apply.`);
  if (attempt.patch === 'too-large') {
    throw new Error(`Attempt ${n}'s changes (${mib(attempt.patchBytes)}) were past the ${mib(MAX_KEPT_PATCH_BYTES)} a background run keeps, so they were not kept: run the prompt again in the foreground (crow run --attempts N --keep-worktrees) to pick it.`);
  }
  const read = readRunFile(data, id, patchFileName(n), MAX_KEPT_PATCH_BYTES);
  if (read.problem !== undefined) throw new Error(`Attempt ${n}'s kept patch (${patchFileName(n)}) ${read.problem === 'missing' ? 'is missing' : read.problem}, so nothing was applied.`);
  const files = await target.patchFiles(read.text);
  if (files.length === 0) throw new Error(`Attempt ${n}'s kept patch changes nothing: there is nothing of it to apply.`);
  return { patch: read.text, files };
}

/** Claims run `id` as applied with attempt `n` (once: false when one was already); `release` undoes the claim when the apply fails. */
export function claimApplied(data: string, id: string, n: number): boolean {
  return createRunFile(data, id, KEPT_APPLIED, `${JSON.stringify({ n, at: Date.now() })}\n`);
}

export function releaseApplied(data: string, id: string): void {
  removeRunFile(data, id, KEPT_APPLIED);
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** attempts.json checked field by field; a sentence saying what is wrong otherwise. */
function keptOf(value: unknown): KeptAttempts | string {
  if (!isObject(value)) return 'is not a JSON object';
  const { base, ranking, judge, costUsd, attempts } = value;
  if (typeof base !== 'string' || !/^[0-9a-f]{40,64}$/.test(base)) return 'has no base commit';
  if (!Array.isArray(attempts) || attempts.length === 0 || attempts.length > 16) return 'has no attempts';
  const read: KeptAttempt[] = [];
  for (const attempt of attempts) {
    const one = attemptOf(attempt);
    if (typeof one === 'string') return one;
    if (read.some((other) => other.n === one.n)) return `names attempt ${one.n} twice`;
    read.push(one);
  }
  if (!Array.isArray(ranking) || ranking.length !== read.length) return 'has no ranking of every attempt';
  const ranked: Ranked[] = [];
  for (const entry of ranking) {
    if (!isObject(entry) || !read.some((one) => one.n === entry['n']) || typeof entry['reason'] !== 'string' || ranked.some((other) => other.n === entry['n'])) return 'has a ranking that does not name each attempt once';
    ranked.push({ n: entry['n'] as number, reason: entry['reason'] });
  }
  if (!isObject(judge) || typeof judge['agent'] !== 'string' || typeof judge['used'] !== 'boolean' || (judge['used'] === false && typeof judge['why'] !== 'string')) return 'has no judge';
  const judged = (judge['used'] ? { agent: judge['agent'], used: true } : { agent: judge['agent'], used: false, why: judge['why'] as string }) as AttemptsResult['judge'];
  if (costUsd !== undefined && !isNumber(costUsd)) return 'has a bad cost';
  return { base, ranking: ranked, judge: judged, ...(costUsd !== undefined ? { costUsd: costUsd as number } : {}), attempts: read };
}

function attemptOf(value: unknown): KeptAttempt | string {
  if (!isObject(value)) return 'has an attempt that is not an object';
  const { n, status, summary, tokens, costUsd, check, files, sessionId, patch, patchBytes } = value;
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 16) return 'has an attempt without a number from 1 to 16';
  if (!STATUSES.includes(status as RunStatus) || typeof summary !== 'string' || !isNumber(tokens) || typeof sessionId !== 'string') return `has attempt ${n} without its status, summary, tokens or session`;
  if (costUsd !== undefined && !isNumber(costUsd)) return `has a bad cost for attempt ${n}`;
  if (check !== undefined && !(isObject(check) && typeof check['passed'] === 'boolean' && typeof check['output'] === 'string')) return `has a bad check for attempt ${n}`;
  if (!Array.isArray(files) || !files.every((file) => isObject(file) && typeof file['path'] === 'string' && isNumber(file['added']) && isNumber(file['removed']))) return `has bad files for attempt ${n}`;
  if (patch !== 'kept' && patch !== 'none' && patch !== 'too-large') return `says nothing of attempt ${n}'s patch`;
  if (!isNumber(patchBytes)) return `has no patch size for attempt ${n}`;
  return {
    n: n as number,
    status: status as RunStatus,
    summary,
    tokens: tokens as number,
    ...(costUsd !== undefined ? { costUsd: costUsd as number } : {}),
    ...(check !== undefined ? { check: check as KeptAttempt['check'] & object } : {}),
    files: (files as Record<string, unknown>[]).map((file) => ({ path: file['path'] as string, added: file['added'] as number, removed: file['removed'] as number })),
    sessionId,
    patch,
    patchBytes: patchBytes as number,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}
