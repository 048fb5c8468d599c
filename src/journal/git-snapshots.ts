/**
 * A SnapshotManager on a shadow git repository. The workspace is the work
 * tree of a repository kept outside it, under <dataHome>/snapshots/<key>, so
 * the user's own .git is never written. A snapshot id is the hash of a tree
 * written from the shadow index, whose stat cache makes a repeated track of
 * an unchanged workspace cheap: a track lists what changed since the last
 * one (`git diff-files` and `git ls-files --others`, run side by side) and
 * re-reads only those files. On 100,000 files that is about a tenth of a
 * second, where `git add -A` with its separate size check took half a second
 * (git's untracked cache did not change either figure on Linux).
 *
 * With `watch` on (a session), a file watcher started before the first
 * track scans names the paths changed since the last track, and a later
 * track edits the last tree at just those paths, without the index
 * (tree-edit.ts): its cost follows what changed, not the tree's size (a
 * one-file command on 100,000 or 300,000 files waits about 10 ms). When the
 * watcher cannot tell, the index-based track above runs; after edited
 * tracks the index is behind the tree, so that track scans (the index's
 * stat data then shows every file changed since it was written).
 *
 * A snapshot leaves out files ignored by the workspace's .gitignore files or
 * the `ignore` option, files over `maxFileBytes`, nested git repositories
 * (their contents belong to their own history) and crow's data folder when
 * it lies inside the workspace (a home folder opened as a workspace).
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { dataHome } from '../config/paths';
import type { FileChange } from '../tools/undo-recorder';
import { captureFiles, type FileState, fileStates, statesAt, storeCaptured, treeOf } from './file-states';
import { GitError, GitRunner } from './git-runner';
import { changedAmong, changedSinceLastTrack, fileSize, stage } from './index-track';
import { initShadow, resetShadowIndex, seedShadow, type ShadowOptions } from './shadow-repository';
import { applyRestore } from './snapshot-restore';
import { TreeCache } from './git-trees';
import { type DiffStat, snapshotId, TreeDiffs } from './tree-diffs';
import { objectsWritten } from './loose-objects';
import { type EditedTree, editTree } from './tree-edit';
import { type TreeWatcher, type WatchMark, watchTree } from './tree-watcher';
import type { RemoteRecorder } from './keeper-client';

export { type DiffStat, snapshotId } from './tree-diffs';
import { realWorkspace, workspaceKey } from '../vocabulary/workspace-key';

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
  /**
   * Keep a file watcher on the workspace from the first track on, so later
   * tracks ask git only about the paths that changed (see tree-watcher.ts);
   * a function supplies the watcher (tests). Default: off.
   */
  watch?: boolean | ((root: string) => Promise<TreeWatcher | undefined>);
  /** The folder's keeper (keeper-client.ts), asked for the tree before this process records it itself. */
  keeper?: RemoteRecorder;
}

export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
const DEFAULT_GIT_TIMEOUT_MS = 60_000;

/** One queue per shadow repository: commands that write its index never overlap within a process. */
const queues = new Map<string, Promise<unknown>>();

export class GitSnapshotManager {
  /** Real path of the workspace root. */
  readonly workspace: string;
  /** The shadow repository. */
  readonly gitDir: string;
  private readonly dataFolder: string;
  private readonly git: GitRunner;
  /** Recorded trees compared (tree-diffs.ts). */
  private readonly diffs: TreeDiffs;
  private readonly maxFileBytes: number;
  private readonly ignore: readonly string[];
  private readonly timeoutMs: number;
  private prepared: Promise<void> | undefined;
  private initialized: Promise<void> | undefined;
  /**
   * The tree the last track of this manager wrote, the index file as it left
   * it (behind the tree when the tree was edited without it), and the
   * watcher's mark from just before it.
   */
  private lastTree: { id: string; index: string; indexBehind?: boolean; mark?: WatchMark } | undefined;
  /** Trees the edited tracks read and wrote, so the next one rarely needs git at all. */
  private readonly trees = new TreeCache();
  /** The files the last edited track changed, so the diff of the command it followed needs no git. */
  private lastEdit: { from: string; to: string; changes: FileChange[] } | undefined;
  private readonly startWatcher: ((root: string) => Promise<TreeWatcher | undefined>) | undefined;
  private readonly keeper: RemoteRecorder | undefined;
  /** The watcher, started by the first track (undefined inside when none can run). */
  private watching: Promise<TreeWatcher | undefined> | undefined;
  private closed = false;

  constructor(options: GitSnapshotOptions) {
    this.workspace = realWorkspace(options.workspace);
    this.dataFolder = options.dataHome ?? dataHome(options.env);
    this.gitDir = join(this.dataFolder, 'snapshots', workspaceKey(this.workspace));
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.ignore = options.ignore ?? [];
    this.timeoutMs = options.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    this.keeper = options.keeper;
    this.startWatcher =
      options.watch === true
        ? async (root) => watchTree(root, { skip: [await realpath(this.dataFolder).catch(() => this.dataFolder)] })
        : options.watch || undefined;
    this.git = new GitRunner({
      gitDir: this.gitDir,
      workTree: this.workspace,
      env: options.env ?? process.env,
      timeoutMs: this.timeoutMs,
    });
    this.diffs = new TreeDiffs(this.git, this.gitDir, this.workspace);
  }

  /** Records the workspace as it is now; returns the snapshot id. Ignored files are not recorded. */
  track(signal?: AbortSignal): Promise<string> {
    return this.exclusive(() => this.now(signal));
  }

  /** The files at these workspace-relative paths as they are now, their contents kept in the shadow repository. Proportional to the files, not the tree. */
  async fileStates(paths: readonly string[], signal?: AbortSignal): Promise<FileState[]> {
    // Blobs need the repository, not its index: seeding the index (work on the whole tree) waits for the first track.
    await this.init(signal);
    return fileStates(this.gitDir, this.workspace, paths, signal);
  }

  /**
   * fileStates in two steps, for a tool about to change the files: their
   * bytes read now (all that must come before the change), and the states
   * made by the function returned (a hash per file, the objects written
   * later), which may run beside the change.
   */
  async captureFiles(paths: readonly string[], signal?: AbortSignal): Promise<() => FileState[]> {
    await this.init(signal);
    const captured = await captureFiles(this.workspace, paths, signal);
    return () => storeCaptured(this.gitDir, captured);
  }

  /** Resolves once the objects fileStates() is still writing are on disk; rejects when one could not be written. */
  objectsWritten(): Promise<void> {
    return objectsWritten(this.gitDir);
  }

  /** What `tree` holds at these paths (files under a path that is a folder there, too); a path it lacks is absent. */
  statesAt(tree: string, paths: readonly string[], signal?: AbortSignal): Promise<FileState[]> {
    return statesAt(this.git, snapshotId(tree), paths, signal);
  }

  /** Keeps a copy of a file from anywhere (the user's git index) as a blob; returns its id. */
  async saveFile(path: string, signal?: AbortSignal): Promise<string> {
    await this.prepare(signal);
    const content = await readFile(path);
    return (await this.git.text(['hash-object', '-w', '--stdin'], { input: content, signal })).trim();
  }

  /** The bytes of a blob kept by fileStates() or saveFile(). */
  readBlob(blob: string, signal?: AbortSignal): Promise<Buffer> {
    return this.git.run(['cat-file', 'blob', snapshotId(blob)], { signal });
  }

  /** A snapshot holding just these files. */
  treeOf(states: readonly FileState[], signal?: AbortSignal): Promise<string> {
    return treeOf(this.gitDir, states, signal);
  }

  /** When `to` is omitted, a file left out of the recording but still on disk counts as modified, not deleted. */
  async changes(from: string, to?: string, signal?: AbortSignal): Promise<FileChange[]> {
    const target = to ?? (await this.track(signal));
    const edit = this.lastEdit;
    const known = from === target ? [] : edit?.from === from && edit.to === target ? edit.changes.map((change) => ({ ...change })) : undefined;
    const changes = known ?? (await this.diffs.changes(from, target, undefined, signal)).map(({ path, status }) => ({ path, status }));
    return to === undefined ? this.withUnrecorded(changes) : changes;
  }

  async diff(from: string, to?: string, paths?: readonly string[], signal?: AbortSignal): Promise<string> {
    if (paths?.length === 0) return '';
    return this.diffs.patch(from, to ?? (await this.track(signal)), paths, signal);
  }

  /** Lines added and removed per file from `from` to `to` (default: now), like `git diff --numstat`. */
  async diffStat(from: string, to?: string, paths?: readonly string[], signal?: AbortSignal): Promise<DiffStat[]> {
    if (paths?.length === 0) return [];
    return this.diffs.stats(from, to ?? (await this.track(signal)), paths, signal);
  }

  /**
   * The signal is honoured until the first file is touched; from then on the
   * restore runs to the end, since a half-restored workspace is worse than a
   * late one. Throws RestoreError when some files could not be put back.
   */
  restore(snapshot: string, paths?: readonly string[], signal?: AbortSignal): Promise<FileChange[]> {
    return this.exclusive(async () => {
      if (paths?.length === 0) return [];
      const now = await this.now(signal);
      const plan = await this.diffs.changes(now, snapshot, paths, signal);
      return applyRestore(plan, { root: this.workspace, snapshot, git: this.git, signal });
    });
  }

  /** Makes the files that differ between snapshots `from` (how things are) and `to` as they are in `to`; as restore(), without a track. */
  restoreBetween(from: string, to: string, signal?: AbortSignal): Promise<FileChange[]> {
    return this.exclusive(async () => {
      const plan = await this.diffs.changes(from, to, undefined, signal);
      return applyRestore(plan, { root: this.workspace, snapshot: to, git: this.git, signal });
    });
  }

  /** The tree of the workspace as it is now: the folder's keeper's record when it answers, this process's own otherwise. */
  private async now(signal?: AbortSignal): Promise<string> {
    const kept = await this.keeper?.track(signal);
    if (kept !== undefined) return kept;
    const started = performance.now();
    const id = await this.record(signal);
    this.keeper?.recordedLocally(performance.now() - started);
    return id;
  }

  /**
   * Records the workspace as it is now. When the watcher names what changed
   * since the last track, the last tree is edited at those paths, without
   * the index (tree-edit.ts); otherwise what changed is found from the index
   * and the tree written from it. An index git cannot use is dropped and
   * rebuilt once.
   */
  private async record(signal?: AbortSignal, rebuilt = false): Promise<string> {
    // The watch starts (crawling the folders it watches) beside the shadow's preparation; the scan waits for both.
    this.startWatching();
    await this.prepare(signal);
    try {
      const last = this.lastTree;
      const watched = await this.watchedChanges(last?.mark);
      const mark = watched.mark ? { mark: watched.mark } : {};
      if (last && Array.isArray(watched.changed)) {
        if (watched.changed.length === 0) {
          this.lastTree = { ...last, ...mark };
          return last.id;
        }
        const edited = await this.edit(last.id, watched.changed, signal);
        if (edited) {
          // The index no longer matches the last tree: until a scan brings it up to date, only a scan may use it.
          this.lastTree = { id: edited.tree, index: last.index, indexBehind: true, ...mark };
          this.lastEdit = { from: last.id, to: edited.tree, changes: edited.changes };
          return edited.tree;
        }
      }
      // The index is what the last track left, untouched by anyone since (another crow on this folder): it can be asked about named paths only.
      const indexed = last !== undefined && !last.indexBehind && last.index === (await this.indexStamp());
      const changed = Array.isArray(watched.changed) && indexed ? await changedAmong(this.git, watched.changed, signal) : await changedSinceLastTrack(this.git, signal);
      if (changed.length === 0 && last && indexed) {
        this.lastTree = { ...last, ...mark };
        return last.id;
      }
      await stage(this.git, this.workspace, this.maxFileBytes, changed, signal);
      const id = (await this.git.text(['write-tree'], { signal })).trim();
      this.lastTree = { id, index: await this.indexStamp(), ...mark };
      return id;
    } catch (err) {
      this.lastTree = undefined;
      if (rebuilt || !(err instanceof GitError) || err.timedOut) throw err;
      await resetShadowIndex(this.gitDir);
      return this.record(signal, true);
    }
  }

  /** The last tree edited at the named paths; undefined (the caller scans) when that cannot be done safely or fails. */
  private async edit(base: string, paths: readonly string[], signal?: AbortSignal): Promise<EditedTree | undefined> {
    try {
      return await editTree(base, paths, { git: this.git, trees: this.trees, gitDir: this.gitDir, root: this.workspace, maxFileBytes: this.maxFileBytes, signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
  }

  private async indexStamp(): Promise<string> {
    const stats = await stat(join(this.gitDir, 'index')).catch(() => undefined);
    return stats ? `${stats.mtimeMs}:${stats.size}:${stats.ino}` : 'none';
  }

  /** Stops the workspace's watcher, also one still starting (a live watch would keep the process running). */
  async close(): Promise<void> {
    this.closed = true;
    const watcher = await this.watching;
    this.watching = undefined;
    await watcher?.close();
  }

  /**
   * The watcher's new mark and the paths changed since `previous`, or
   * 'unknown'. The watcher starts with the first track and is listening
   * before that track scans, so the second track already asks git only
   * about what changed.
   */
  private async watchedChanges(previous: WatchMark | undefined): Promise<{ mark?: WatchMark; changed: string[] | 'unknown' }> {
    const watcher = await this.startWatching();
    if (!watcher || this.closed) return { changed: 'unknown' };
    return watcher.advance(previous);
  }

  /** The workspace's watcher, started on first call; undefined when none is wanted or can run. */
  private startWatching(): Promise<TreeWatcher | undefined> {
    if (!this.startWatcher || this.closed) return Promise.resolve(undefined);
    this.watching ??= this.startWatcher(this.workspace).catch(() => undefined);
    return this.watching;
  }

  /** The shadow repository ready for tracks: created, configured and its index seeded. */
  private prepare(signal?: AbortSignal): Promise<void> {
    this.prepared ??= this.init(signal)
      .then(() => seedShadow(this.git, this.shadowOptions(), signal))
      .catch((err: unknown) => {
        this.prepared = undefined;
        throw err;
      });
    return this.prepared;
  }

  /** The shadow repository created and configured, enough to keep blobs. */
  private init(signal?: AbortSignal): Promise<void> {
    this.initialized ??= initShadow(this.git, this.shadowOptions(), signal).catch((err: unknown) => {
      this.initialized = undefined;
      throw err;
    });
    return this.initialized;
  }

  private shadowOptions(): ShadowOptions {
    return { gitDir: this.gitDir, workspace: this.workspace, dataFolder: this.dataFolder, ignore: this.ignore, timeoutMs: this.timeoutMs };
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
