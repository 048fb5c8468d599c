/**
 * What a prompt changed, as a view of its journal: the undo plan of the
 * prompt read the other way round. Every door's "N files changed" and the
 * chat's changes bar come from here, so they list exactly what Undo would
 * put back: a file written and then put back by the agent is not changed,
 * a file a command changed is.
 */
import type { ChangedFile } from '../vocabulary/changed-file';
import type { GitSnapshotManager } from './git-snapshots';
import { planUndo, type PlannedChange } from './restore-plan';
import type { UndoEntry } from './undo-log';

/** What undoing a file does, turned round into what the prompt did to it. */
const DONE_BY_PROMPT: Record<PlannedChange['status'], ChangedFile['status']> = { modified: 'modified', deleted: 'added', added: 'deleted' };

/** Each file the prompt of `entry` changed, before it against now, with its lines (sorted by path). */
export async function promptChanges(snapshots: GitSnapshotManager, entry: UndoEntry, signal: AbortSignal): Promise<ChangedFile[]> {
  // Planned without the journal: nothing is noted, nothing is written.
  const plan = await planUndo(snapshots, entry, signal);
  return plan.changes.map(changedByPrompt).sort((a, b) => a.path.localeCompare(b.path));
}

/** A planned restore of one file, as the prompt changed it (the restore's own counts, the other way round). */
export function changedByPrompt(change: PlannedChange): ChangedFile {
  return { path: change.path, status: DONE_BY_PROMPT[change.status], added: change.removed, removed: change.added, ...(change.binary ? { binary: true } : {}) };
}
