/**
 * One restore for every way back: undoing a prompt (`planUndo`) and
 * rewinding the files to a checkpoint (`planCheckpointRestore`) are the
 * same thing over a different scope of the journal. Each recorded change in
 * scope (a file tool's files as they were before it, or the paths a command
 * changed with the tree before it) gives each path it touched its earliest
 * recorded state in that scope. Only those paths are compared with how they
 * are now, as two small trees, and put back; every other file (the
 * person's own work among them) is not even looked at.
 *
 * Planned without touching anything, so a person sees what will change;
 * applied after reading the files again. A link standing where a folder
 * was recorded stops the plan, and the apply, before anything changes
 * (snapshot-restore.ts).
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

export interface RestorePlan {
  /** The files the restore will change. */
  changes: PlannedChange[];
  /** The user's git index (its path) goes back as it was before a command in scope changed it. */
  userIndex?: string;
  /** What changed in scope that cannot be put back, as a person reads it. */
  gaps: string[];
  /** The points whose changes after `seq` the restore undoes (written to the journal once it is applied). */
  undone: { point: string; seq: number }[];
  /** Restores, re-reading the files first, and notes in the journal what was undone; throws RestoreError when some could not be put back. */
  apply(signal: AbortSignal): Promise<FileChange[]>;
}

/** The plan of undoing one prompt (kept under its old name for its callers). */
export type UndoPlan = RestorePlan & { entry: UndoEntry };

/** Where a mark is: the index of its point among a session's points (oldest first) and its place among that point's steps. */
export interface MarkPlace {
  index: number;
  seq: number;
}

/** Whether the plan would change nothing. */
export function nothingToUndo(plan: Pick<RestorePlan, 'changes' | 'userIndex'>): boolean {
  return plan.changes.length === 0 && plan.userIndex === undefined;
}

/** Where a checkpoint's mark is among the session's undo points (oldest first), or undefined when the journal has no such mark. */
export function findMark(entries: readonly UndoEntry[], mark: string): MarkPlace | undefined {
  for (const [index, entry] of entries.entries()) {
    const found = entry.marks.find((candidate) => candidate.id === mark);
    if (found) return { index, seq: found.seq };
  }
  return undefined;
}

/** Plans undoing the prompt of `entry`: its changes, back to before the prompt. */
export async function planUndo(snapshots: GitSnapshotManager, entry: UndoEntry, signal: AbortSignal, log?: UndoLog): Promise<UndoPlan> {
  if (entry.scope === 'tree') return { entry, ...(await planWholeTree(snapshots, entry, signal)) };
  return { entry, ...(await planCheckpointRestore(snapshots, [entry], { index: 0, seq: 0 }, signal, log)) };
}

/**
 * Plans undoing the prompt of `entry` for the files `only` (a person's Undo
 * on one file of it): the prompt's other files stay as they are, and the
 * journal is not told, so undoing again still undoes the rest of the
 * prompt. A file changed only by a command (recorded with its folder) is
 * not among them: it is undone with the whole prompt.
 */
export async function planUndoOf(snapshots: GitSnapshotManager, entry: UndoEntry, only: readonly string[], signal: AbortSignal): Promise<UndoPlan> {
  if (entry.scope === 'tree') return { entry, changes: [], gaps: ['a prompt recorded by an earlier version of Crow is undone whole, not file by file'], undone: [], apply: async () => [] };
  return { entry, ...(await planCheckpointRestore(snapshots, [entry], { index: 0, seq: 0 }, signal, undefined, only)) };
}

/**
 * Plans putting back every path changed after the mark `at` in `entries`
 * (one session's undo points, oldest first) as it was at the mark. With
 * the journal given, the restore notes there what it undid, so undoing
 * again goes one prompt further back. With `only`, just those paths
 * (and never the git index) are planned.
 */
export async function planCheckpointRestore(
  snapshots: GitSnapshotManager,
  entries: readonly UndoEntry[],
  at: MarkPlace,
  signal: AbortSignal,
  log?: UndoLog,
  only?: readonly string[],
): Promise<RestorePlan> {
  const after = entries.slice(at.index);
  const scope = earliestStates(after, at.seq);
  if (only) for (const path of [...scope.earliest.keys()]) if (!only.includes(path)) scope.earliest.delete(path);
  const undone = after.flatMap((entry, i) => (entry.point !== undefined ? [{ point: entry.point, seq: i === 0 ? at.seq : 0 }] : []));
  // An index saved by a point of an earlier version (no seq) came before its first step.
  const saved = only ? undefined : after.find((entry, i) => entry.userIndex && (i > 0 || (entry.userIndexSeq ?? 1) > at.seq))?.userIndex;
  const userIndex = saved && (await indexDiffers(snapshots, saved, signal)) ? saved : undefined;
  const noting = async (applied: FileChange[]): Promise<FileChange[]> => {
    for (const { point, seq } of log ? undone : []) await log!.undone(point, seq);
    return applied;
  };
  const plan = { gaps: scope.gaps, undone, ...(userIndex ? { userIndex: userIndex.path } : {}) };
  // Nothing recorded in scope needs no git at all: a prompt that changed nothing may never have had its snapshot made.
  if (scope.earliest.size === 0) return { ...plan, changes: [], apply: async (s) => noting(await putIndexBack(snapshots, userIndex, [], s)) };
  const paths = [...scope.earliest.keys()];
  await refuseLinksOnTheWay(snapshots.workspace, paths);
  // The two trees are independent: made side by side, the plan waits for the slower, not for both.
  const [target, now] = await Promise.all([
    resolveStates(snapshots, scope.earliest, signal).then((states) => snapshots.treeOf(states, signal)),
    snapshots.fileStates(paths, signal).then((states) => snapshots.treeOf(states, signal)),
  ]);
  return {
    ...plan,
    changes: await plannedChanges(snapshots, now, target, signal),
    apply: async (applySignal) => {
      // A folder may have become a link while the person read the plan: then nothing is restored either.
      await refuseLinksOnTheWay(snapshots.workspace, paths);
      const current = await snapshots.treeOf(await snapshots.fileStates(paths, applySignal), applySignal);
      const applied = await snapshots.restoreBetween(current, target, applySignal);
      return noting(await putIndexBack(snapshots, userIndex, applied, applySignal));
    },
  };
}

/** A recorded path's state to go back to: kept whole (a tool's copy), or in the tree from before the command that first changed it. */
export type Earliest = FileState | { tree: string };

/**
 * The first recorded state of every path the points changed after the
 * mark (the first point's steps up to `seq` are before it), and what they
 * recorded that cannot be put back.
 */
export function earliestStates(points: readonly UndoEntry[], seq: number): { earliest: Map<string, Earliest>; gaps: string[] } {
  const gaps = points.flatMap((entry) => entry.gaps);
  const earliest = new Map<string, Earliest>();
  const keep = (path: string, state: Earliest): void => {
    if (!earliest.has(path)) earliest.set(path, state);
  };
  for (const [i, entry] of points.entries()) {
    if (entry.scope === 'tree') {
      gaps.push(`a prompt recorded by an earlier version of Crow ("${entry.prompt.split('\n', 1)[0]}") cannot be undone to a checkpoint`);
      continue;
    }
    if (entry.steps.length === 0) {
      // A point written before steps: its files as they were before the whole prompt.
      for (const state of entry.files) keep(state.path, state);
      if (entry.snapshot !== undefined) for (const path of entry.commandPaths) keep(path, { tree: entry.snapshot });
      else if (entry.commandPaths.length > 0) gaps.push('what commands changed was recorded without the snapshot it needs');
      continue;
    }
    for (const step of entry.steps) {
      if (i === 0 && step.seq <= seq) continue;
      if ('files' in step) for (const state of step.files) keep(state.path, state);
      else if ((step.before ?? entry.snapshot) !== undefined) for (const path of step.commandPaths) keep(path, { tree: (step.before ?? entry.snapshot)! });
      else gaps.push(`what a command changed (${step.commandPaths.join(', ')}) was recorded without the workspace before it`);
    }
  }
  return { earliest, gaps };
}

/** Each path's state: kept whole by a file tool, or read from the tree of the workspace before the command that first changed it. */
export async function resolveStates(snapshots: GitSnapshotManager, earliest: Map<string, Earliest>, signal: AbortSignal): Promise<FileState[]> {
  const byTree = new Map<string, string[]>();
  const states: FileState[] = [];
  for (const [path, state] of earliest) {
    if ('tree' in state) byTree.set(state.tree, [...(byTree.get(state.tree) ?? []), path]);
    else states.push(state);
  }
  // A folder named for a command stands for the files under it then; a file recorded in its own right keeps its own state.
  for (const [tree, paths] of byTree) states.push(...(await snapshots.statesAt(tree, paths, signal)).filter((state) => paths.includes(state.path) || !earliest.has(state.path)));
  return states;
}

/** An entry of an earlier version: one snapshot of the whole tree before the prompt, everything that differs from it put back. */
async function planWholeTree(snapshots: GitSnapshotManager, entry: UndoEntry, signal: AbortSignal): Promise<RestorePlan> {
  const snapshot = entry.snapshot!;
  const changes = await plannedChanges(snapshots, await snapshots.track(signal), snapshot, signal);
  await refuseLinksOnTheWay(snapshots.workspace, changes.map((change) => change.path));
  return { changes, gaps: entry.gaps, undone: [], apply: (applySignal) => snapshots.restore(snapshot, undefined, applySignal) };
}

export async function plannedChanges(snapshots: GitSnapshotManager, now: string, target: string, signal: AbortSignal): Promise<PlannedChange[]> {
  const [changes, stats] = await Promise.all([snapshots.changes(now, target, signal), snapshots.diffStat(now, target, undefined, signal)]);
  const byPath = new Map(stats.map((stat) => [stat.path, stat]));
  return changes.map((change) => ({ added: 0, removed: 0, binary: false, ...byPath.get(change.path), ...change }));
}

async function indexDiffers(snapshots: GitSnapshotManager, index: { path: string; blob: string }, signal: AbortSignal): Promise<boolean> {
  if (!existsSync(index.path)) return true;
  return (await snapshots.saveFile(index.path, signal)) !== index.blob;
}

/** The saved git index written back after the files (a failure there is a RestoreError naming what was restored before it). */
async function putIndexBack(snapshots: GitSnapshotManager, userIndex: SavedIndex | undefined, applied: FileChange[], signal: AbortSignal): Promise<FileChange[]> {
  if (!userIndex) return applied;
  await restoreUserIndex(snapshots, userIndex, signal).catch((err: unknown) => {
    throw new RestoreError(applied, [{ path: relative(snapshots.workspace, userIndex.path), reason: (err as Error).message }]);
  });
  return applied;
}

/** Writes the saved index in place, atomically; refuses while git holds its lock. */
async function restoreUserIndex(snapshots: GitSnapshotManager, index: SavedIndex, signal: AbortSignal): Promise<void> {
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
  return countedBy(changes, (status) => `to ${PLANNED[status]}`);
}

/** "3 files: 1 modified, 1 deleted, 1 added": what a restore did. */
export function countFiles(changes: readonly FileChange[]): string {
  return countedBy(changes, (status) => status);
}

function countedBy(changes: readonly FileChange[], word: (status: FileChange['status']) => string): string {
  const counts = (['modified', 'deleted', 'added'] as const)
    .map((status) => [status, changes.filter((change) => change.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${word(status)}`);
  return `${changes.length} file${changes.length === 1 ? '' : 's'}: ${counts.join(', ')}`;
}
