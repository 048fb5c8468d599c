/**
 * Undo support: a SnapshotManager records whole-workspace states without
 * touching the user's own version control, diffs them and puts files back.
 */

export interface FileChange {
  /** Workspace-relative, forward slashes. */
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

export interface SnapshotManager {
  /** Records the workspace as it is now; returns the snapshot id. Ignored files are not recorded. */
  track(signal?: AbortSignal): Promise<string>;
  /** Files that differ from snapshot `from` to snapshot `to` (default: the workspace now). */
  changes(from: string, to?: string, signal?: AbortSignal): Promise<FileChange[]>;
  /** Unified diff from `from` to `to` (default: now), optionally limited to `paths`. */
  diff(from: string, to?: string, paths?: readonly string[], signal?: AbortSignal): Promise<string>;
  /**
   * Puts files back as they were in `snapshot`: changed files get their old
   * content, files created since are removed. Only `paths` when given; files
   * that are the same in both states (and ignored files) are never touched.
   * Returns what it changed.
   */
  restore(snapshot: string, paths?: readonly string[], signal?: AbortSignal): Promise<FileChange[]>;
}
