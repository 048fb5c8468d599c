/**
 * Finding and recording what changed through the shadow repository's index:
 * the way a track scans (git's stat cache makes an unchanged tree cheap to
 * look at), or asks git about named paths while the index is as the last
 * track left it. Every git process here reads the whole index; a watched
 * track edits the last tree instead (tree-edit.ts).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { GitError, type GitRunner } from './git-runner';

/**
 * As changedSinceLastTrack, only at (and under) these workspace-relative
 * paths, in one git process (each reads the whole index): a file whose
 * stat data changed but whose content did not is left as it is.
 */
export async function changedAmong(git: GitRunner, paths: readonly string[], signal?: AbortSignal): Promise<string[]> {
  if (paths.length === 0) return [];
  const specs = paths.map((path) => `:(top,literal)${path}`);
  const listed = await git.text(['ls-files', '-z', '--modified', '--deleted', '--others', '--exclude-standard', '--', ...specs], { signal });
  return [...new Set(nulSplit(listed))];
}

/** Tracked files whose stat data changed (or that are gone) and files git does not know yet; nested repositories end in '/'. */
export async function changedSinceLastTrack(git: GitRunner, signal?: AbortSignal): Promise<string[]> {
  const [modified, others] = await Promise.all([
    git.text(['diff-files', '--name-only', '-z'], { signal }),
    git.text(['ls-files', '-z', '--others', '--exclude-standard'], { signal }),
  ]);
  return [...new Set([...nulSplit(modified), ...nulSplit(others)])];
}

/**
 * Puts the changed paths into the shadow index: new and changed files
 * re-read, vanished ones dropped, and files over the size cap left out
 * (dropped if they were in). Nested repositories are never entered.
 */
export async function stage(git: GitRunner, root: string, maxFileBytes: number, paths: readonly string[], signal?: AbortSignal): Promise<void> {
  const files = paths.filter((path) => !path.endsWith('/'));
  if (files.length === 0) return;
  const sizes = await Promise.all(files.map((path) => fileSize(join(root, path))));
  const oversized = files.filter((_, i) => sizes[i]! > maxFileBytes);
  const kept = files.filter((_, i) => sizes[i]! <= maxFileBytes);
  if (oversized.length > 0) {
    await git.run(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin(oversized), signal });
  }
  if (kept.length === 0) return;
  try {
    // --replace: a file may take the place of a folder; --remove: a path with nothing on disk leaves the index.
    await git.run(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], { input: nulJoin(kept), signal });
  } catch (err) {
    if (!(err instanceof GitError) || err.timedOut) throw err;
    // A file that cannot be read or vanished mid-way: --ignore-errors leaves it out (exit 1) instead of losing the snapshot.
    await git.run(['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      input: nulJoin(kept.map((path) => `:(top,literal)${path}`)),
      signal,
      okExitCodes: [0, 1],
    });
  }
}

/** Size in bytes; -1 when there is nothing at `path`. */
export async function fileSize(path: string): Promise<number> {
  return lstat(path).then(
    (stats) => stats.size,
    () => -1,
  );
}

export function nulSplit(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}

function nulJoin(parts: readonly string[]): string {
  return parts.map((part) => `${part}\0`).join('');
}
