/**
 * Checkpoints from a terminal: `crow sessions checkpoints ID` lists them,
 * `crow sessions fork ID --at N` branches a new session from one, and
 * `crow undo --to N` rewinds the session to one (files, conversation or
 * both), showing what changes and asking first, as /rewind does.
 */
import { resolve } from 'node:path';
import { dataHome } from '../../config/paths';
import { listCheckpoints } from '../../journal/checkpoint-list';
import { forkSession } from '../../journal/fork';
import { applyRewind, checkpointNumbered, checkpointTitle, describeRewind, nothingToRewind, planRewind, recordRewind, RewindError, type RewindMode, type RewindPlan } from '../../journal/rewind';
import { SessionInUseError } from '../../session/session-lock';
import { SessionStore } from '../../session/session-store';
import { LinksInTheWayError, RestoreError } from '../../journal/snapshot-restore';
import { countFiles } from '../../journal/restore-plan';
import { commandArgs, positiveInteger } from './cli-args';
import { UsageError, type CliIO } from './cli-io';
import { askToRestore } from './restore-question';
import { styleFor } from './terminal-style';

function storeOf(io: CliIO): SessionStore {
  return new SessionStore({ dataHome: dataHome(io.env), warn: (warning) => io.stderr.write(`crow: warning: ${warning}\n`) });
}

const CHECKPOINTS_HELP = `Usage: crow sessions checkpoints ID [--json]

Lists the points a session can be rewound to or branched from: one before
each prompt and one after each change, numbered. --json prints them as
JSON (number, time, kind, label, prompt, and whether files can go back).
Go back with crow undo --to N --session ID; branch with
crow sessions fork ID --at N.`;

const FORK_HELP = `Usage: crow sessions fork ID --at N

Makes a new session holding the conversation of session ID up to its
checkpoint N (crow sessions checkpoints ID lists them), and prints the new
session's id; the files in the folder are not touched. Go on with:
crow run --session NEW_ID "...".`;

/** `crow sessions checkpoints ID [--json]` */
export function checkpointsCommand(argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('sessions checkpoints', argv, { json: { type: 'boolean', default: false } });
  if (values.help) {
    io.stdout.write(`${CHECKPOINTS_HELP}\n`);
    return 0;
  }
  const store = storeOf(io);
  const id = store.resolve(onlyId('checkpoints', positionals));
  // The visible record alone: listing reads no history.
  const listed = listCheckpoints(store.events(id));
  if (values.json) {
    io.stdout.write(`${JSON.stringify(listed.map(({ number, at, checkpoint, prompt }) => ({ number, at, kind: checkpoint.kind, label: checkpoint.label, prompt, files: checkpoint.undo !== undefined })), null, 2)}\n`);
    return 0;
  }
  if (listed.length === 0) {
    io.stdout.write(`Session ${id} has no checkpoints: they are made before each prompt and each change.\n`);
    return 0;
  }
  const style = styleFor(io.stdout, io.env);
  for (const entry of listed) {
    const when = new Date(entry.at).toISOString().replace('T', ' ').slice(0, 19);
    const what = entry.checkpoint.kind === 'prompt' ? style.bold(`› ${entry.checkpoint.label}`) : `  ${entry.checkpoint.label}`;
    const files = entry.checkpoint.undo === undefined ? style.dim('  (conversation only)') : '';
    io.stdout.write(`${String(entry.number).padStart(4)}  ${style.dim(when)}  ${what}${files}\n`);
  }
  io.stdout.write(style.dim(`Go back: crow undo --to N --session ${id} (files and conversation; --files-only or --conversation-only). Branch: crow sessions fork ${id} --at N\n`));
  return 0;
}

/** `crow sessions fork ID --at N` */
export function forkCommand(argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('sessions fork', argv, { at: { type: 'string' } });
  if (values.help) {
    io.stdout.write(`${FORK_HELP}\n`);
    return 0;
  }
  if (values.at === undefined) throw new UsageError('crow sessions fork needs --at N: the checkpoint to branch from (crow sessions checkpoints ID lists them).');
  const store = storeOf(io);
  const id = store.resolve(onlyId('fork', positionals));
  try {
    const { session, at } = forkSession(store, id, positiveInteger('--at', values.at));
    io.stdout.write(`${session.id}\n`);
    io.stderr.write(`Forked ${id} at checkpoint ${at ? checkpointTitle(at) : 'its end'}. Go on with: crow run --session ${session.id} "..."\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RewindError)) throw err;
    io.stderr.write(`crow: ${err.message}\n`);
    return 1;
  }
}

/** `crow undo --to N`: the session given, or this folder's newest. */
export async function undoToCheckpoint(
  options: { to: string; session?: string; root: string; mode: RewindMode; yes: boolean },
  io: CliIO,
): Promise<number> {
  const number = positiveInteger('--to', options.to);
  const store = storeOf(io);
  const id = options.session !== undefined ? store.resolve(options.session) : store.list({ cwd: resolve(options.root) })[0]?.id;
  if (id === undefined) throw new UsageError(`No session in ${options.root} to rewind: give one with --session ID (crow sessions list --all).`);
  const session = store.load(id);
  let kept: { close(): void };
  try {
    kept = store.attach(session);
  } catch (err) {
    if (!(err instanceof SessionInUseError)) throw err;
    io.stderr.write(`crow: ${err.message}\n`);
    return 1;
  }
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  try {
    const scope = { session, workspaceRoot: session.cwd, dataHome: dataHome(io.env), env: io.env };
    const plan = await planRewind(scope, checkpointNumbered(session, number), options.mode, controller.signal);
    return await confirmAndApply(scope, plan, options.yes, io, controller.signal);
  } catch (err) {
    if (err instanceof RewindError) {
      io.stderr.write(`crow: ${err.message}\n`);
      return 1;
    }
    if (err instanceof LinksInTheWayError) {
      io.stderr.write(`crow: rewind stopped: ${err.message}\n`);
      return 1;
    }
    if (!controller.signal.aborted) throw err;
    io.stderr.write('crow: cancelled; nothing was restored.\n');
    return 130;
  } finally {
    stopListening();
    kept.close();
  }
}

async function confirmAndApply(scope: Parameters<typeof applyRewind>[0], plan: RewindPlan, yes: boolean, io: CliIO, signal: AbortSignal): Promise<number> {
  const style = styleFor(io.stdout, io.env);
  const title = checkpointTitle(plan.target);
  for (const gap of plan.files?.gaps ?? []) io.stderr.write(`crow: cannot be restored: ${gap}\n`);
  if (nothingToRewind(plan)) {
    io.stdout.write(`Nothing to rewind: everything is as it was at checkpoint ${title}.\n`);
    return 0;
  }
  io.stdout.write(`Rewind session ${scope.session.id} to checkpoint ${title}:\n`);
  for (const change of plan.files?.changes ?? []) io.stdout.write(`  ${change.status.padEnd(8)}  ${change.path}\n`);
  io.stdout.write(`${describeRewind(plan)}\n`);
  const declined = yes ? undefined : await askToRestore(io, 'Rewind?', style, signal);
  if (declined !== undefined) return declined;
  try {
    const applied = await applyRewind(scope, plan, signal);
    const files = plan.files ? ` Restored ${countFiles(applied)}${plan.files.userIndex ? ' and the git index' : ''}.` : '';
    const conversation = plan.conversation ? ' The agents go on from the conversation as it was then.' : '';
    const message = `Rewound to checkpoint ${title}.${files}${conversation}`;
    recordRewind(scope.session, plan, 'completed', message);
    io.stdout.write(`${message}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    io.stderr.write(`crow: rewind stopped, the conversation is as it was: ${err.message}\n`);
    return 1;
  }
}

function onlyId(command: string, positionals: readonly string[]): string {
  if (positionals.length !== 1) throw new UsageError(`crow sessions ${command} takes one session ID (crow sessions list shows them).`);
  return positionals[0]!;
}
