/**
 * The workspace as it was at a checkpoint, planned from the undo log
 * without touching anything, and the restore itself. A checkpoint is a
 * mark among a prompt's steps; every change the session made after it
 * (the rest of that prompt, then every later prompt) recorded the files it
 * was about to change as they were. The first such record of each path is
 * its state at the checkpoint. Only those paths are compared and put back:
 * files the agents never touched after the checkpoint (the user's own
 * work among them) are not even looked at.
 */
import { relative } from 'node:path';
import type { FileChange } from '../tools/undo-recorder';
import type { FileState } from './file-states';
import type { GitSnapshotManager } from './git-snapshots';
import { refuseLinksOnTheWay, RestoreError } from './snapshot-restore';
import type { UndoEntry } from './undo-log';
import { indexDiffers, type PlannedChange, plannedChanges, restoreUserIndex } from './undo-plan';

export interface CheckpointPlan {
  /** The files the restore will change. */
  changes: PlannedChange[];
  /** The user's git index goes back as it was (its path), when a command after the checkpoint changed it. */
  userIndex?: string;
  /** What changed after the checkpoint that cannot be put back, as a person reads it. */
  gaps: string[];
  /** Where the undo log must say, once restored, that these points' changes after `seq` were undone. */
  undone: { point: string; seq: number }[];
  /** Restores, re-reading the files first; throws RestoreError when some could not be put back. */
  apply(signal: AbortSignal): Promise<FileChange[]>;
}

/** Where a checkpoint's mark is among the session's undo points (oldest first), or undefined when the log has no such mark. */
export function findMark(entries: readonly UndoEntry[], mark: string): { index: number; seq: number } | undefined {
  for (const [index, entry] of entries.entries()) {
    const found = entry.marks.find((candidate) => candidate.id === mark);
    if (found) return { index, seq: found.seq };
  }
  return undefined;
}

/** Plans putting the workspace back as it was at the mark `at` in `entries` (one session's undo points, oldest first). */
export async function planCheckpointRestore(
  snapshots: GitSnapshotManager,
  entries: readonly UndoEntry[],
  at: { index: number; seq: number },
  signal: AbortSignal,
): Promise<CheckpointPlan> {
  const after = entries.slice(at.index);
  const gaps = after.flatMap((entry) => entry.gaps);
  const earliest = new Map<string, FileState | { tree: string }>();
  const keep = (path: string, state: FileState | { tree: string }): void => {
    if (!earliest.has(path)) earliest.set(path, state);
  };
  for (const [i, entry] of after.entries()) {
    if (entry.scope === 'tree') {
      gaps.push(`a prompt recorded by an earlier version of Crow ("${entry.prompt.split('\n', 1)[0]}") cannot be undone to a checkpoint`);
      continue;
    }
    if (entry.steps.length === 0) {
      // A point written before steps: its files as they were before the whole prompt.
      for (const state of entry.files) keep(state.path, state);
      if (entry.snapshot !== undefined) for (const path of entry.commandPaths) keep(path, { tree: entry.snapshot });
      continue;
    }
    for (const step of entry.steps) {
      if (i === 0 && step.seq <= at.seq) continue;
      if ('files' in step) for (const state of step.files) keep(state.path, state);
      else if (step.before !== undefined) for (const path of step.commandPaths) keep(path, { tree: step.before });
      else gaps.push(`what a command changed (${step.commandPaths.join(', ')}) was recorded without the workspace before it`);
    }
  }
  const undone = after.flatMap((entry, i) => (entry.point !== undefined ? [{ point: entry.point, seq: i === 0 ? at.seq : 0 }] : []));
  const index = after.find((entry, i) => entry.userIndex && (i > 0 || (entry.userIndexSeq ?? 0) > at.seq))?.userIndex;
  const userIndex = index && (await indexDiffers(snapshots, index, signal)) ? index : undefined;
  if (earliest.size === 0) return { changes: [], gaps, undone, ...(userIndex ? { userIndex: userIndex.path } : {}), apply: (s) => applyIndex(snapshots, userIndex, [], s) };
  const states = await resolveStates(snapshots, earliest, signal);
  const paths = [...earliest.keys()];
  await refuseLinksOnTheWay(snapshots.workspace, paths);
  const target = await snapshots.treeOf(states, signal);
  const now = await snapshots.treeOf(await snapshots.fileStates(paths, signal), signal);
  return {
    changes: await plannedChanges(snapshots, now, target, signal),
    gaps,
    undone,
    ...(userIndex ? { userIndex: userIndex.path } : {}),
    apply: async (applySignal) => {
      // A folder may have become a link while the person read the plan: then nothing is restored either.
      await refuseLinksOnTheWay(snapshots.workspace, paths);
      const current = await snapshots.treeOf(await snapshots.fileStates(paths, applySignal), applySignal);
      const applied = await snapshots.restoreBetween(current, target, applySignal);
      return applyIndex(snapshots, userIndex, applied, applySignal);
    },
  };
}

/** Each path's state: kept whole by a file tool, or read from the tree of the workspace before the command that first changed it. */
async function resolveStates(snapshots: GitSnapshotManager, earliest: Map<string, FileState | { tree: string }>, signal: AbortSignal): Promise<FileState[]> {
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

async function applyIndex(
  snapshots: GitSnapshotManager,
  userIndex: { path: string; blob: string } | undefined,
  applied: FileChange[],
  signal: AbortSignal,
): Promise<FileChange[]> {
  if (!userIndex) return applied;
  await restoreUserIndex(snapshots, userIndex, signal).catch((err: unknown) => {
    throw new RestoreError(applied, [{ path: relative(snapshots.workspace, userIndex.path), reason: (err as Error).message }]);
  });
  return applied;
}
