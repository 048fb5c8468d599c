/**
 * `crow attempts k8s`: parallel attempts as Kubernetes pods, the way
 * `crow eval k8s` runs an evaluation (src/eval/attempts-job.ts). It writes
 * the Job; `crow attempts k8s pod I` is what pod I runs (attempt I+1 from
 * the run's Secret, its outcome printed as a block at the end); `crow
 * attempts k8s collect` reads the pods' blocks back into this folder,
 * where the judge ranks them and the chosen one is applied as `crow run
 * --attempts` applies one (attempts-command.ts: through the folder's
 * session, so `crow undo` takes it back).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { AttemptsError, AttemptTrees, checkoutBundle, runFolderName } from '../../attempts/attempt-trees';
import { type AttemptOutcome, rankAttempts, runAttempt } from '../../attempts/best-of';
import { shareLimits } from '../../attempts/share-limits';
import { resolveSettings } from '../../config/provider-config';
import { attemptLines, attemptsJobYaml, BUNDLE_FILE, bundleRecord, joinedBundle, type PodAttemptsTask, readAttemptBlock, RUN_FOLDER, SecretTooLarge, TASK_FILE, taskOfSecret } from '../../eval/attempts-job';
import { PUBLIC_HTTPS } from '../../eval/k8s-job';
import { errorText } from '../../vocabulary/text';
import { showAndApply } from './attempts-command';
import { progressLine } from './attempts-lines';
import { commandArgs, positiveInteger, workspaceFolder } from './cli-args';
import { type CliIO, UsageError } from './cli-io';
import { egressOf, JOB_OPTIONS, jobLogs, quantity } from './eval-k8s-command';
import { openRunSession, type RunChoices } from './run-setup';

export const ATTEMPTS_K8S_HELP = `Usage: crow attempts k8s --image NAME --attempts N [options] "<prompt>"
       crow attempts k8s collect --file JOB.yaml [--job NAME] [--namespace NS] [--apply-best] [LOG…]

Runs the prompt as N attempts in Kubernetes pods, as crow run --attempts N
runs them in git worktrees here: writes a Secret holding the prompt and
your files as they are (HEAD plus uncommitted work, as one git bundle
without history, up to 7.5 MiB over several Secrets), an Indexed Job of N pods and the
NetworkPolicy they run under. Pod i runs attempt i+1 with --check, then
prints its patch, summary, check and cost to its log. Each pod runs as
user 10001 with no capabilities and no service-account token, within its
CPU, memory and disk, the keys from a Secret (never in the file), and
egress only to DNS and the model's endpoint; in the pod, the attempt may
write and run commands (the pod is its sandbox).

collect reads the logs of the Job's succeeded pods (through kubectl, or
log files saved by hand) in the folder the Job was written from, ranks the
attempts with the judge (the agent's reviewer, else judge-attempts; or
--judge) and applies the one you pick, or the best with --apply-best, as
a prompt of this folder's session: crow undo takes it back. A log whose
block was cut, altered or is of another run is named and left out.

Options:
  --image NAME       an image with crow on PATH (eval/container/Containerfile)
  --attempts N       how many attempts (pods), 2 to 16
  --parallelism P    pods at once (default: N)
  --agent NAME       the agent each attempt runs (default: the folder's)
  --provider NAME    the default provider; --model NAME its model
  --check CMD        a command run in each attempt's files when it ends
                     (exit 0 passes); failed ones rank last
  --max-cost USD     shared by the attempts and the judge, as with --attempts
  --max-tokens N     the same, in tokens
  --name NAME        the Job's name (default crow-attempts)
  --secret NAME      the Secret holding the provider keys (default crow-attempts-keys)
  --cpu Q, --memory Q, --disk Q, --egress CIDR,…, --egress-port N, --retries N
                     as for crow eval k8s (defaults 1, 2Gi, 4Gi, public HTTPS, 443, 1)
  --file PATH        write the YAML there instead of to stdout
  --cwd DIR          the repository's top folder (default: the current folder)
collect:
  --file PATH        the YAML crow attempts k8s wrote (the run it collects)
  --job NAME         the Job whose pods to read (default: the one in the file)
  --judge AGENT      the agent that ranks them
  --apply-best       apply the best without asking, if it finished and passed
  --json             the result as a JSON line`;

/** Attempts in one Job at most. */
const MAX_POD_ATTEMPTS = 16;

const MANIFEST_OPTIONS = {
  ...JOB_OPTIONS,
  attempts: { type: 'string' },
  agent: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  check: { type: 'string' },
  'max-cost': { type: 'string' },
  'max-tokens': { type: 'string' },
  cwd: { type: 'string' },
} as const;

export async function attemptsCommand(argv: string[], io: CliIO): Promise<number> {
  const [family, sub, ...rest] = argv;
  if (family === undefined || family === '--help' || family === '-h') return help(io);
  if (family !== 'k8s') throw new UsageError(`crow attempts has one family of commands, k8s: crow attempts k8s --help. (Attempts here: crow run --attempts N.)`);
  if (sub === 'pod') return podCommand(rest, io);
  if (sub === 'collect') return collectCommand(rest, io);
  return manifestCommand(argv.slice(1), io);
}

async function manifestCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('attempts k8s', argv, MANIFEST_OPTIONS);
  if (values.help) return help(io);
  if (values.image === undefined) throw new UsageError('crow attempts k8s needs --image NAME: an image with crow on PATH that the pods run.');
  const count = positiveInteger('--attempts', values.attempts);
  if (count < 2 || count > MAX_POD_ATTEMPTS) throw new UsageError(`--attempts must be from 2 to ${MAX_POD_ATTEMPTS}, got ${count}.`);
  if (positionals.length !== 1 || positionals[0]!.trim() === '') throw new UsageError('crow attempts k8s takes the prompt as one argument: crow attempts k8s --image NAME --attempts 3 "Fix the failing test"');
  if (values.check !== undefined && values.check.trim() === '') throw new UsageError('--check needs a command, e.g. --check "npm test".');
  const name = values.name ?? 'crow-attempts';
  if (!/^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/.test(name)) throw new UsageError(`--name "${name}" is not a Kubernetes name: lower-case letters, digits and "-", at most 42 characters.`);
  const retries = values.retries === undefined ? 1 : Number(values.retries);
  if (!Number.isInteger(retries) || retries < 0) throw new UsageError(`--retries must be 0 or more, got "${values.retries}".`);
  const root = workspaceFolder(io.cwd, values.cwd);
  const settings = resolveSettings(root, { ...(values.provider !== undefined ? { provider: values.provider } : {}) }, io.env, { trusted: false });
  const limits = shareLimits(
    {
      ...(values['max-cost'] !== undefined ? { maxCostPerPrompt: dollars(values['max-cost']) } : {}),
      ...(values['max-tokens'] !== undefined ? { maxTokensPerPrompt: positiveInteger('--max-tokens', values['max-tokens']) } : {}),
    },
    count,
  );
  const job = {
    name,
    image: values.image,
    parallelism: positiveInteger('--parallelism', values.parallelism, count),
    retries,
    secretVariables: settings.providers[settings.provider]?.apiKeyEnv ? [settings.providers[settings.provider]!.apiKeyEnv!] : [],
    secret: values.secret ?? 'crow-attempts-keys',
    cpu: quantity('--cpu', values.cpu ?? '1'),
    memory: quantity('--memory', values.memory ?? '2Gi'),
    disk: quantity('--disk', values.disk ?? '4Gi'),
    egress: values.egress === undefined && values['egress-port'] === undefined ? PUBLIC_HTTPS : egressOf(values.egress, values['egress-port']),
  };
  const { bundle, baseTree } = await bundled(root, io.env);
  const task: PodAttemptsTask = {
    version: 1,
    run: randomBytes(8).toString('hex'),
    prompt: positionals[0]!,
    count,
    baseTree,
    bundle: bundleRecord(bundle),
    ...(values.agent !== undefined ? { agent: values.agent } : {}),
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values.check !== undefined ? { check: values.check } : {}),
    limits,
  };
  let yaml: string;
  try {
    yaml = attemptsJobYaml(task, bundle, job);
  } catch (err) {
    if (err instanceof SecretTooLarge) throw new UsageError(err.message);
    throw err;
  }
  if (values.file === undefined) io.stdout.write(yaml);
  else {
    const file = resolve(io.cwd, values.file);
    writeFileSync(file, yaml, { mode: 0o600 });
    // It holds your code: yours alone, also when the file was there before.
    chmodSync(file, 0o600);
    io.stderr.write(`Wrote the Job of ${count} attempts (run ${task.run}) to ${values.file}: kubectl apply -f ${values.file}, then crow attempts k8s collect --file ${values.file}\n`);
  }
  return 0;
}

/** The base of the attempts (HEAD plus uncommitted work) as a bundle, and its tree. */
async function bundled(root: string, env: NodeJS.ProcessEnv): Promise<{ bundle: Buffer; baseTree: string }> {
  let trees: AttemptTrees;
  try {
    trees = await AttemptTrees.prepare(root, env, runFolderName());
  } catch (err) {
    if (err instanceof AttemptsError) throw new UsageError(err.message);
    throw err;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'crow-attempts-k8s-'));
  try {
    await trees.bundle(join(scratch, BUNDLE_FILE));
    return { bundle: readFileSync(join(scratch, BUNDLE_FILE)), baseTree: await trees.baseTree() };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await trees.removeAll();
  }
}

/**
 * One pod's work: attempt INDEX+1 of the run in `--from` (the mounted
 * Secret), in a git worktree of the bundle's files, its outcome printed as
 * a block on stdout at the end (its progress on stderr). Exits 0 once the
 * block is printed, however the attempt went (it ranks by that); 1 when
 * the run's files cannot be set up, so the Job tries again.
 */
async function podCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('attempts k8s pod', argv, { from: { type: 'string' } });
  if (values.help) return help(io);
  const index = Number(positionals[0]);
  if (positionals.length !== 1 || !Number.isInteger(index) || index < 0) throw new UsageError(`crow attempts k8s pod takes the pod's index (0 or more), got "${positionals.join(' ')}".`);
  const from = values.from ?? RUN_FOLDER;
  const task = taskOfSecret({ data: { [TASK_FILE]: readFileSync(join(from, TASK_FILE)).toString('base64') } });
  if ('problem' in task) throw new UsageError(`${join(from, TASK_FILE)}: ${task.problem}`);
  const n = index + 1;
  if (n > task.count) throw new UsageError(`The run has ${task.count} attempts; there is no pod ${index}.`);
  const work = mkdtempSync(join(io.env.TMPDIR || tmpdir(), `crow-attempt-${n}-`));
  try {
    const repo = join(work, 'repo');
    let bundle: Buffer;
    try {
      bundle = joinedBundle(from, task);
    } catch (err) {
      throw new UsageError(errorText(err));
    }
    writeFileSync(join(work, BUNDLE_FILE), bundle, { mode: 0o600 });
    await checkoutBundle(join(work, BUNDLE_FILE), repo, io.env);
    const trees = await AttemptTrees.prepare(repo, io.env, runFolderName());
    if ((await trees.baseTree()) !== task.baseTree) throw new UsageError(`The bundle in ${from} does not hold the files of run ${task.run}.`);
    const run: RunChoices = {
      root: repo,
      overrides: { ...(task.provider !== undefined ? { provider: task.provider } : {}), ...(task.model !== undefined ? { model: task.model } : {}) },
      ...(task.agent !== undefined ? { agent: task.agent } : {}),
      // The pod is the attempt's sandbox: it writes and runs commands without asking (nobody could answer).
      allow: 'write,execute',
      limits: task.limits,
      undo: false,
      interactive: false,
    };
    const outcome = await runAttempt(
      {
        root: repo,
        env: io.env,
        prompt: task.prompt,
        count: task.count,
        concurrency: 1,
        ...(task.check !== undefined ? { check: task.check } : {}),
        signal: new AbortController().signal,
        openAttempt: (tree) => openRunSession({ ...run, root: tree }, io),
        openJudge: () => Promise.reject(new Error('a pod runs no judge')),
        progress: (event) => {
          const line = progressLine(event);
          if (line !== undefined) io.stderr.write(`${line}\n`);
        },
      },
      trees,
      n,
    ).catch((err: unknown): AttemptOutcome => ({ n, tree: '', sessionId: '', status: 'error', summary: `The attempt could not run: ${errorText(err)}`, tokens: 0, changes: { patch: '', files: [] } }));
    await trees.removeAll();
    const { status, summary, tokens, costUsd, changes, check } = outcome;
    for (const line of attemptLines({ run: task.run, n, baseTree: task.baseTree, status, summary, tokens, ...(costUsd !== undefined ? { costUsd } : {}), patch: changes.patch, ...(check ? { check } : {}) })) io.stdout.write(line);
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function collectCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('attempts k8s collect', argv, {
    file: { type: 'string' },
    job: { type: 'string' },
    namespace: { type: 'string' },
    judge: { type: 'string' },
    'apply-best': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    cwd: { type: 'string' },
  });
  if (values.help) return help(io);
  if (values.file === undefined) throw new UsageError('crow attempts k8s collect needs --file PATH: the YAML crow attempts k8s wrote, which names the run.');
  if (values.job !== undefined && positionals.length > 0) throw new UsageError('crow attempts k8s collect reads the pods of the Job, or log files: give --job or files, not both.');
  const { task, job } = runOfFile(resolve(io.cwd, values.file));
  const logs = positionals.length > 0 ? positionals.map((file) => ({ from: file, log: readFileSync(resolve(io.cwd, file), 'utf8') })) : await jobLogs(values.job ?? job, values.namespace, io);
  const root = workspaceFolder(io.cwd, values.cwd);
  let trees: AttemptTrees;
  try {
    trees = await AttemptTrees.prepare(root, io.env, runFolderName());
  } catch (err) {
    if (err instanceof AttemptsError) throw new UsageError(err.message);
    throw err;
  }
  const blocks = new Map<number, AttemptOutcome>();
  for (const { from, log } of logs) {
    const block = readAttemptBlock(log, task);
    if ('problem' in block) {
      io.stderr.write(`crow: ${from}: ${block.problem}; it is left out.\n`);
      continue;
    }
    const files = await trees.patchFiles(block.patch).catch((err: unknown) => err as Error);
    if (files instanceof Error) {
      io.stderr.write(`crow: ${from}: ${files.message}; it is left out.\n`);
      continue;
    }
    if (blocks.has(block.n)) io.stderr.write(`crow: ${from} holds attempt ${block.n} again: the later one is kept.\n`);
    const { n, status, summary, tokens, costUsd, patch, check } = block;
    blocks.set(n, { n, tree: '', sessionId: '', status, summary, tokens, ...(costUsd !== undefined ? { costUsd } : {}), changes: { patch, files }, ...(check ? { check } : {}) });
  }
  if (blocks.size === 0) {
    await trees.removeAll();
    throw new UsageError(`No log held an attempt of run ${task.run}: nothing to rank (see the lines above).`);
  }
  if ((await trees.baseTree()) !== task.baseTree) io.stderr.write('Your files changed since the Job was written: an attempt applies only where its changes still fit them.\n');
  const attempts = Array.from({ length: task.count }, (_, i) => blocks.get(i + 1) ?? missing(i + 1));
  const run: RunChoices = {
    root,
    overrides: { ...(task.provider !== undefined ? { provider: task.provider } : {}), ...(task.model !== undefined ? { model: task.model } : {}) },
    ...(task.agent !== undefined ? { agent: task.agent } : {}),
    undo: true,
    interactive: false,
  };
  const signal = new AbortController().signal;
  const definition = await agentDefinition(run, io);
  const ranked = await rankAttempts(
    {
      prompt: task.prompt,
      ...(values.judge !== undefined ? { judge: values.judge } : {}),
      signal,
      openJudge: (judge) => openRunSession({ ...run, agent: judge, limits: task.limits, undo: false }, io),
      progress: (event) => {
        const line = values.json ? undefined : progressLine(event);
        if (line !== undefined) io.stderr.write(`${line}\n`);
      },
    },
    attempts,
    definition,
  );
  return showAndApply({ ...ranked, trees }, run, { count: task.count, applyBest: values['apply-best'], keep: false, json: values.json }, io, signal);
}

/** The run's task and the Job's name, from the YAML crow attempts k8s wrote. */
function runOfFile(file: string): { task: PodAttemptsTask; job: string } {
  let documents: Record<string, unknown>[];
  try {
    documents = parseAllDocuments(readFileSync(file, 'utf8')).map((document) => document.toJS() as Record<string, unknown>);
  } catch (err) {
    throw new UsageError(`${file} cannot be read as the Job's YAML: ${errorText(err)}`);
  }
  const secret = documents.find((document) => document?.['kind'] === 'Secret' && typeof (document['data'] as Record<string, unknown> | undefined)?.[TASK_FILE] === 'string');
  const job = documents.find((document) => document?.['kind'] === 'Job') as { metadata?: { name?: unknown } } | undefined;
  const task = taskOfSecret(secret);
  if ('problem' in task) throw new UsageError(`${file}: ${task.problem}`);
  if (typeof job?.metadata?.name !== 'string') throw new UsageError(`${file} holds no Job: is it a file crow attempts k8s wrote?`);
  return { task, job: job.metadata.name };
}

/** The attempts' agent as this folder defines it (its reviewer judges), read from a session that runs nothing. */
async function agentDefinition(run: RunChoices, io: CliIO) {
  const host = await openRunSession({ ...run, undo: false }, io);
  try {
    return await host.definition();
  } finally {
    await host.close();
  }
}

function missing(n: number): AttemptOutcome {
  return { n, tree: '', sessionId: '', status: 'error', summary: 'No result from its pod (it failed, or its log was left out: see above).', tokens: 0, changes: { patch: '', files: [] } };
}

function dollars(value: string): number {
  const amount = Number(value.replace(/^\$/, ''));
  if (value.trim() === '' || !Number.isFinite(amount) || amount <= 0) throw new UsageError(`--max-cost must be a positive amount of US dollars, e.g. 0.50, got "${value}"`);
  return amount;
}

function help(io: CliIO): number {
  io.stdout.write(`${ATTEMPTS_K8S_HELP}\n`);
  return 0;
}
