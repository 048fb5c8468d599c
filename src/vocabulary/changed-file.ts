/**
 * What a prompt changed in the workspace, as its journal tells it (each
 * file before the prompt against now): the one answer behind a changes
 * bar, "N files changed" at a run's end and what Undo would put back. A
 * file written and then put back is not in it; a file a command changed is.
 */
export interface ChangedFile {
  /** Workspace-relative path. */
  path: string;
  /** What the prompt did to it: made it, changed it, or removed it. */
  status: 'added' | 'modified' | 'deleted';
  /** Lines the prompt added and removed (0 and 0 for a binary file). */
  added: number;
  removed: number;
  binary?: boolean;
}

/** "2 files changed (+3 −1)", or '' when nothing changed. */
export function changedLine(files: readonly ChangedFile[]): string {
  if (files.length === 0) return '';
  const added = files.reduce((sum, file) => sum + file.added, 0);
  const removed = files.reduce((sum, file) => sum + file.removed, 0);
  return `${files.length} file${files.length === 1 ? '' : 's'} changed (+${added} −${removed})`;
}

/** "a.txt +1 −1, b.bin (binary), old.txt (removed)": each file with its counts. */
export function changedList(files: readonly ChangedFile[]): string {
  return files
    .map((file) => (file.status === 'deleted' ? `${file.path} (removed)` : file.binary ? `${file.path} (binary)` : `${file.path} +${file.added} −${file.removed}`))
    .join(', ');
}
