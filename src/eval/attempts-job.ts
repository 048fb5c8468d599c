/**
 * Parallel attempts as a Kubernetes Indexed Job (`crow attempts k8s`), on
 * the machinery of `crow eval k8s` (k8s-job.ts, log-blocks.ts): pod i runs
 * attempt i+1 of the prompt from the files as they were when the Job was
 * written, and prints its outcome (patch, summary, check, cost) as a block
 * in its log; collect reads the blocks back here, where the judge ranks
 * them and the person applies one.
 *
 * What the pods start from travels in a Secret written beside the Job: the
 * run (task.json: its id, the prompt, the agent and its options, the tree
 * the attempts start from) and the files (a git bundle of one commit
 * without history, in parts base.bundle.0, .1, …). Secrets, not
 * ConfigMaps, since they hold the person's code; either holds at most
 * 1 MiB, so the bundle is cut into parts, one Secret each, all mounted in
 * one folder; past BUNDLE_PARTS parts the repository is refused with what
 * to do. The provider keys never go in it: the pods take
 * them from the person's own Secret by reference, as eval's pods do.
 *
 * A block is read as hostile (model-written code ran in that pod): it is
 * taken only whole (length and SHA-256), of this run (its id and base
 * tree) and of an attempt the Job has, with fields of the right types and
 * sizes; the files a patch touches are then read from the patch itself.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Limits } from '../config/settings';
import type { RunStatus } from '../engine/events';
import { stringify } from 'yaml';
import { indexedJob, podNetworkPolicy, type PodJob } from './k8s-job';
import { type BlockKind, blockLines, readLastBlock } from './log-blocks';

/** Where the pods find the run's Secret. */
export const RUN_FOLDER = '/crow-run';
export const TASK_FILE = 'task.json';
/** Part i of the bundle is the file `base.bundle.i`. */
export const BUNDLE_FILE = 'base.bundle';
/**
 * The most a Secret may hold: "Individual secrets are limited to 1MiB in
 * size" (kubernetes.io/docs/concepts/configuration/secret, Restrictions);
 * the API server refuses a larger object. Counted on the object as sent.
 */
export const SECRET_BYTES = 1024 * 1024;
/** Bytes of bundle per Secret (4/3 of it in base64), leaving room for task.json and the Secret's own fields. */
const PART_BYTES = 640 * 1024;
/** Secrets of one run at most: a bundle of up to 7.5 MiB. */
export const BUNDLE_PARTS = 12;

/** The run every pod of the Job does a part of, and collect reads back from the manifest. */
export interface PodAttemptsTask {
  version: 1;
  /** 16 hex digits: what makes a block this run's. */
  run: string;
  prompt: string;
  count: number;
  /** The tree of the files the attempts start from (HEAD and your uncommitted work), checked in the pods and at collect. */
  baseTree: string;
  /** How many parts the bundle is cut into, and the whole bundle's SHA-256, checked by the pods. */
  bundle: { parts: number; sha256: string };
  agent?: string;
  provider?: string;
  model?: string;
  check?: string;
  /** Each attempt's share of the limits (shareLimits). */
  limits: Limits;
}

/** What a pod prints of its attempt. */
export interface PodAttemptOutcome {
  run: string;
  n: number;
  baseTree: string;
  status: RunStatus;
  summary: string;
  tokens: number;
  costUsd?: number;
  patch: string;
  check?: { passed: boolean; output: string };
}

const PATCH_BYTES = 64 * 1024 * 1024;
const ATTEMPT_BLOCK: BlockKind = { mark: 'crow-attempt', id: /[0-9a-f]{16}\/\d+/, compressedBytes: PATCH_BYTES, uncompressedBytes: 2 * PATCH_BYTES };
const STATUSES: readonly RunStatus[] = ['completed', 'needs_input', 'limit', 'budget', 'cancelled', 'error'];
/** Characters of a summary and of a check's output kept from a block. */
const SUMMARY_CHARS = 4_000;
const OUTPUT_CHARS = 4_000;

/** The Job's settings that are not the run's: eval k8s's flags. */
export type AttemptsJobOptions = Omit<PodJob, 'app' | 'container' | 'completions' | 'args' | 'files'>;

/**
 * The Secret, the Job and its NetworkPolicy as YAML, with a comment saying
 * how to run them and collect; a SecretTooLarge when the Secret would be
 * over what Kubernetes takes.
 */
export function attemptsJobYaml(task: PodAttemptsTask, bundle: Buffer, options: AttemptsJobOptions): string {
  const parts = bundleParts(bundle);
  const secrets = parts.map((part, i) => runSecret(options.name, i, { ...(i === 0 ? { [TASK_FILE]: Buffer.from(JSON.stringify(task)) } : {}), [`${BUNDLE_FILE}.${i}`]: part }));
  const job: PodJob = {
    ...options,
    app: 'crow-attempts',
    container: 'crow-attempt',
    completions: task.count,
    args: ['attempts', 'k8s', 'pod', '$(JOB_COMPLETION_INDEX)', '--from', RUN_FOLDER],
    files: { secrets: secrets.map((secret) => secret.metadata.name), path: RUN_FOLDER },
  };
  const head = [
    `# crow attempts as a Kubernetes Indexed Job: ${task.count} attempts (run ${task.run}), ${options.parallelism} at a time, each ${options.cpu} CPU, ${options.memory} of memory and ${options.disk} of disk.`,
    `# The Secrets "${options.name}-run-*" below hold the prompt and your files as the attempts start from them. The keys come from the Secret "${options.secret}":`,
    `#   kubectl create secret generic ${options.secret} ${options.secretVariables.map((name) => `--from-literal=${name}="$${name}"`).join(' ') || '--from-literal=NAME=VALUE'}`,
    `#   kubectl apply -f THIS_FILE && kubectl wait --for=condition=complete --timeout=2h job/${options.name}`,
    `# Then rank them and apply one (before the pods are deleted), in the folder this file was written from:`,
    `#   crow attempts k8s collect --file THIS_FILE`,
  ];
  const documents = [...secrets, indexedJob(job), podNetworkPolicy(job)].map((document) => stringify(document));
  return `${head.join('\n')}\n${documents.join('---\n')}`;
}

/** The bundle cut into parts of PART_BYTES; SecretTooLarge past BUNDLE_PARTS. */
function bundleParts(bundle: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < bundle.length || parts.length === 0; at += PART_BYTES) parts.push(bundle.subarray(at, at + PART_BYTES));
  if (parts.length > BUNDLE_PARTS) {
    throw new SecretTooLarge(
      `Your files as the attempts start from them are ${bundle.length} bytes as a git bundle, over the ${BUNDLE_PARTS * PART_BYTES} bytes crow attempts k8s carries to the pods (${BUNDLE_PARTS} Secrets, each under the 1 MiB a Kubernetes Secret holds). ` +
        'Leave large files out (commit them to git LFS, or ignore them in .gitignore), or run the attempts here: crow run --attempts N.',
    );
  }
  return parts;
}

/** Secret `i` of the run, holding `files`; SecretTooLarge when it is over what Kubernetes takes (a very long prompt). */
function runSecret(name: string, i: number, files: Record<string, Buffer>): { metadata: { name: string } } & Record<string, unknown> {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-run-${i}`, labels: { 'app.kubernetes.io/name': 'crow-attempts', 'app.kubernetes.io/instance': name } },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(files).map(([file, bytes]) => [file, bytes.toString('base64')])),
  };
  const size = Buffer.byteLength(JSON.stringify(secret));
  if (size > SECRET_BYTES) throw new SecretTooLarge(`The run's Secret ${secret.metadata.name} would be ${size} bytes, over the ${SECRET_BYTES} bytes (1 MiB) a Kubernetes Secret holds: make the prompt shorter.`);
  return secret;
}

/** The bundle put together again from the parts in `folder`; an Error saying what is wrong when they are not the run's. */
export function joinedBundle(folder: string, task: PodAttemptsTask): Buffer {
  const parts = Array.from({ length: task.bundle.parts }, (_, i) => readFileSync(join(folder, `${BUNDLE_FILE}.${i}`)));
  const bundle = Buffer.concat(parts);
  if (createHash('sha256').update(bundle).digest('hex') !== task.bundle.sha256) throw new Error(`The bundle's parts in ${folder} do not match run ${task.run}'s SHA-256: a Secret of another run is mounted, or one was changed.`);
  return bundle;
}

/** What the task records of a bundle: its parts and SHA-256. */
export function bundleRecord(bundle: Buffer): PodAttemptsTask['bundle'] {
  return { parts: Math.max(1, Math.ceil(bundle.length / PART_BYTES)), sha256: createHash('sha256').update(bundle).digest('hex') };
}

/** The repository's files are more than a Secret holds. */
export class SecretTooLarge extends Error {
  override name = 'SecretTooLarge';
}

/** The pod's outcome as the lines of its block. */
export function attemptLines(outcome: PodAttemptOutcome): string[] {
  return blockLines(ATTEMPT_BLOCK, `${outcome.run}/${outcome.n}`, outcome);
}

/** The last intact block of `log` that is an attempt of `task`'s run, or why there is none. */
export function readAttemptBlock(log: string, task: PodAttemptsTask): PodAttemptOutcome | { problem: string } {
  return readLastBlock(log, ATTEMPT_BLOCK, (id, payload) => checkedOutcome(id, payload, task));
}

function checkedOutcome(id: string, payload: unknown, task: PodAttemptsTask): PodAttemptOutcome | { problem: string } {
  const [run, number] = id.split('/');
  if (run !== task.run) return { problem: `its block is of another run (${run}, not ${task.run}): a log of another Job` };
  const n = Number(number);
  if (!Number.isInteger(n) || n < 1 || n > task.count) return { problem: `its block is of attempt ${number}, which the run does not have (1 to ${task.count})` };
  const value = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const check = value['check'] as { passed?: unknown; output?: unknown } | undefined;
  const wellFormed =
    value['run'] === run &&
    value['n'] === n &&
    typeof value['summary'] === 'string' &&
    typeof value['patch'] === 'string' &&
    typeof value['tokens'] === 'number' &&
    Number.isFinite(value['tokens']) &&
    STATUSES.includes(value['status'] as RunStatus) &&
    (value['costUsd'] === undefined || (typeof value['costUsd'] === 'number' && Number.isFinite(value['costUsd']))) &&
    (check === undefined || (typeof check === 'object' && check !== null && typeof check.passed === 'boolean' && typeof check.output === 'string'));
  if (!wellFormed) return { problem: 'its results block is not one crow wrote' };
  if (value['baseTree'] !== task.baseTree) return { problem: 'its attempt started from other files than the run gave it' };
  return {
    run,
    n,
    baseTree: task.baseTree,
    status: value['status'] as RunStatus,
    summary: (value['summary'] as string).slice(0, SUMMARY_CHARS),
    tokens: Math.max(0, value['tokens'] as number),
    ...(value['costUsd'] !== undefined ? { costUsd: Math.max(0, value['costUsd'] as number) } : {}),
    patch: value['patch'] as string,
    ...(check ? { check: { passed: check.passed as boolean, output: (check.output as string).slice(-OUTPUT_CHARS) } } : {}),
  };
}

/** The run's task read back from the Secret of a manifest (its `data`), or why it is not one. */
export function taskOfSecret(secret: unknown): PodAttemptsTask | { problem: string } {
  const data = (secret as { data?: Record<string, unknown> } | undefined)?.data;
  const encoded = data?.[TASK_FILE];
  if (typeof encoded !== 'string') return { problem: `it holds no Secret with ${TASK_FILE}: is it a file crow attempts k8s wrote?` };
  let task: Partial<PodAttemptsTask>;
  try {
    task = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Partial<PodAttemptsTask>;
  } catch {
    return { problem: `its ${TASK_FILE} is not JSON` };
  }
  const ok =
    task.version === 1 &&
    typeof task.run === 'string' &&
    /^[0-9a-f]{16}$/.test(task.run) &&
    typeof task.prompt === 'string' &&
    Number.isInteger(task.count) &&
    typeof task.baseTree === 'string' &&
    Number.isInteger(task.bundle?.parts) &&
    task.bundle!.parts >= 1 &&
    task.bundle!.parts <= BUNDLE_PARTS &&
    /^[0-9a-f]{64}$/.test(task.bundle?.sha256 ?? '') &&
    typeof task.limits === 'object';
  return ok ? (task as PodAttemptsTask) : { problem: `its ${TASK_FILE} is not one crow attempts k8s wrote (version 1)` };
}
