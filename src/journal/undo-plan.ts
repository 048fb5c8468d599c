/**
 * What undoing a prompt would change, read without touching anything, and
 * the restore itself. For an undo point, only the files the prompt changed
 * are compared and put back: their earlier states (a file tool's copy, or
 * the snapshot for what commands changed) against how they are now, as two
 * small trees, so the tree-to-tree restore applies unchanged and the rest of
 * the workspace (the user's own edits included) is not even looked at.
 */
import { existsSync } from 'node:fs';
import { rename, stat, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { FileChange } from '../tools/undo-recorder';
import type { FileState } from './file-states';
import type { DiffStat, GitSnapshotManager } from './git-snapshots';
import { keepIndexTime } from './shadow-repository';
import { refuseLinksOnTheWay, RestoreError } from './snapshot-restore';
import type { SavedIndex, UndoEntry, UndoLog } from './undo-log';

/** A file a restore will change, from the restore's point of view, with its line counts. */
export type PlannedChange = FileChange & Omit<DiffStat, 'path'>;

export interface UndoPlan {
  entry: UndoEntry;
  /** The files the restore will change. */
  changes: PlannedChange[];
  /** The user's git index (its path) goes back as it was before a command of the prompt changed it. */
  userIndex?: string;
  /** What the prompt changed that cannot be undone, as a person reads it. */
  gaps: string[];
  /** Restores, re-reading the files first; throws RestoreError when some could not be put back. */
  apply(signal: AbortSignal): Promise<FileChange[]>;
}

/** Whether the plan would change nothing. */
export function nothingToUndo(plan: UndoPlan): boolean {
  return plan.changes.length === 0 && plan.userIndex === undefined;
}

/**
 * Plans undoing the prompt of `entry`. With the log it came from, a
 * restore notes there that the prompt was undone, so undoing again goes
 * one prompt further back.
 */
export async function planUndo(snapshots: GitSnapshotManager, entry: UndoEntry, signal: AbortSignal, log?: UndoLog): Promise<UndoPlan> {
  const plan = await planPrompt(snapshots, entry, signal);
  if (!log || entry.point === undefined) return plan;
  const point = entry.point;
  return {
    ...plan,
    apply: async (applySignal) => {
      const applied = await plan.apply(applySignal);
      await log.undone(point, 0);
      return applied;
    },
  };
}

async function planPrompt(snapshots: GitSnapshotManager, entry: UndoEntry, signal: AbortSignal): Promise<UndoPlan> {
  if (entry.scope === 'tree') {
    const snapshot = entry.snapshot!;
    const changes = await planRestore(snapshots, snapshot, signal);
    await refuseLinksOnTheWay(snapshots.workspace, changes.map((change) => change.path));
    return { entry, changes, gaps: entry.gaps, apply: (applySignal) => snapshots.restore(snapshot, undefined, applySignal) };
  }
  const gaps = [...entry.gaps];
  if (entry.commandPaths.length > 0 && entry.snapshot === undefined) gaps.push('what commands changed was recorded without the snapshot it needs');
  // A prompt that changed nothing needs no git at all: its snapshot may never have been made (a run that ended
  // before the background snapshot got going), and nothing is to be compared.
  if (entry.files.length === 0 && entry.commandPaths.length === 0 && !entry.userIndex) {
    return { entry, changes: [], gaps, apply: async () => [] };
  }
  const earlier = await earlierStates(snapshots, entry, signal);
  const paths = [...new Set([...earlier.map((state) => state.path), ...entry.files.map((state) => state.path), ...entry.commandPaths])];
  const target = await snapshots.treeOf(earlier, signal);
  await refuseLinksOnTheWay(snapshots.workspace, paths);
  const now = await snapshots.treeOf(await snapshots.fileStates(paths, signal), signal);
  const changes = await plannedChanges(snapshots, now, target, signal);
  const userIndex = entry.userIndex && (await indexDiffers(snapshots, entry.userIndex, signal)) ? entry.userIndex : undefined;
  return {
    entry,
    changes,
    gaps,
    ...(userIndex ? { userIndex: userIndex.path } : {}),
    apply: async (applySignal) => {
      // A folder may have become a link while the person read the plan: then nothing is restored either.
      await refuseLinksOnTheWay(snapshots.workspace, paths);
      const current = await snapshots.treeOf(await snapshots.fileStates(paths, applySignal), applySignal);
      const applied = await snapshots.restoreBetween(current, target, applySignal);
      if (userIndex) {
        await restoreUserIndex(snapshots, userIndex, applySignal).catch((err: unknown) => {
          throw new RestoreError(applied, [{ path: relative(entry.workspace, userIndex.path), reason: (err as Error).message }]);
        });
      }
      return applied;
    },
  };
}

/** Each changed path as it was before the prompt: the file tools' copies first, the snapshot for what only commands changed. */
async function earlierStates(snapshots: GitSnapshotManager, entry: UndoEntry, signal: AbortSignal): Promise<FileState[]> {
  const copied = new Map<string, FileState>();
  for (const state of entry.files) if (!copied.has(state.path)) copied.set(state.path, state);
  const fromSnapshot = entry.commandPaths.filter((path) => !copied.has(path));
  const snapshotStates = entry.snapshot !== undefined && fromSnapshot.length > 0 ? await snapshots.statesAt(entry.snapshot, fromSnapshot, signal) : [];
  // A folder a command replaced stands for the files under it in the snapshot: a file a tool had copied first keeps its copy.
  return [...copied.values(), ...snapshotStates.filter((state) => !copied.has(state.path))];
}

/** What restoring `snapshot` would change now, read without touching the workspace. */
export async function planRestore(snapshots: GitSnapshotManager, snapshot: string, signal: AbortSignal): Promise<PlannedChange[]> {
  return plannedChanges(snapshots, await snapshots.track(signal), snapshot, signal);
}

export async function plannedChanges(snapshots: GitSnapshotManager, now: string, target: string, signal: AbortSignal): Promise<PlannedChange[]> {
  const [changes, stats] = await Promise.all([snapshots.changes(now, target, signal), snapshots.diffStat(now, target, undefined, signal)]);
  const byPath = new Map(stats.map((stat) => [stat.path, stat]));
  return changes.map((change) => ({ added: 0, removed: 0, binary: false, ...byPath.get(change.path), ...change }));
}

export async function indexDiffers(snapshots: GitSnapshotManager, index: { path: string; blob: string }, signal: AbortSignal): Promise<boolean> {
  if (!existsSync(index.path)) return true;
  return (await snapshots.saveFile(index.path, signal)) !== index.blob;
}

/** Writes the saved index in place, atomically; refuses while git holds its lock. */
export async function restoreUserIndex(snapshots: GitSnapshotManager, index: SavedIndex, signal: AbortSignal): Promise<void> {
  if (existsSync(`${index.path}.lock`)) throw new Error('git is using the index (index.lock exists); run undo again once it is done');
  const content = await snapshots.readBlob(index.blob, signal);
  const mode = await stat(index.path).then(
    (stats) => stats.mode & 0o777,
    () => 0o644,
  );
  const temp = `${index.path}.crow-undo-${process.pid}`;
  await writeFile(temp, content, { mode });
  // The index's own time comes back with its content (an entry from an older log has none to give).
  if (index.mtimeMs !== undefined) await keepIndexTime(temp, index.mtimeMs);
  await rename(temp, index.path);
}

/** What a restore is about to do to a file, before it is done: a change it made is what it will do, not what it did. */
export const PLANNED: Record<FileChange['status'], string> = { modified: 'restore', deleted: 'delete', added: 'recreate' };

/** "3 files: 1 to restore, 1 to delete, 1 to recreate": a plan, before anything was done. */
export function countPlanned(changes: readonly FileChange[]): string {
  const counts = (['modified', 'deleted', 'added'] as const)
    .map((status) => [status, changes.filter((change) => change.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} to ${PLANNED[status]}`);
  return `${changes.length} file${changes.length === 1 ? '' : 's'}: ${counts.join(', ')}`;
}

/** "3 files: 1 modified, 1 deleted, 1 added": what a restore did. */
export function countFiles(changes: readonly FileChange[]): string {
  const counts = (['modified', 'deleted', 'added'] as const)
    .map((status) => [status, changes.filter((change) => change.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`);
  return `${changes.length} file${changes.length === 1 ? '' : 's'}: ${counts.join(', ')}`;
}
