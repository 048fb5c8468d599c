/**
 * `crow eval k8s`: writes the Job (and its NetworkPolicy) that runs an
 * evaluation on Kubernetes; `crow eval k8s shard I/N` is what each pod
 * runs (one shard, its folder printed to the log at the end); `crow eval
 * k8s collect` reads the pods' logs (through kubectl, or saved log files)
 * into one folder and report, as `crow eval merge` does for shard folders.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveSettings } from '../../config/provider-config';
import { k8sJobYaml, PUBLIC_HTTPS } from '../../eval/k8s-job';
import { readShardBlock, shardLines, writeShardFiles } from '../../eval/shard-stream';
import { commandArgs, positiveInteger } from './cli-args';
import { type CliIO, UsageError } from './cli-io';
import { EVAL_OPTIONS, parseShard } from './eval-options';
import { mergeInto } from './eval-subcommands';

export const K8S_HELP = `Usage: crow eval k8s --image NAME --shards N [--parallelism P] [options] [eval options]
       crow eval k8s collect --out DIR (--job NAME [--namespace NS] | LOG…)

Writes a Kubernetes Indexed Job (YAML) that runs an evaluation as N shards,
and the NetworkPolicy its pods run under: pod i runs one slice of the runs
(crow eval k8s shard i/N, Kubernetes filling in $JOB_COMPLETION_INDEX) with
the eval options given here, at most P at a time, and prints its results to
its log when it ends; no volume is shared. Each pod runs as user 10001 with
no capabilities and no service-account token, within its CPU, memory and
disk, the keys from a Secret, and egress only to DNS and the model's
endpoint.

Options:
  --image NAME           an image with crow on PATH and what the tasks' checks
                         need (eval/container/Containerfile builds one)
  --shards N             how many slices (pods) the evaluation is cut into
  --parallelism P        pods at once (default: N)
  --name NAME            the Job's name (default crow-eval)
  --secret NAME          the Secret holding the provider keys (default crow-eval-keys)
  --cpu Q                CPU each pod requests (default 1)
  --memory Q             memory each pod requests and may use (default 2Gi)
  --disk Q               disk each pod requests and may write (default 4Gi)
  --egress CIDR,…        where pods may connect, besides DNS (default: any public
                         address, no private range or cloud metadata address)
  --egress-port N        the port of those connections (default 443)
  --retries N            tries per shard before it counts as failed (default 2)
  --file PATH            write the YAML there instead of to stdout
  and every option of crow eval but --shard, --out and --backend.

collect: the logs of the Job's succeeded pods (kubectl get pods and kubectl
logs, with --job; or log files saved by hand) into DIR, with report.md and
report.html over all shards. A shard without a succeeded pod, or whose log
was cut or altered, is named; the others are merged.`;

/** The Indexed Job's options, shared by crow eval k8s and crow attempts k8s. */
export const JOB_OPTIONS = {
  image: { type: 'string' },
  parallelism: { type: 'string' },
  name: { type: 'string' },
  secret: { type: 'string' },
  cpu: { type: 'string' },
  memory: { type: 'string' },
  disk: { type: 'string' },
  egress: { type: 'string' },
  'egress-port': { type: 'string' },
  retries: { type: 'string' },
  file: { type: 'string' },
} as const;

const K8S_ONLY = { ...JOB_OPTIONS, shards: { type: 'string' } } as const;

/** A Kubernetes quantity: 500m, 1, 2.5, 2Gi, 512Mi. */
const QUANTITY = /^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

/** What runs an evaluation: crow eval itself (given by eval-command.ts, which dispatches here). */
type RunEval = (argv: string[], io: CliIO) => Promise<number>;

export async function k8sCommand(argv: string[], io: CliIO, runEval: RunEval): Promise<number> {
  if (argv[0] === 'shard') return shardCommand(argv.slice(1), io, runEval);
  if (argv[0] === 'collect') return collectCommand(argv.slice(1), io);
  if (argv.some((arg) => arg === '--attempts' || arg.startsWith('--attempts=') || arg === '--judge' || arg.startsWith('--judge='))) {
    throw new UsageError('crow eval k8s does not run --attempts: a pod has no local worktrees to give the attempts, and the shards would split their pairs. Run crow eval --attempts N in one place.');
  }
  const { values, positionals } = commandArgs('eval k8s', argv, { ...EVAL_OPTIONS, ...K8S_ONLY });
  if (values.help) return help(io);
  if (positionals.length > 0) throw new UsageError(`crow eval k8s takes no argument "${positionals[0]}". Run "crow eval k8s --help" for its options.`);
  if (values.image === undefined) throw new UsageError('crow eval k8s needs --image NAME: an image with crow on PATH that the pods run.');
  if (values.backend !== undefined && values.backend !== 'local') throw new UsageError('In Kubernetes each pod is the container: leave out --backend.');
  const shards = positiveInteger('--shards', values.shards);
  parseShard(`0/${shards}`);
  const parallelism = positiveInteger('--parallelism', values.parallelism, shards);
  const retries = values.retries === undefined ? 2 : Number(values.retries);
  if (!Number.isInteger(retries) || retries < 0) throw new UsageError(`--retries must be 0 or more, got "${values.retries}".`);
  const name = values.name ?? 'crow-eval';
  if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(name)) throw new UsageError(`--name "${name}" is not a Kubernetes name: lower-case letters, digits and "-", at most 52 characters.`);
  const cpu = quantity('--cpu', values.cpu ?? '1');
  const memory = quantity('--memory', values.memory ?? '2Gi');
  const disk = quantity('--disk', values.disk ?? '4Gi');
  const settings = resolveSettings(io.cwd, { ...(values.provider !== undefined ? { provider: values.provider } : {}) }, io.env, { trusted: false });
  const providers = [settings.provider, ...(values['reviewer-provider'] !== undefined ? [values['reviewer-provider']] : [])];
  const keys = [...new Set(providers.flatMap((provider) => settings.providers[provider]?.apiKeyEnv ?? []))];
  const yaml = k8sJobYaml({
    name,
    image: values.image,
    shards,
    parallelism,
    evalArgs: evalArguments(argv),
    secretVariables: keys,
    secret: values.secret ?? 'crow-eval-keys',
    retries,
    cpu,
    memory,
    disk,
    egress: egressOf(values.egress, values['egress-port']),
  });
  if (values.file !== undefined) {
    writeFileSync(resolve(io.cwd, values.file), yaml);
    io.stderr.write(`Wrote the Job to ${values.file}: kubectl apply -f ${values.file}\n`);
  } else {
    io.stdout.write(yaml);
  }
  return 0;
}

/**
 * One pod's work: `crow eval --shard I/N` into the pod's scratch folder
 * (its report on stderr, with its progress), then the folder on stdout.
 * Exits as the evaluation did, so a failed shard is retried by the Job.
 */
async function shardCommand(argv: string[], io: CliIO, runEval: RunEval): Promise<number> {
  const [shard, ...rest] = argv;
  if (shard === undefined || shard === '--help' || shard === '-h') return help(io);
  const { index, count } = parseShard(shard);
  const out = mkdtempSync(join(io.env.TMPDIR || tmpdir(), `crow-eval-shard-${index}-`));
  try {
    const code = await runEval([...rest, '--shard', `${index}/${count}`, '--out', out], { ...io, stdout: io.stderr });
    if (code !== 0) return code;
    for (const line of shardLines(out, `${index}/${count}`)) io.stdout.write(line);
    return 0;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function collectCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('eval k8s collect', argv, { out: { type: 'string' }, job: { type: 'string' }, namespace: { type: 'string' } });
  if (values.help) return help(io);
  if (values.out === undefined) throw new UsageError('crow eval k8s collect needs --out DIR: the folder for the gathered results and report.');
  if ((values.job === undefined) === (positionals.length === 0)) throw new UsageError('crow eval k8s collect reads the pods of --job NAME, or log files named after it: give one or the other.');
  const logs = values.job !== undefined ? await jobLogs(values.job, values.namespace, io) : positionals.map((file) => ({ from: file, log: readFileSync(resolve(io.cwd, file), 'utf8') }));
  const scratch = mkdtempSync(join(tmpdir(), 'crow-eval-collect-'));
  try {
    const folders = new Map<string, string>();
    for (const { from, log } of logs) {
      const block = readShardBlock(log);
      if ('problem' in block) {
        io.stderr.write(`crow: ${from}: ${block.problem}; its runs are left out.\n`);
        continue;
      }
      const folder = join(scratch, `shard-${block.shard.replace('/', '-of-')}`);
      if (folders.has(block.shard)) io.stderr.write(`crow: ${from} holds shard ${block.shard} again (${folders.get(block.shard)} had it): the later one is kept.\n`);
      rmSync(folder, { recursive: true, force: true });
      writeShardFiles(folder, block.files);
      folders.set(block.shard, from);
    }
    if (folders.size === 0) throw new UsageError('No log held a shard\'s results: nothing to gather (see the lines above).');
    mergeInto([...folders.keys()].sort(byIndex).map((shard) => join(scratch, `shard-${shard.replace('/', '-of-')}`)), resolve(io.cwd, values.out), io);
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The logs of each index's latest succeeded pod of `job`; indexes without one are named. */
export async function jobLogs(job: string, namespace: string | undefined, io: CliIO): Promise<{ from: string; log: string }[]> {
  const ns = namespace !== undefined ? ['--namespace', namespace] : [];
  const listed = JSON.parse(await kubectl(['get', 'pods', '--selector', `job-name=${job}`, '--output', 'json', ...ns], io)) as { items?: Pod[] };
  const byIndex = new Map<string, Pod>();
  for (const pod of listed.items ?? []) {
    const index = pod.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'];
    if (index === undefined || pod.status?.phase !== 'Succeeded') continue;
    const known = byIndex.get(index);
    if (!known || (pod.status.startTime ?? '') > (known.status?.startTime ?? '')) byIndex.set(index, pod);
  }
  if (byIndex.size === 0) throw new UsageError(`No succeeded pod of job ${job}${namespace ? ` in ${namespace}` : ''}: has it run (kubectl get pods --selector job-name=${job})?`);
  const logs = [];
  for (const [index, pod] of [...byIndex].sort(([a], [b]) => Number(a) - Number(b))) {
    const name = pod.metadata!.name!;
    io.stderr.write(`Reading the log of ${name} (index ${index})…\n`);
    logs.push({ from: `pod ${name}`, log: await kubectl(['logs', name, ...ns], io) });
  }
  return logs;
}

interface Pod {
  metadata?: { name?: string; annotations?: Record<string, string> };
  status?: { phase?: string; startTime?: string };
}

function kubectl(args: string[], io: CliIO): Promise<string> {
  return new Promise((done, fail) => {
    execFile('kubectl', args, { env: io.env, maxBuffer: 1024 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return done(stdout);
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      fail(new UsageError(missing ? 'kubectl is not on PATH: install it, or save the pods\' logs and name the files (crow eval k8s collect --out DIR LOG…).' : `kubectl ${args.join(' ')} failed: ${stderr.trim() || err.message}`));
    });
  });
}

function byIndex(a: string, b: string): number {
  return Number(a.split('/')[0]) - Number(b.split('/')[0]);
}

export function quantity(flag: string, value: string): string {
  if (!QUANTITY.test(value)) throw new UsageError(`${flag} wants a Kubernetes quantity such as 500m, 2 or 4Gi, got "${value}".`);
  return value;
}

export function egressOf(cidrs: string | undefined, port: string | undefined): { cidrs: string[]; port: number } {
  const listed = cidrs === undefined ? PUBLIC_HTTPS.cidrs : cidrs.split(',').map((cidr) => cidr.trim()).filter(Boolean);
  for (const cidr of listed) {
    if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cidr)) throw new UsageError(`--egress wants CIDR blocks such as 203.0.113.0/24, got "${cidr}".`);
  }
  const number = port === undefined ? PUBLIC_HTTPS.port : Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65_535) throw new UsageError(`--egress-port wants a port (1 to 65535), got "${port}".`);
  return { cidrs: listed, port: number };
}

/** The arguments of `argv` that are crow eval's own, as given, for every shard to run with. */
function evalArguments(argv: readonly string[]): string[] {
  const own = new Set(Object.keys(EVAL_OPTIONS).filter((flag) => flag !== 'backend' && flag !== 'image'));
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = /^--([a-z-]+)(=.*)?$/.exec(arg);
    if (!name || !own.has(name[1]!)) {
      // A k8s flag's value is not an eval argument either.
      if (name && name[2] === undefined && (K8S_ONLY as Record<string, { type: string } | undefined>)[name[1]!]?.type === 'string') i += 1;
      continue;
    }
    kept.push(arg);
    const option = (EVAL_OPTIONS as Record<string, { type: string }>)[name[1]!]!;
    if (option.type === 'string' && name[2] === undefined && i + 1 < argv.length) kept.push(argv[++i]!);
  }
  return kept;
}

function help(io: CliIO): number {
  io.stdout.write(`${K8S_HELP}\n`);
  return 0;
}
