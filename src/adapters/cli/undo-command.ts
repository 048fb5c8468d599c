import { dataHome } from '../../config/paths';
import { GitError } from '../../journal/git-runner';
import { GitSnapshotManager } from '../../journal/git-snapshots';
import { KeeperLink } from '../../journal/keeper-client';
import { LinksInTheWayError, RestoreError } from '../../journal/snapshot-restore';
import { restoredNote, tellAgents } from '../../session/agent-notes';
import { SessionInUseError } from '../../session/session-lock';
import { SessionStore, UnknownSessionError } from '../../session/session-store';
import type { ACPSession } from '../../session/acp-session';
import { UndoLog, type UndoEntry } from '../../journal/undo-log';
import { countFiles, countPlanned, nothingToUndo, PLANNED, planUndo, type PlannedChange, type UndoPlan } from '../../journal/restore-plan';
import type { FileChange } from '../../tools/undo-recorder';
import { realWorkspace } from '../../vocabulary/workspace-key';
import { commandArgs, noPositionals, workspaceFolder } from './cli-args';
import { UsageError, type CliIO } from './cli-io';
import { keeperLaunch } from './keeper-command';
import { undoToCheckpoint } from './checkpoint-commands';
import { askToRestore } from './restore-question';
import { styleFor, type Style } from './terminal-style';

export const UNDO_HELP = `Usage: crow undo [options]

Puts back the files the last prompt crow ran here changed: files it changed
get their earlier content back, files it created are removed, and the git
index goes back if one of its commands changed it (git add). Files the prompt
did not change are never touched, your own edits to them included; files
ignored by .gitignore are never touched either. Shows what will change first
and asks before restoring.

With --to N, rewinds a session to its checkpoint N instead (crow sessions
checkpoints ID lists them: one before each prompt and each change): the
files the agents changed after it get their content then back, and the
agents forget the conversation after it (--files-only or --conversation-only
for one of the two).

Options:
  --session ID   undo the last prompt of this session (default: of any session;
                 with --to, the newest session of this folder)
  --to N         rewind to checkpoint N
  --files-only   with --to: restore the files, keep the conversation
  --conversation-only
                 with --to: rewind the conversation, leave the files
  --cwd DIR      workspace root (default: the current folder)
  -y, --yes      restore without asking (without it, the answer is read from
                 the terminal or from stdin: echo y | crow undo)
  -h, --help     show this help

Exit codes: 0 restored or nothing to restore, 1 nothing to undo, declined or
failed, 2 bad usage or no answer on stdin (re-run with --yes), 130 cancelled.`;

export async function undoCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('undo', argv, {
    session: { type: 'string' },
    cwd: { type: 'string' },
    to: { type: 'string' },
    'files-only': { type: 'boolean', default: false },
    'conversation-only': { type: 'boolean', default: false },
    yes: { type: 'boolean', short: 'y', default: false },
  });
  if (values.help) {
    io.stdout.write(`${UNDO_HELP}\n`);
    return 0;
  }
  noPositionals('undo', positionals);
  const root = workspaceFolder(io.cwd, values.cwd);
  const only = values['files-only'] ? 'files' : values['conversation-only'] ? 'conversation' : undefined;
  if (values['files-only'] && values['conversation-only']) throw new UsageError('Use --files-only or --conversation-only, not both (without either, both are restored).');
  if (values.to === undefined && only !== undefined) throw new UsageError(`--${only}-only goes with --to N: plain crow undo restores the last prompt's files.`);
  if (values.to !== undefined) {
    return undoToCheckpoint({ to: values.to, root, mode: only ?? 'both', yes: values.yes, ...(values.session !== undefined ? { session: values.session } : {}) }, io);
  }
  const data = dataHome(io.env);
  const log = new UndoLog({ workspace: root, dataHome: data, onWarning: (message) => io.stderr.write(`crow: ${message}\n`) });
  const store = new SessionStore({ dataHome: data });
  const session = values.session !== undefined ? await sessionOf(log, store, values.session) : undefined;
  const entry = await log.latest(session);
  if (!entry) {
    const recorded = (await log.list()).some((candidate) => session === undefined || candidate.sessionId === session);
    const why = recorded
      ? 'every prompt recorded here has been undone already'
      : session !== undefined
        ? elsewhere(store, session, root)
        : 'no crow run recorded anything in this folder';
    io.stderr.write(`crow: nothing to undo in ${root}: ${why}.\n`);
    return 1;
  }

  // The folder's keeper, when a run left one, knows the tree as it is without a scan.
  const launch = keeperLaunch(io.env);
  const keeper = launch ? new KeeperLink({ workspace: realWorkspace(root), dataHome: data }, io.env, launch) : undefined;
  const snapshots = new GitSnapshotManager({ workspace: root, dataHome: data, env: io.env, ...(keeper ? { keeper } : {}) });
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  try {
    return await undo(entry, snapshots, { io, yes: values.yes, signal: controller.signal, log, store });
  } catch (err) {
    if (err instanceof LinksInTheWayError) {
      io.stderr.write(`crow: undo stopped: ${err.message}\n`);
      return 1;
    }
    if (err instanceof GitError) {
      io.stderr.write(`crow: undo failed, nothing was restored: ${err.message}\n`);
      return 1;
    }
    if (!controller.signal.aborted) throw err;
    io.stderr.write('crow: cancelled; nothing was restored.\n');
    return 130;
  } finally {
    stopListening();
  }
}

async function undo(
  entry: UndoEntry,
  snapshots: GitSnapshotManager,
  { io, yes, signal, log, store }: { io: CliIO; yes: boolean; signal: AbortSignal; log: UndoLog; store: SessionStore },
): Promise<number> {
  const style = styleFor(io.stdout, io.env);
  const plan = await planUndo(snapshots, entry, signal, log);
  for (const gap of plan.gaps) io.stderr.write(`crow: cannot be undone: ${gap}\n`);
  if (nothingToUndo(plan)) {
    io.stdout.write(`Nothing to undo: the files ${describe(entry)} changed in ${entry.workspace} are as they were before it.\n`);
    return 0;
  }
  io.stdout.write(renderPlan(plan, style));
  const declined = yes ? undefined : await askToRestore(io, 'Restore these files?', style, signal);
  if (declined !== undefined) return declined;
  try {
    const applied = await plan.apply(signal);
    io.stdout.write(renderApplied(applied, plan));
    tellSession(store, entry, applied, io);
    return 0;
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    if (err.applied.length > 0) io.stdout.write(renderApplied(err.applied, { ...plan, userIndex: undefined }));
    io.stderr.write(`crow: ${err.message}\n`);
    return 1;
  }
}

/**
 * The agents of the undone prompt's session read, with its next message,
 * that these files are back as they were; a session gone, or open in
 * another process, is not told (the latter with a warning).
 */
function tellSession(store: SessionStore, entry: UndoEntry, applied: readonly FileChange[], io: CliIO): void {
  if (applied.length === 0) return;
  let session: ACPSession;
  try {
    session = store.load(entry.sessionId);
  } catch (err) {
    if (err instanceof UnknownSessionError) return;
    throw err;
  }
  let kept: { close(): void };
  try {
    kept = store.attach(session);
  } catch (err) {
    if (!(err instanceof SessionInUseError)) throw err;
    io.stderr.write(`crow: warning: session ${entry.sessionId} is open elsewhere, so its agents were not told these files were restored; say so in your next message there.\n`);
    return;
  }
  try {
    const prompt = entry.prompt.trim().split('\n')[0] ?? '';
    tellAgents(session, restoredNote(`undid the prompt "${prompt}"`, applied.map((change) => change.path)));
  } finally {
    kept.close();
  }
}

function renderPlan(plan: UndoPlan, style: Style): string {
  const { entry, changes } = plan;
  const width = changes.reduce((max, change) => Math.max(max, change.path.length), 0);
  const largest = changes.reduce((max, change) => Math.max(max, change.added + change.removed), 0);
  const lines = changes.map(
    (change) => `  ${statusLabel(change.status, style)}  ${change.path.padEnd(width)} | ${statBar(change, largest, style)}`,
  );
  const added = changes.reduce((sum, change) => sum + change.added, 0);
  const removed = changes.reduce((sum, change) => sum + change.removed, 0);
  const summary = changes.length > 0 ? [`${countPlanned(changes)}; ${added} line${added === 1 ? '' : 's'} back, ${removed} line${removed === 1 ? '' : 's'} gone`] : [];
  const index = plan.userIndex ? [`The git index (${plan.userIndex}) goes back as it was before the prompt's commands changed it.`] : [];
  return [`Undo ${describe(entry)} in ${entry.workspace}:`, '', ...lines, '', ...summary, ...index, ''].join('\n');
}

function renderApplied(applied: readonly FileChange[], plan: UndoPlan): string {
  const planned = new Set(plan.changes.map((change) => `${change.status} ${change.path}`));
  const asPlanned = applied.length === plan.changes.length && applied.every((change) => planned.has(`${change.status} ${change.path}`));
  const index = plan.userIndex ? ' and the git index' : '';
  if (asPlanned) return `Restored ${countFiles(applied)}${index}.\n`;
  const lines = applied.map((change) => `  ${change.status.padEnd(8)}  ${change.path}`);
  return [`Restored ${countFiles(applied)}${index} (the files changed while you decided):`, ...lines, ''].join('\n');
}

/** What the restore will do to the file: it has not happened yet when the plan is shown. */
function statusLabel(status: FileChange['status'], style: Style): string {
  const label = PLANNED[status].padEnd(8);
  if (status === 'added') return style.green(label);
  return status === 'deleted' ? style.red(label) : style.yellow(label);
}

/** `12 ++++------`, at most 30 marks wide, like git's diffstat. */
function statBar(change: PlannedChange, largest: number, style: Style): string {
  if (change.binary) return 'binary';
  const total = change.added + change.removed;
  const marks = (lines: number): number => (lines === 0 ? 0 : Math.max(1, Math.round((lines * 30) / Math.max(largest, 30))));
  return `${total} ${style.green('+'.repeat(marks(change.added)))}${style.red('-'.repeat(marks(change.removed)))}`;
}

function describe(entry: UndoEntry): string {
  const firstLine = entry.prompt.trim().split('\n')[0] ?? '';
  const prompt = firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine;
  return `"${prompt}" (session ${entry.sessionId}, ${ago(Date.now() - entry.at)})`;
}

function ago(ms: number): string {
  const units: [string, number][] = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  for (const [unit, size] of units) {
    const count = Math.floor(ms / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/**
 * The session `given` names among those with undo points here (its id, or
 * the start of exactly one), else among the stored sessions; throws an
 * UnknownSessionError (exit 2) when it names none.
 */
async function sessionOf(log: UndoLog, store: SessionStore, given: string): Promise<string> {
  const ids = [...new Set((await log.list()).map((entry) => entry.sessionId))];
  if (ids.includes(given)) return given;
  const matches = ids.filter((id) => id.startsWith(given));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new UsageError(`"${given}" is the start of ${matches.length} sessions with undo points here (${matches.slice(0, 5).join(', ')}): give more of the id.`);
  return store.resolve(given);
}

/** Why a stored session has nothing to undo in `root`: it worked in another folder, or changed nothing here. */
function elsewhere(store: SessionStore, session: string, root: string): string {
  const { cwd } = store.meta(session);
  if (cwd !== root) return `session ${session} worked in ${cwd}, not here; to undo its last prompt there: crow undo --session ${session} --cwd ${cwd}`;
  return `session ${session} changed no files here that crow recorded`;
}

