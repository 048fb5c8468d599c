/**
 * The shape of the commands that write documents: code prepares (finds or
 * creates the feature folder, picks the template, renders our prompt), the
 * session's composition runs the prompt, then code checks and records what
 * was written.
 */
import type { RunResult } from '../agents/run-result';
import type { PermissionGate } from '../tools/permissions';
import { parseCommandArgs, type CommandArgs } from './command-args';
import { changedFiles, type CommandRun, listFiles, snapshotTexts, startCommand } from './command-run';
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { runHooks } from './extension-hooks';

export interface Prepared {
  /** The feature folder worked on; absent for project-wide commands (the constitution). */
  folder?: string;
  /** Said before the prompt runs: which feature, chosen how, what was set up. */
  intro: string;
  prompt: string;
  /** Files and folders whose changes during the run are this command's artifacts. */
  watch: string[];
  /** Files code wrote while preparing (a folder's first spec.md, the layout). */
  written?: string[];
  /** A narrower gate for the run (read-only analysis). */
  permissions?: PermissionGate;
  /**
   * Judges the run once it ended normally, given the files it changed:
   * `ok` with the closing message, or not with what went wrong and what to do.
   */
  check(changed: string[], result: RunResult): Promise<{ ok: boolean; message: string }>;
}

export interface DocumentCommandSpec {
  name: string;
  /** The event name of its Spec Kit hooks: `before_EVENT` runs first, `after_EVENT` once it succeeded (e.g. "plan"). */
  hooks: string;
  description: string;
  argumentHint: string;
  /** Options taken out of the arguments (`--feature` is known to every command that works on a feature). */
  options?: readonly string[];
  flags?: readonly string[];
  /** The preparation, or an error message saying what to do. */
  prepare(run: CommandRun, args: CommandArgs): Promise<Prepared | string>;
}

export function documentCommand(spec: DocumentCommandSpec): ProgrammaticCommand {
  return {
    name: spec.name,
    description: spec.description,
    argumentHint: spec.argumentHint,
    run: (input: CommandInput) =>
      startCommand(spec.name, input, async (run) => {
        const args = parseCommandArgs(input.args, { options: spec.options ?? [], flags: spec.flags ?? [] });
        const before = await runHooks(run, `before_${spec.hooks}`, input.args);
        if (before !== undefined) return void run.finish('error', before);
        const prepared = await spec.prepare(run, args);
        if (typeof prepared === 'string') {
          run.finish('error', prepared);
          return;
        }
        await runPrepared(run, prepared, spec.hooks);
      }),
  };
}

async function runPrepared(run: CommandRun, prepared: Prepared, hooks: string): Promise<void> {
  const { folder } = prepared;
  run.say(prepared.intro);
  const before = await snapshotTexts(run.input, prepared.watch);
  const result = await run.runPrompt(prepared.prompt, prepared.permissions ? { permissions: prepared.permissions } : {});
  const changed = changedFiles(before, await snapshotTexts(run.input, prepared.watch));
  const written = [...new Set([...(prepared.written ?? []), ...changed])].sort();
  run.record(folder, written);
  const where = folder !== undefined ? `${folder}: ` : '';
  if (result.status === 'cancelled' || result.status === 'error') {
    run.finish(result.status, `${result.message} /${run.name} ${where}wrote ${listFiles(written, folder)} so far.`);
    return;
  }
  const verdict = await prepared.check(changed, result);
  if (!verdict.ok) {
    run.finish(result.status === 'limit' ? 'limit' : 'error', verdict.message);
    return;
  }
  run.say(verdict.message);
  const after = await runHooks(run, `after_${hooks}`, run.input.args);
  if (after !== undefined) return void run.finish('error', `${verdict.message} But: ${after}`);
  run.finish(result.status, verdict.message, result.summary);
}
