/**
 * One hunk of what a prompt changed in a file, put back on its own: the
 * file as it was before the prompt (the journal's earliest state of it in
 * the prompt) against how it is now, cut into hunks; undoing one writes
 * the file now with only that hunk's lines as they were. The write goes
 * through the same restore as every other (a small tree to a small tree,
 * no link followed, nothing outside the workspace), and the journal is
 * not told: undoing the whole prompt later still goes back to before it.
 *
 * A hunk is named by its place and its lines, so a hunk the file no
 * longer has (it changed since the person saw it) is not found, and
 * nothing is written.
 */
import { createHash } from 'node:crypto';
import { applyPatch, reversePatch, structuredPatch, type StructuredPatchHunk } from 'diff';
import type { FileState } from './file-states';
import type { GitSnapshotManager } from './git-snapshots';
import { FILE, SYMLINK } from './git-trees';
import { writeObjectLater } from './loose-objects';
import { earliestStates, plannedChanges, type RestorePlan, resolveStates } from './restore-plan';
import { refuseLinksOnTheWay } from './snapshot-restore';
import type { UndoEntry } from './undo-log';

/** One hunk of a prompt's change to a file: `removed` lines of before (from `oldStart`) became `added` lines now (from `newStart`). */
export interface PromptHunk {
  /** Names the hunk by its place and lines: stale once the file changes there. */
  id: string;
  oldStart: number;
  newStart: number;
  removed: string[];
  added: string[];
}

/** Why a hunk was not put back, as a person reads it. */
export class HunkRefused extends Error {
  override name = 'HunkRefused';
}

interface FileSides {
  before: FileState;
  now: FileState;
  beforeText: string;
  nowText: string;
  hunks: StructuredPatchHunk[];
}

/** The hunks of what the prompt of `entry` changed in `path`, before it against now; [] for a file it did not change, a binary file, or one as it was. */
export async function promptHunks(snapshots: GitSnapshotManager, entry: UndoEntry, path: string, signal: AbortSignal): Promise<PromptHunk[]> {
  const sides = await fileSides(snapshots, entry, path, signal);
  return sides ? sides.hunks.map(hunkOf) : [];
}

/**
 * Plans undoing the hunk `id` of the prompt's change to `path`; throws
 * HunkRefused when the prompt never changed that file, or the file has no
 * such hunk now (it changed since).
 */
export async function planHunkUndo(snapshots: GitSnapshotManager, entry: UndoEntry, path: string, id: string, signal: AbortSignal): Promise<RestorePlan> {
  const sides = await fileSides(snapshots, entry, path, signal);
  if (!sides) throw new HunkRefused(`the last prompt did not change ${path} (as far as its record goes)`);
  const hunk = sides.hunks.find((candidate) => hunkOf(candidate).id === id);
  if (!hunk) throw new HunkRefused(`${path} has changed since: that change is not there any more, so nothing was put back (look again at the list)`);
  const patch = { oldFileName: path, newFileName: path, oldHeader: '', newHeader: '', hunks: [hunk] };
  const text = applyPatch(sides.nowText, reversePatch(patch));
  if (text === false) throw new HunkRefused(`that change no longer fits ${path}, so nothing was put back`);
  const target = await targetTree(snapshots, sides, text, signal);
  const current = await snapshots.treeOf([sides.now], signal);
  return {
    changes: await plannedChanges(snapshots, current, target, signal),
    gaps: [],
    undone: [],
    apply: async (applySignal) => {
      await refuseLinksOnTheWay(snapshots.workspace, [path]);
      const [again] = await snapshots.fileStates([path], applySignal);
      // Written meanwhile: the hunk is not the person's to lose.
      if (!again || blobOf(again) !== blobOf(sides.now)) throw new HunkRefused(`${path} changed while the undo was planned, so nothing was put back`);
      return snapshots.restoreBetween(current, target, applySignal);
    },
  };
}

/** Before the prompt and now, as text with their hunks; undefined when the prompt did not change the file or it is not text. */
async function fileSides(snapshots: GitSnapshotManager, entry: UndoEntry, path: string, signal: AbortSignal): Promise<FileSides | undefined> {
  if (entry.scope === 'tree') return undefined;
  const recorded = earliestStates([entry], 0).earliest.get(path);
  if (!recorded) return undefined;
  await refuseLinksOnTheWay(snapshots.workspace, [path]);
  const before = (await resolveStates(snapshots, new Map([[path, recorded]]), signal)).find((state) => state.path === path) ?? { path, absent: true as const };
  const [now] = await snapshots.fileStates([path], signal);
  if (!now || [before, now].some((state) => 'mode' in state && state.mode === SYMLINK)) return undefined;
  const [beforeBytes, nowBytes] = await Promise.all([bytesOf(snapshots, before, signal), bytesOf(snapshots, now, signal)]);
  if (beforeBytes.includes(0) || nowBytes.includes(0)) return undefined;
  const beforeText = beforeBytes.toString('utf8');
  const nowText = nowBytes.toString('utf8');
  const { hunks } = structuredPatch(path, path, beforeText, nowText, '', '', { context: 0 });
  return { before, now, beforeText, nowText, hunks };
}

function hunkOf(hunk: StructuredPatchHunk): PromptHunk {
  const removed = hunk.lines.filter((line) => line.startsWith('-')).map((line) => line.slice(1));
  const added = hunk.lines.filter((line) => line.startsWith('+')).map((line) => line.slice(1));
  const id = createHash('sha256').update(JSON.stringify([hunk.oldStart, hunk.newStart, hunk.lines])).digest('hex').slice(0, 16);
  return { id, oldStart: hunk.oldStart, newStart: hunk.newStart, removed, added };
}

/** The tree of the file with the hunk put back: absent again when that makes it the nothing it was before the prompt. */
async function targetTree(snapshots: GitSnapshotManager, sides: FileSides, text: string, signal: AbortSignal): Promise<string> {
  const { path } = sides.now;
  if ('absent' in sides.before && text === '') return snapshots.treeOf([], signal);
  const mode = 'mode' in sides.now ? sides.now.mode : 'mode' in sides.before ? sides.before.mode : FILE;
  const blob = writeObjectLater(snapshots.gitDir, 'blob', Buffer.from(text, 'utf8'));
  await snapshots.objectsWritten();
  return snapshots.treeOf([{ path, mode, blob }], signal);
}

async function bytesOf(snapshots: GitSnapshotManager, state: FileState, signal: AbortSignal): Promise<Buffer> {
  return 'absent' in state ? Buffer.alloc(0) : snapshots.readBlob(state.blob, signal);
}

function blobOf(state: FileState): string {
  return 'absent' in state ? '' : state.blob;
}
