import type { DiffStat, GitSnapshotManager } from './git-snapshots';
import type { FileChange } from '../tools/snapshots';

/** A file a restore will change, from the restore's point of view, with its line counts. */
export type PlannedChange = FileChange & Omit<DiffStat, 'path'>;

/** What restoring `snapshot` would change now, read without touching the workspace. */
export async function planRestore(snapshots: GitSnapshotManager, snapshot: string, signal: AbortSignal): Promise<PlannedChange[]> {
  const now = await snapshots.track(signal);
  const [changes, stats] = await Promise.all([snapshots.changes(now, snapshot, signal), snapshots.diffStat(now, snapshot, undefined, signal)]);
  const byPath = new Map(stats.map((stat) => [stat.path, stat]));
  return changes.map((change) => ({ added: 0, removed: 0, binary: false, ...byPath.get(change.path), ...change }));
}

/** "3 files: 1 modified, 1 deleted, 1 added" */
export function countFiles(changes: readonly FileChange[]): string {
  const counts = (['modified', 'deleted', 'added'] as const)
    .map((status) => [status, changes.filter((change) => change.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`);
  return `${changes.length} file${changes.length === 1 ? '' : 's'}: ${counts.join(', ')}`;
}
