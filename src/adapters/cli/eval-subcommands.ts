/** `crow eval merge`: combining the folders of an evaluation's shards into one (eval-k8s-command.ts gathers a Job's). */
import { join, resolve } from 'node:path';
import { copyArtifacts, MergeError, mergeFolders, writeMerged } from '../../eval/eval-merge';
import { RESULTS_FILE } from '../../eval/eval-runner';
import { commandArgs } from './cli-args';
import { type CliIO, UsageError } from './cli-io';
import { writeReports } from './eval-options';

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
  mergeInto(positionals.map((input) => resolve(io.cwd, input)), resolve(io.cwd, values.out), io);
  return 0;
}

/** Merges the folders `inputs` into `out`, prints the report and says where it is; a MergeError is a usage error saying why. */
export function mergeInto(inputs: string[], out: string, io: CliIO): void {
  let merged;
  try {
    merged = mergeFolders(inputs);
    writeMerged(out, merged);
  } catch (err) {
    if (err instanceof MergeError) throw new UsageError(err.message);
    throw err;
  }
  copyArtifacts(inputs, out);
  // An evaluation with --attempts also has each agent's best-of arm, named in the results but not in the manifest.
  const arms = [...new Set(merged.results.map((result) => result.agent))].filter((agent) => /@best-of-\d+$/.test(agent) && !(agent in merged.manifest.agents)).sort();
  const agents = [...Object.keys(merged.manifest.agents).filter((agent) => merged.results.some((result) => result.agent === agent)), ...arms];
  const markdown = writeReports(out, merged.results, agents, { manifest: merged.manifest, ...(merged.note ? { note: merged.note } : {}) });
  io.stdout.write(markdown);
  io.stderr.write(`\nMerged ${inputs.length} folder${inputs.length === 1 ? '' : 's'}, ${merged.results.length} runs: ${join(out, RESULTS_FILE)}, ${join(out, 'report.md')} and ${join(out, 'report.html')}\n`);
}
