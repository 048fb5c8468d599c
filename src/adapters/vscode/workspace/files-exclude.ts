import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { exactly, isGlobLiteral } from './exclude-query';

/**
 * The files.exclude setting, applied by VS Code itself: workspace.findFiles
 * with no exclude argument leaves out what files.exclude hides (with its
 * `when` conditions, per folder). findFiles cannot stand in
 * for ripgrep (it ignores .gitignore, sorts nothing, counts nothing), so
 * the searches list with ripgrep, then ask findFiles about what they found.
 */
export class FilesExclude {
  /** Real paths of workspace folders, by their fsPath. */
  private readonly realFolders = new Map<string, string>();

  /**
   * Of `files` (real absolute paths), those that files.exclude hides. Paths
   * outside every workspace folder, and paths VS Code globs cannot name,
   * are never hidden.
   */
  async hiddenAmong(files: readonly string[], signal: AbortSignal): Promise<Set<string>> {
    const byFolder = new Map<string, { owner: Owner; files: string[] }>();
    for (const file of files) {
      const owner = this.ownerOf(file);
      if (!owner) continue;
      const group = byFolder.get(owner.real) ?? { owner, files: [] };
      group.files.push(file);
      byFolder.set(owner.real, group);
    }
    const hidden = new Set<string>();
    for (const { owner, files: inFolder } of byFolder.values()) {
      const pattern = exactly(inFolder.map((file) => owner.relative(file)));
      if (pattern === undefined) continue;
      const visible = await this.visible(owner, pattern, signal);
      for (const file of inFolder) if (isGlobLiteral(owner.relative(file)) && !visible.has(file)) hidden.add(file);
    }
    return hidden;
  }

  private async visible(owner: Owner, pattern: string, signal: AbortSignal): Promise<Set<string>> {
    signal.throwIfAborted();
    const cancellation = new vscode.CancellationTokenSource();
    const onAbort = () => cancellation.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // An undefined exclude is what applies files.exclude (null would apply none).
      const uris = await vscode.workspace
        .findFiles(new vscode.RelativePattern(owner.folder, pattern), undefined, undefined, cancellation.token)
        .then(
          (found) => found,
          (err: unknown) => {
            // A cancelled search rejects in VS Code's words; the contract is the signal's reason.
            signal.throwIfAborted();
            throw err;
          },
        );
      signal.throwIfAborted();
      return new Set(uris.map((uri) => path.join(owner.real, path.relative(owner.folder.uri.fsPath, uri.fsPath))));
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancellation.dispose();
    }
  }

  /**
   * The workspace folder holding a real path, compared by real paths so a
   * symlinked folder still matches; the innermost when folders nest.
   */
  private ownerOf(target: string): Owner | undefined {
    let owner: Owner | undefined;
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      const real = this.realFolder(folder.uri.fsPath);
      const rel = path.relative(real, target);
      if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) continue;
      if (owner && owner.real.length >= real.length) continue;
      owner = { folder, real, relative: (file) => path.relative(real, file).split(path.sep).join('/') };
    }
    return owner;
  }

  private realFolder(fsPath: string): string {
    let real = this.realFolders.get(fsPath);
    if (real === undefined) {
      try {
        real = realpathSync(fsPath);
      } catch {
        real = fsPath;
      }
      this.realFolders.set(fsPath, real);
    }
    return real;
  }
}

interface Owner {
  folder: vscode.WorkspaceFolder;
  /** The folder's real path. */
  real: string;
  /** Folder-relative form of a real path, forward slashes. */
  relative: (file: string) => string;
}
