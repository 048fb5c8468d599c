/**
 * Single files in the shadow repository, for undo that does not scale with
 * the tree: the state of a few paths before a tool changes them (their
 * contents written as blobs, content-addressed), what a snapshot holds at
 * some paths, and a small tree built from such states, so the tree-to-tree
 * diff and restore work on them unchanged.
 */
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfinedFolder, LinkRefusedError } from '../tools/confined-folder';
import type { GitRunner } from './git-runner';
import { EXECUTABLE, FILE, SYMLINK, writeObject } from './git-trees';

/** One path as it was at some moment: a file or symlink with its git mode and blob, or nothing. */
export type FileState = { path: string; mode: string; blob: string } | { path: string; absent: true };


/**
 * The current state of each workspace-relative path, contents stored as
 * blobs in the shadow repository `gitDir`, written in this process (no git
 * runs: a file tool's copy costs a read and a write). A folder at a path
 * counts as absent: file tools only replace files.
 */
export async function fileStates(gitDir: string, root: string, paths: readonly string[], signal?: AbortSignal): Promise<FileState[]> {
  // A path reached through a link is not in the workspace as recorded: it counts as absent, and nothing beyond the link is read.
  const folder = new ConfinedFolder(root, 'never');
  return Promise.all(
    [...new Set(paths)].map(async (path): Promise<FileState> => {
      signal?.throwIfAborted();
      const stat = await lstat(join(root, path)).catch(() => undefined);
      const kind = stat ? await folder.kind(path).catch((err: unknown) => (err instanceof LinkRefusedError ? 'absent' : Promise.reject(err))) : 'absent';
      // The bytes as they are on disk, whatever .gitattributes says; a file gone meanwhile is absent.
      const content = kind === 'file' ? await folder.readFile(path).catch(() => undefined) : undefined;
      if (stat && content) return { path, mode: stat.mode & 0o111 ? EXECUTABLE : FILE, blob: await writeObject(gitDir, 'blob', content) };
      const target = kind === 'link' ? await folder.readLink(path).catch(() => undefined) : undefined;
      if (target) return { path, mode: SYMLINK, blob: await writeObject(gitDir, 'blob', target) };
      return { path, absent: true };
    }),
  );
}

/** Beyond this many paths, the whole tree is listed and filtered rather than the paths passed as arguments (which have a length limit). */
const LISTED_PATHS = 500;

/** What `tree` holds at each path, including the files under a path that is a folder there; paths it lacks come back absent. */
export async function statesAt(git: GitRunner, tree: string, paths: readonly string[], signal?: AbortSignal): Promise<FileState[]> {
  if (paths.length === 0) return [];
  const wanted = new Set(paths);
  const named = paths.length <= LISTED_PATHS;
  const args = ['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', tree, ...(named ? ['--', ...paths] : [])];
  const present: FileState[] = [];
  for (const record of (await git.text(args, { signal })).split('\0')) {
    // `<mode> <type> <object>\t<path>`
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type = '', blob = ''] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    if (type === 'blob' && (named || wanted.has(path) || ancestors(path).some((folder) => wanted.has(folder)))) present.push({ path, mode, blob });
  }
  const covered = new Set(present.flatMap((state) => [state.path, ...ancestors(state.path)]));
  return [...present, ...paths.filter((path) => !covered.has(path)).map((path): FileState => ({ path, absent: true }))];
}

/** The folders above a path, nearest first: a/b/c → a/b, a. */
export function ancestors(path: string): string[] {
  const folders: string[] = [];
  for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) folders.push(path.slice(0, slash));
  return folders;
}

/** A tree holding exactly the present states, built in an index file of its own so the shadow index is not touched. */
export async function treeOf(git: GitRunner, gitDir: string, states: readonly FileState[], signal?: AbortSignal): Promise<string> {
  const indexFile = join(gitDir, `index.undo-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    const entries = states.flatMap((state) => ('absent' in state ? [] : [`${state.mode} ${state.blob}\t${state.path}\0`]));
    if (entries.length > 0) await git.run(['update-index', '-z', '--add', '--index-info'], { input: entries.join(''), indexFile, signal });
    return (await git.text(['write-tree'], { indexFile, signal })).trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}
