/** `crow eval merge` and `crow eval k8s`: combining shards, and running them as a Kubernetes Indexed Job. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveSettings } from '../../config/provider-config';
import { copyArtifacts, MergeError, mergeFolders, writeMerged } from '../../eval/eval-merge';
import { RESULTS_FILE } from '../../eval/eval-runner';
import { k8sJobYaml } from '../../eval/k8s-job';
import { commandArgs, positiveInteger } from './cli-args';
import { type CliIO, UsageError } from './cli-io';
import { EVAL_OPTIONS, parseShard, writeReports } from './eval-options';

export const MERGE_HELP = `Usage: crow eval merge --out DIR FOLDER…

Combines evaluation folders (each holding a results.jsonl, e.g. the shards
of crow eval --shard I/N) into DIR: one results.jsonl under one manifest,
their runs/ artifacts, and report.md and report.html over all of them.
Refused, saying why, when the folders were made with different settings,
tasks or agent definitions, or when two hold the same run. Missing shards
are named in the report.`;

export async function mergeCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('eval merge', argv, { out: { type: 'string' } });
  if (values.help) {
    io.stdout.write(`${MERGE_HELP}\n`);
    return 0;
  }
  if (values.out === undefined) throw new UsageError('crow eval merge needs --out DIR: the new folder for the merged results.');
  const inputs = positionals.map((input) => resolve(io.cwd, input));
  const out = resolve(io.cwd, values.out);
  let merged;
  try {
    merged = mergeFolders(inputs);
    writeMerged(out, merged);
  } catch (err) {
    if (err instanceof MergeError) throw new UsageError(err.message);
    throw err;
  }
  copyArtifacts(inputs, out);
  const agents = Object.keys(merged.manifest.agents).filter((agent) => merged.results.some((result) => result.agent === agent));
  const markdown = writeReports(out, merged.results, agents, { manifest: merged.manifest, ...(merged.note ? { note: merged.note } : {}) });
  io.stdout.write(markdown);
  io.stderr.write(`\nMerged ${inputs.length} folders, ${merged.results.length} runs: ${join(out, RESULTS_FILE)}, ${join(out, 'report.md')} and ${join(out, 'report.html')}\n`);
  return 0;
}

export const K8S_HELP = `Usage: crow eval k8s --image NAME --shards N [--parallelism P] [options] [eval options]

Writes a Kubernetes Indexed Job (YAML) that runs an evaluation as N shards:
pod i runs crow eval --shard i/N (Kubernetes fills in $JOB_COMPLETION_INDEX)
with the eval options given here, at most P at a time, and writes its
results folder to /results/shard-i on a volume. Gather the folders and run
crow eval merge --out DIR /results/shard-* for the report.

Options:
  --image NAME           an image with crow on PATH and what the tasks' checks need
  --shards N             how many slices (pods) the evaluation is cut into
  --parallelism P        pods at once (default: N)
  --name NAME            the Job's name (default crow-eval)
  --secret NAME          the Secret holding the provider keys (default crow-eval-keys)
  --volume-claim NAME    the PersistentVolumeClaim mounted at /results (default crow-eval-results)
  --retries N            tries per shard before it counts as failed (default 2)
  --file PATH            write the YAML there instead of to stdout
  and every option of crow eval but --shard, --out and --backend.`;

const K8S_ONLY = {
  image: { type: 'string' },
  shards: { type: 'string' },
  parallelism: { type: 'string' },
  name: { type: 'string' },
  secret: { type: 'string' },
  'volume-claim': { type: 'string' },
  retries: { type: 'string' },
  file: { type: 'string' },
} as const;

export async function k8sCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('eval k8s', argv, { ...EVAL_OPTIONS, ...K8S_ONLY });
  if (values.help) {
    io.stdout.write(`${K8S_HELP}\n`);
    return 0;
  }
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
    volumeClaim: values['volume-claim'] ?? 'crow-eval-results',
    retries,
  });
  if (values.file !== undefined) {
    writeFileSync(resolve(io.cwd, values.file), yaml);
    io.stderr.write(`Wrote the Job to ${values.file}: kubectl apply -f ${values.file}\n`);
  } else {
    io.stdout.write(yaml);
  }
  return 0;
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
