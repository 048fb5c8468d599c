/**
 * The shadow repository behind undo, and the user's own repository next to
 * it. The shadow is created once per workspace; when the workspace is the
 * top of a git work tree, its first index is a copy of the user's, and the
 * user's object store is an alternate, so the first track re-reads only the
 * files whose stat data changed instead of hashing the whole tree (on
 * 100,000 files: a third of a second instead of many seconds).
 *
 * Nothing here runs git inside the user's repository: its files are read,
 * never executed against, so its hooks and config (core.fsmonitor, filters)
 * cannot run.
 */
import { constants, existsSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { privateFolderProblem } from '../config/private-files';
import type { GitRunner } from './git-runner';
import { GITLINK } from './git-trees';
import { namesWithin } from '../vocabulary/path-semantics';

/** Marks a shadow whose seed failed once: it is not seeded again. */
const SEED_REFUSED = 'crow-seed-refused';

/** Keeps restores byte-exact: no line-ending conversion, filter or encoding from the workspace's .gitattributes. */
const ATTRIBUTES = '* -text -filter -ident -working-tree-encoding\n';

export interface ShadowOptions {
  gitDir: string;
  /** Real path of the workspace root. */
  workspace: string;
  /** Crow's data folder, never recorded when it lies inside the workspace. */
  dataFolder: string;
  /** gitignore-style patterns never recorded. */
  ignore: readonly string[];
  /** Longest one git command may run: a lock older than twice this was left by a killed git. */
  timeoutMs: number;
}

/** The git repository whose work tree holds the workspace, as found on disk. */
export interface UserRepository {
  /** The folder holding `.git`: the top of the work tree. */
  top: string;
  /** Its git directory (for a linked worktree, that worktree's own). */
  gitDir: string;
  /** The object store, shared by all worktrees. */
  objects: string;
  /** The index of this work tree. */
  index: string;
}

/**
 * Creates the shadow repository if needed and writes its excludes and
 * attributes (enough to keep blobs); seedShadow then readies its index.
 * Only in a folder of crow's own (config/private-files.ts): git reads the
 * repository's config, and restores write what it holds into the workspace.
 */
export async function initShadow(git: GitRunner, options: ShadowOptions, signal?: AbortSignal): Promise<void> {
  const { gitDir, workspace } = options;
  const problem = privateFolderProblem(dirname(gitDir), { create: true }) ?? privateFolderProblem(gitDir);
  if (problem !== undefined) throw new Error(`Undo snapshots are never kept where another user could change them: ${problem}. Set XDG_DATA_HOME to a folder of your own.`);
  // --shared=0600 makes git create every file of the repository 0600 (0400 objects) and every folder 0700.
  if (!existsSync(join(gitDir, 'HEAD'))) await git.run(['init', '--quiet', '--template=', '--shared=0600'], { signal });
  const info = join(gitDir, 'info');
  await mkdir(info, { recursive: true, mode: PRIVATE_DIR_MODE });
  const dataFolder = inside(workspace, await realpath(options.dataFolder).catch(() => options.dataFolder));
  const excluded = [
    '# Never snapshotted (rewritten by Crow Agent)',
    '.git',
    ...(dataFolder ? [`/${dataFolder.replace(/[\\*?[\] ]/g, '\\$&')}/`] : []),
    ...options.ignore,
  ];
  await writeFile(join(info, 'exclude'), `${excluded.join('\n')}\n`, { mode: PRIVATE_FILE_MODE });
  await writeFile(join(info, 'attributes'), ATTRIBUTES, { mode: PRIVATE_FILE_MODE });
}

/** Readies the shadow index for a track: a lock a killed git left is removed, and a new index is seeded from the user's repository. */
export async function seedShadow(git: GitRunner, options: ShadowOptions, signal?: AbortSignal): Promise<void> {
  const { gitDir, workspace } = options;
  await removeStaleLock(join(gitDir, 'index.lock'), 2 * options.timeoutMs);
  if (!existsSync(join(gitDir, 'index')) && (await seedFromUserRepository(gitDir, workspace))) await cleanSeed(git, signal);
}

/**
 * Starts the shadow index from the user's: same work tree, same stat data,
 * blobs found through an alternate. Only when the workspace is the top of
 * that work tree (index paths are relative to it). Without a user index the
 * shadow starts empty, and the first track hashes every file; an index git
 * cannot use here (a split index) is dropped by the first track, which then
 * does the same.
 */
async function seedFromUserRepository(gitDir: string, workspace: string): Promise<boolean> {
  const user = await findUserRepository(workspace);
  if (!user || user.top !== workspace || !(await isFile(user.index)) || !(await isFolder(user.objects))) return false;
  if (existsSync(join(gitDir, SEED_REFUSED))) return false;
  const alternates = join(gitDir, 'objects', 'info', 'alternates');
  await mkdir(dirname(alternates), { recursive: true, mode: PRIVATE_DIR_MODE });
  await writeFile(alternates, `${user.objects}\n`, { mode: PRIVATE_FILE_MODE });
  const index = join(gitDir, 'index');
  const original = await stat(user.index);
  await copyFile(user.index, index, constants.COPYFILE_EXCL);
  await chmod(index, PRIVATE_FILE_MODE);
  await keepIndexTime(index, original.mtimeMs);
  return true;
}

/**
 * What the user's index says for their own purposes does not hold for
 * snapshots: files marked assume-unchanged or skip-worktree would never be
 * re-read, and submodules are left to their own history.
 */
async function cleanSeed(git: GitRunner, signal?: AbortSignal): Promise<void> {
  const flagged: string[] = [];
  const submodules: string[] = [];
  // Each record: `<tag> <mode> <blob> <stage>\t<path>`; a lowercase tag is assume-unchanged, S is skip-worktree.
  for (const record of (await git.text(['ls-files', '-s', '-v', '-z'], { signal })).split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [tag = '', mode = ''] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    if (mode === GITLINK) submodules.push(path);
    else if (tag === 'S' || tag !== tag.toUpperCase()) flagged.push(path);
  }
  const input = (paths: string[]): string => paths.map((path) => `${path}\0`).join('');
  if (submodules.length > 0) await git.run(['update-index', '-z', '--force-remove', '--stdin'], { input: input(submodules), signal });
  if (flagged.length > 0) {
    await git.run(['update-index', '-z', '--no-assume-unchanged', '--no-skip-worktree', '--stdin'], { input: input(flagged), signal });
  }
}

/**
 * Gives a git index written again (a copy, a restore) the time of the index
 * its content came from. git re-reads a file whose stat data matches its
 * entry only when the entry is as new as the index file itself ("racily
 * clean"; git compares times in whole seconds): a newer index file would
 * switch that off for files changed in the second of the last `git add`.
 * Rounded down, which only makes git re-read more.
 */
export async function keepIndexTime(index: string, mtimeMs: number): Promise<void> {
  const mtime = new Date(Math.floor(mtimeMs));
  await utimes(index, mtime, mtime);
}

/** Forgets an index git could not use (a seed whose blobs the user's repository no longer has, say); the next track rebuilds it from the files. */
export async function resetShadowIndex(gitDir: string): Promise<void> {
  await rm(join(gitDir, 'index'), { force: true });
  await writeFile(join(gitDir, SEED_REFUSED), 'The index copied from the workspace repository could not be used; it is not copied again.\n', {
    mode: PRIVATE_FILE_MODE,
  });
}

/**
 * The git repository whose work tree holds `folder`, found by looking for
 * `.git` upwards, as git does (a `.git` file points to a linked worktree's
 * or a submodule's git directory). Undefined outside any repository.
 */
export async function findUserRepository(folder: string): Promise<UserRepository | undefined> {
  for (let top = folder; ; top = dirname(top)) {
    const dotGit = join(top, '.git');
    const gitDir = await gitDirAt(dotGit);
    if (gitDir !== undefined && (await isFile(join(gitDir, 'HEAD')))) {
      const common = await readFile(join(gitDir, 'commondir'), 'utf8').then(
        (text) => resolve(gitDir, text.trim()),
        () => gitDir,
      );
      return { top, gitDir, objects: join(common, 'objects'), index: join(gitDir, 'index') };
    }
    if (dirname(top) === top) return undefined;
  }
}

async function gitDirAt(dotGit: string): Promise<string | undefined> {
  const stats = await lstat(dotGit).catch(() => undefined);
  if (!stats) return undefined;
  if (stats.isDirectory()) return realpath(dotGit).catch(() => undefined);
  if (!stats.isFile()) return undefined;
  const text = await readFile(dotGit, 'utf8').catch(() => '');
  const match = /^gitdir: (.+)$/m.exec(text);
  return match ? realpath(resolve(dirname(dotGit), match[1]!.trim())).catch(() => undefined) : undefined;
}

/** `path` relative to `root` with forward slashes ('' for the root itself); undefined when outside. */
export function inside(root: string, path: string): string | undefined {
  return namesWithin(root, path)?.join('/');
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/** A lock left by a git that was killed outright blocks every later track; one older than any live command can be is removed. */
async function removeStaleLock(lock: string, olderThanMs: number): Promise<void> {
  const stats = await stat(lock).catch(() => undefined);
  if (stats && Date.now() - stats.mtimeMs > olderThanMs) await rm(lock, { force: true });
}
