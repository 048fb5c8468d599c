/**
 * Single files in the shadow repository, for undo that does not scale with
 * the tree: the state of a few paths before a tool changes them (their
 * contents written as blobs, content-addressed), what a snapshot holds at
 * some paths, and a small tree built from such states, so the tree-to-tree
 * diff and restore work on them unchanged.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfinedFolder, LinkRefusedError } from '../tools/confined-folder';
import type { GitRunner } from './git-runner';
import { EXECUTABLE, FILE, Folder, SYMLINK } from './git-trees';
import { writeObject, writeObjectLater } from './loose-objects';
import { nameKey, WIN32_PATHS } from '../vocabulary/path-semantics';

/** One path as it was at some moment: a file or symlink with its git mode and blob, or nothing. */
export type FileState = { path: string; mode: string; blob: string } | { path: string; absent: true };


/** A path as read before a change: its bytes (a file's, or a link's target) and git mode, or nothing there. */
export type CapturedFile = { path: string; mode: string; bytes: Buffer } | { path: string; absent: true };

/**
 * The current state of each workspace-relative path, contents stored as
 * blobs in the shadow repository `gitDir`, written in this process (no git
 * runs: a file tool's copy costs a read and a hash; the object is written
 * beside the tool's own work, see writeObjectLater). A folder at a path
 * counts as absent: file tools only replace files.
 */
export async function fileStates(gitDir: string, root: string, paths: readonly string[], signal?: AbortSignal): Promise<FileState[]> {
  return storeCaptured(gitDir, await captureFiles(root, paths, signal));
}

/**
 * What fileStates reads, and all that must happen before a tool changes
 * the files: their bytes in hand. Hashing and keeping them (storeCaptured)
 * may follow beside the tool's own work.
 */
export async function captureFiles(root: string, paths: readonly string[], signal?: AbortSignal): Promise<CapturedFile[]> {
  // A path reached through a link is not in the workspace as recorded: it counts as absent, and nothing beyond the link is read.
  const folder = new ConfinedFolder(root, 'never');
  return Promise.all(
    [...new Set(paths)].map(async (path): Promise<CapturedFile> => {
      signal?.throwIfAborted();
      const stat = await lstat(join(root, path)).catch(() => undefined);
      const kind = stat ? await folder.kind(path).catch((err: unknown) => (err instanceof LinkRefusedError ? 'absent' : Promise.reject(err))) : 'absent';
      // The bytes as they are on disk, whatever .gitattributes says; a file gone meanwhile is absent.
      const content = kind === 'file' ? await folder.readFile(path).catch(() => undefined) : undefined;
      if (stat && content) return { path, mode: stat.mode & 0o111 ? EXECUTABLE : FILE, bytes: content };
      const target = kind === 'link' ? await folder.readLink(path).catch(() => undefined) : undefined;
      if (target) return { path, mode: SYMLINK, bytes: target };
      return { path, absent: true };
    }),
  );
}

/** The captured files as states: each one's blob id now (a hash), its object written beside what follows (writeObjectLater). */
export function storeCaptured(gitDir: string, captured: readonly CapturedFile[]): FileState[] {
  return captured.map((file) => ('absent' in file ? file : { path: file.path, mode: file.mode, blob: writeObjectLater(gitDir, 'blob', file.bytes) }));
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

/**
 * A tree holding exactly the present states, written in this process
 * (git-trees.ts) as git's update-index and write-tree would write it, with
 * no git to start: a prompt's "N files changed", and every plan of an undo
 * or a restore, builds two such trees, and each git process costs more
 * than the trees' few objects. The states are checked as git checks an
 * index entry, so a journal line cannot put a path in a tree that git
 * would refuse.
 */
export async function treeOf(gitDir: string, states: readonly FileState[], signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted();
  const present = states.filter((state): state is Extract<FileState, { blob: string }> => !('absent' in state));
  const files = new Set(present.map((state) => state.path));
  const root = new Folder(new Map(), '');
  for (const state of present) {
    checkState(state);
    const folder = ancestors(state.path).find((above) => files.has(above));
    if (folder !== undefined) throw new Error(`"${folder}" is recorded both as a file and as the folder of "${state.path}"`);
    root.set(state.path, { mode: state.mode, oid: state.blob });
  }
  return root.write((_, content) => writeObject(gitDir, 'tree', content));
}

/** The modes a recorded path may have: a file, an executable file, a symlink. */
const STATE_MODES: ReadonlySet<string> = new Set([FILE, EXECUTABLE, SYMLINK]);
const DOT_GIT = '.git';
/** A blob's id in the shadow repository (SHA-1). */
const BLOB_ID = /^[0-9a-f]{40}$/;

/** Refuses what git's update-index refuses: a path with an empty, ".", ".." or ".git" part (also as NTFS spells it), a mode or id it cannot hold. */
function checkState(state: { path: string; mode: string; blob: string }): void {
  const bad = (why: string): Error => new Error(`a recorded state cannot be put in a tree: ${JSON.stringify(state.path)} ${why}`);
  if (!STATE_MODES.has(state.mode)) throw bad(`has the mode ${JSON.stringify(state.mode)}`);
  if (!BLOB_ID.test(state.blob)) throw bad('has no blob id');
  if (state.path.includes('\0')) throw bad('holds a NUL');
  for (const part of state.path.split('/')) {
    // ".git" as Windows reads a name (any case, trailing dots and spaces, a stream) or its first short name: what git's core.protectNTFS refuses everywhere.
    const dotGit = nameKey(part, WIN32_PATHS) === DOT_GIT || part.toLowerCase() === 'git~1';
    if (part === '' || part === '.' || part === '..' || dotGit) throw bad(`has the part ${JSON.stringify(part)}`);
  }
}
