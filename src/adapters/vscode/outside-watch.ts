/**
 * Watching files in a folder outside the workspace (Crow's session store,
 * the user's config folder). VS Code's watcher of such a folder starts in
 * another process and, in the extension-host tests, sometimes missed a
 * change altogether (a new session, 1 run of 3 on 2026-11-26). So Node's
 * own non-recursive watcher on the folder runs beside it: it sees an entry
 * of the folder appear, change or go at once. Where Node cannot watch (the
 * folder is missing, the inotify limit is reached), VS Code's watcher remains.
 */
import { watch } from 'node:fs';
import * as vscode from 'vscode';

/** Calls `onChange` when a file `pattern` matches under `folder` changes, or an entry of `folder` itself does (`entry` filters those by name). */
export function watchOutsideWorkspace(folder: string, pattern: string, onChange: () => void, entry: (name: string) => boolean = () => true): vscode.Disposable {
  const vscodeWatcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder), pattern));
  vscodeWatcher.onDidCreate(onChange);
  vscodeWatcher.onDidChange(onChange);
  vscodeWatcher.onDidDelete(onChange);
  let closeNode = (): void => undefined;
  try {
    const nodeWatcher = watch(folder, { persistent: false }, (_event, name) => {
      if (name === null || entry(name.toString())) onChange();
    });
    nodeWatcher.on('error', () => nodeWatcher.close());
    closeNode = () => nodeWatcher.close();
  } catch {
    // VS Code's watcher alone.
  }
  return { dispose: () => (vscodeWatcher.dispose(), closeNode()) };
}
