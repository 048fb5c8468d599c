/**
 * A SnapshotManager on a shadow git repository. The workspace is the work
 * tree of a repository kept outside it, under <dataHome>/snapshots/<key>, so
 * the user's own .git is never written. A snapshot id is the hash of a tree
 * written from the shadow index, whose stat cache makes a repeated track of
 * an unchanged workspace cheap.
 *
 * A snapshot leaves out files ignored by the workspace's .gitignore files or
 * the `ignore` option, files over `maxFileBytes`, nested git repositories
 * (their contents belong to their own history) and crow's data folder when
 * it lies inside the workspace (a home folder opened as a workspace).
 */
import { existsSync } from 'node:fs';
import { lstat, mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { dataHome, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import type { FileChange, SnapshotManager } from '../tools/snapshots';
import { GitRunner } from './git-runner';
import { applyRestore, parseRawDiff, type TreeChange } from './snapshot-restore';
import { realWorkspace, workspaceKey } from './workspace-key';

export interface GitSnapshotOptions {
  /** Workspace root; the snapshots belong to its real path. */
  workspace: string;
  /** Folder of crow's data (default: dataHome()). */
  dataHome?: string;
  /** Files larger than this many bytes are not recorded (default 2 MiB). */
  maxFileBytes?: number;
  /** gitignore-style patterns never recorded, on top of the workspace's own .gitignore files. */
  ignore?: readonly string[];
  /** Environment git runs in; its PATH locates git (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Longest one git command may run (default 60 s). */
  gitTimeoutMs?: number;
}

/** Lines added and removed in one file between two snapshots; binary files count no lines. */
export interface DiffStat {
  path: string;
  added: number;
  removed: number;
  binary: boolean;
}

export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
const DEFAULT_GIT_TIMEOUT_MS = 60_000;

/** Keeps restores byte-exact: no line-ending conversion, filter or encoding from the workspace's .gitattributes. */
const ATTRIBUTES = '* -text -filter -ident -working-tree-encoding\n';

/** One queue per shadow repository: commands that write its index never overlap within a process. */
const queues = new Map<string, Promise<unknown>>();

export class GitSnapshotManager implements SnapshotManager {
  /** Real path of the workspace root. */
  readonly workspace: string;
  /** The shadow repository. */
  readonly gitDir: string;
  private readonly dataFolder: string;
  private readonly git: GitRunner;
  private readonly maxFileBytes: number;
  private readonly ignore: readonly string[];
  private readonly timeoutMs: number;
  private prepared: Promise<void> | undefined;

  constructor(options: GitSnapshotOptions) {
    this.workspace = realWorkspace(options.workspace);
    this.dataFolder = options.dataHome ?? dataHome(options.env);
    this.gitDir = join(this.dataFolder, 'snapshots', workspaceKey(this.workspace));
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.ignore = options.ignore ?? [];
    this.timeoutMs = options.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    this.git = new GitRunner({
      gitDir: this.gitDir,
      workTree: this.workspace,
      env: options.env ?? process.env,
      timeoutMs: this.timeoutMs,
    });
  }

  track(signal?: AbortSignal): Promise<string> {
    return this.exclusive(() => this.record(signal));
  }

  /** When `to` is omitted, a file left out of the recording but still on disk counts as modified, not deleted. */
  async changes(from: string, to?: string, signal?: AbortSignal): Promise<FileChange[]> {
    const target = to ?? (await this.track(signal));
    const changes = (await this.treeDiff(from, target, undefined, signal)).map(({ path, status }) => ({ path, status }));
    return to === undefined ? this.withUnrecorded(changes) : changes;
  }

  async diff(from: string, to?: string, paths?: readonly string[], signal?: AbortSignal): Promise<string> {
    if (paths?.length === 0) return '';
    const target = to ?? (await this.track(signal));
    return this.git.text(
      ['diff-tree', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', ...this.range(from, target, paths)],
      { signal },
    );
  }

  /** Lines added and removed per file from `from` to `to` (default: now), like `git diff --numstat`. */
  async diffStat(from: string, to?: string, paths?: readonly string[], signal?: AbortSignal): Promise<DiffStat[]> {
    if (paths?.length === 0) return [];
    const target = to ?? (await this.track(signal));
    const out = await this.git.text(['diff-tree', '-r', '-z', '--numstat', '--no-renames', ...this.range(from, target, paths)], {
      signal,
    });
    return nulSplit(out).map((record) => {
      const [added = '', removed = '', ...path] = record.split('\t');
      const binary = added === '-';
      return { path: path.join('\t'), added: binary ? 0 : Number(added), removed: binary ? 0 : Number(removed), binary };
    });
  }

  /**
   * The signal is honoured until the first file is touched; from then on the
   * restore runs to the end, since a half-restored workspace is worse than a
   * late one. Throws RestoreError when some files could not be put back.
   */
  restore(snapshot: string, paths?: readonly string[], signal?: AbortSignal): Promise<FileChange[]> {
    return this.exclusive(async () => {
      if (paths?.length === 0) return [];
      const now = await this.record(signal);
      const plan = await this.treeDiff(now, snapshot, paths, signal);
      return applyRestore(plan, { root: this.workspace, snapshot, git: this.git, signal });
    });
  }

  private async record(signal?: AbortSignal): Promise<string> {
    await this.prepare(signal);
    const { nested, oversized } = await this.unrecordable(signal);
    if (oversized.length > 0) {
      await this.git.run(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin(oversized), signal });
    }
    const excluded = [...nested, ...oversized].map((path) => `:(top,exclude,literal)${path}`);
    // --ignore-errors: a file that vanishes or cannot be read mid-walk is left out (exit 1) instead of losing the snapshot.
    await this.git.run(['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      input: nulJoin([':/', ...excluded]),
      signal,
      okExitCodes: [0, 1],
    });
    return (await this.git.text(['write-tree'], { signal })).trim();
  }

  /** New or changed paths `git add` must skip: files over the size cap and nested repositories. */
  private async unrecordable(signal?: AbortSignal): Promise<{ nested: string[]; oversized: string[] }> {
    const listed = nulSplit(await this.git.text(['ls-files', '-z', '--others', '--modified', '--exclude-standard'], { signal }));
    const nested = listed.filter((path) => path.endsWith('/'));
    const files = listed.filter((path) => !path.endsWith('/'));
    const sizes = await Promise.all(files.map((path) => fileSize(join(this.workspace, path))));
    return { nested, oversized: files.filter((_, i) => sizes[i]! > this.maxFileBytes) };
  }

  private prepare(signal?: AbortSignal): Promise<void> {
    this.prepared ??= this.createRepository(signal).catch((err: unknown) => {
      this.prepared = undefined;
      throw err;
    });
    return this.prepared;
  }

  private async createRepository(signal?: AbortSignal): Promise<void> {
    await mkdir(dirname(this.gitDir), { recursive: true, mode: PRIVATE_DIR_MODE });
    // --shared=0600 makes git create every file of the repository 0600 (0400 objects) and every folder 0700.
    if (!existsSync(join(this.gitDir, 'HEAD'))) await this.git.run(['init', '--quiet', '--template=', '--shared=0600'], { signal });
    const info = join(this.gitDir, 'info');
    await mkdir(info, { recursive: true, mode: PRIVATE_DIR_MODE });
    const dataFolder = inside(this.workspace, await realpath(this.dataFolder));
    const excluded = [
      '# Never snapshotted (rewritten by Crow Agent)',
      '.git',
      ...(dataFolder ? [`/${dataFolder.replace(/[\\*?[\] ]/g, '\\$&')}/`] : []),
      ...this.ignore,
    ];
    await writeFile(join(info, 'exclude'), `${excluded.join('\n')}\n`, { mode: PRIVATE_FILE_MODE });
    await writeFile(join(info, 'attributes'), ATTRIBUTES, { mode: PRIVATE_FILE_MODE });
    await removeStaleLock(join(this.gitDir, 'index.lock'), 2 * this.timeoutMs);
  }

  private async treeDiff(
    from: string,
    to: string,
    paths: readonly string[] | undefined,
    signal?: AbortSignal,
  ): Promise<TreeChange[]> {
    if (paths?.length === 0) return [];
    const args = ['diff-tree', '-r', '-z', '--raw', '--no-renames', ...this.range(from, to, paths)];
    return parseRawDiff(await this.git.text(args, { signal }));
  }

  /** `<from> <to> -- <pathspecs>` for the diff-tree family, ids checked so none can pass for an option. */
  private range(from: string, to: string, paths: readonly string[] | undefined): string[] {
    return [snapshotId(from), snapshotId(to), '--', ...(paths ?? []).map((path) => this.pathspec(path))];
  }

  private pathspec(path: string): string {
    const rel = inside(this.workspace, resolve(this.workspace, path));
    if (rel === undefined) throw new Error(`${path} is outside the workspace ${this.workspace}`);
    return rel === '' ? ':/' : `:(top,literal)${rel}`;
  }

  private async withUnrecorded(changes: FileChange[]): Promise<FileChange[]> {
    const onDisk = await Promise.all(
      changes.map((change) => change.status === 'deleted' && fileSize(join(this.workspace, change.path)).then((size) => size >= 0)),
    );
    return changes.map((change, i) => (onDisk[i] ? { path: change.path, status: 'modified' } : change));
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = (queues.get(this.gitDir) ?? Promise.resolve()).then(task);
    const settled = run.catch(() => undefined);
    queues.set(this.gitDir, settled);
    void settled.then(() => {
      if (queues.get(this.gitDir) === settled) queues.delete(this.gitDir);
    });
    return run;
  }
}

/** `path` relative to `root` with forward slashes ('' for the root itself); undefined when outside. */
function inside(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

function snapshotId(id: string): string {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(id)) throw new Error(`"${id}" is not a snapshot id`);
  return id;
}

/** Size in bytes; -1 when there is nothing at `path`. */
async function fileSize(path: string): Promise<number> {
  return lstat(path).then(
    (stats) => stats.size,
    () => -1,
  );
}

/** A lock left by a git that was killed outright blocks every later track; one older than any live command can be is removed. */
async function removeStaleLock(lock: string, olderThanMs: number): Promise<void> {
  const stats = await stat(lock).catch(() => undefined);
  if (stats && Date.now() - stats.mtimeMs > olderThanMs) await rm(lock, { force: true });
}

function nulSplit(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}

function nulJoin(parts: readonly string[]): string {
  return parts.map((part) => `${part}\0`).join('');
}
