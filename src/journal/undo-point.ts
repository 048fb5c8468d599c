/**
 * Undo points: what a prompt changed, recorded so `crow undo` (and /undo)
 * can put it back, without anything on the critical path that grows with
 * the repository.
 *
 * - The snapshot of the whole workspace before the prompt is taken for its
 *   first command: as the track before it, begun while the command's call
 *   still streams. A prompt that runs no command records no tree: nothing a
 *   file tool does waits on, or competes with, work on the whole tree.
 * - A file tool keeps only the files it names, as they are before its
 *   first change in the prompt (a blob per file, milliseconds).
 * - A command waits for that snapshot (at most the track timeout), and is
 *   tracked before and after: the files it changed are restored from the
 *   snapshot. When the snapshot is not ready in time (a huge folder seen for
 *   the first time), the user is told once, commands of the prompt cannot
 *   be undone, and file tools carry on as above.
 * - A command that changes the user's git index (`git add -A`): the index
 *   as it was before is kept and put back by undo.
 *
 * For each path the first change of the prompt decides where its earlier
 * state comes from: the file tool's copy, or the snapshot.
 */
import { randomUUID } from 'node:crypto';
import { chmod, copyFile, link, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../config/paths';
import { DEFAULT_UNDO_TRACK_TIMEOUT_MS } from '../config/settings-file';
import { errorText } from '../vocabulary/text';
import type { CommandWatch } from '../tools/undo-recorder';
import type { FileState } from './file-states';
import type { GitSnapshotManager } from './git-snapshots';
import { findUserRepository, type UserRepository } from './shadow-repository';
import type { UndoLog } from './undo-log';

/** A snapshot a command waits on for longer than this is announced. */
const SLOW_NOTICE_MS = 700;

export interface PromptUndoOptions {
  sessionId: string;
  prompt: string;
  /** How long a command waits for the snapshot before it runs without undo (default DEFAULT_UNDO_TRACK_TIMEOUT_MS). */
  trackTimeoutMs?: number;
  /** Tells the user something about undo in this prompt; each message is told once per session. */
  notify(level: UndoNoticeLevel, message: string): void;
}

/** How loud a notice about undo is (a subset of the engine's notice levels). */
export type UndoNoticeLevel = 'info' | 'warning';

/** What a command not recorded changed, as far as undo can tell: nothing. */
export const UNWATCHED: CommandWatch = { changedFiles: async () => [] };

/** A track started before the command that will use it. */
interface EarlyTrack {
  tree: Promise<string | undefined>;
  startedAt: number;
  /** The point's change count when it started. */
  changes: number;
}

/** An early track older than this is not used: the user may have edited files since (an approval that took a while). */
const EARLY_TRACK_FRESH_MS = 3_000;

/** The user's git index at one moment. */
interface IndexMark {
  path: string;
  /** mtime, size and inode: what changes when git rewrites the file. */
  stamp: string;
  mtimeMs: number;
}

/** One prompt's undo point. */
export class UndoPoint {
  private readonly controller = new AbortController();
  private readonly id: Promise<string>;
  /** The snapshot before the prompt's first change, started by that change (a prompt that changes nothing runs no git at all). */
  private recording: Promise<string | Error> | undefined;
  private readonly timeoutMs: number;
  /** Why commands of this prompt are not tracked, once that is known. */
  private untracked: string | undefined;
  private repository: Promise<UserRepository | undefined> | undefined;
  /** A copy of the user's index as it was before the prompt's first command (kept as a blob only if a command changes it). */
  /** The prompt's copy of the user's git index (made at its first command) and that index's time then. */
  private indexCopy: Promise<IndexCopy | undefined> | undefined;
  private indexSaved = false;
  /** Recorded changes so far (file tools and commands): an early track from before the last one is stale. */
  private changes = 0;
  private early: EarlyTrack | undefined;
  /** Steps and checkpoints are numbered as they begin, so their order holds whatever order their lines are written in. */
  private seq = 0;

  constructor(
    private readonly snapshots: GitSnapshotManager,
    private readonly log: UndoLog,
    private readonly options: PromptUndoOptions,
  ) {
    this.timeoutMs = options.trackTimeoutMs ?? DEFAULT_UNDO_TRACK_TIMEOUT_MS;
    this.id = log.start(options.sessionId, options.prompt);
    // Nobody may be waiting yet: a failure is reported where it matters (a tool, a command).
    this.id.catch(() => undefined);
  }

  /** The point's id in the journal, once its start is written. */
  point(): Promise<string> {
    return this.id;
  }

  /** Resolves once the prompt's record is in the undo log (or could not be written). */
  async started(): Promise<void> {
    await this.id.catch(() => undefined);
  }

  /** Resolves once the snapshot before the prompt is recorded (or could not be); for tests and benchmarks. */
  async settled(): Promise<void> {
    await this.baseline;
  }

  /**
   * Stops the snapshot and the early track if they still run (the session
   * is closing); resolves once their git processes are gone, so nothing
   * the point started still writes in crow's data folder.
   */
  async stop(): Promise<void> {
    this.controller.abort();
    this.release();
    await Promise.allSettled([this.recording, this.early?.tree]);
  }

  /** The snapshot before the prompt's first change, started on first use. */
  private get baseline(): Promise<string | Error> {
    this.recording ??= this.recordBaseline();
    return this.recording;
  }

  /** Drops the copy of the user's index: the point is over (a command that changed the index has kept it as a blob). */
  release(): void {
    void this.indexCopy?.then((copy) => (copy ? rm(copy.file, { force: true }) : undefined));
  }

  /** A checkpoint here, between the steps before and after it; returns its id (the log line follows). */
  mark(): string {
    const id = randomUUID();
    const seq = ++this.seq;
    void this.id.then((point) => this.log.mark(point, id, seq)).catch(() => undefined);
    return id;
  }

  /**
   * Before a file tool changes `paths`: keeps them as they are now (a blob
   * per file), every time, so a checkpoint between two changes of one file
   * can be restored as well as the prompt's start.
   */
  async beforeFileChanges(paths: readonly string[], signal: AbortSignal): Promise<void> {
    // The file's own copy is all a file tool needs: the tree is recorded only for a command (when one is expected, or runs).
    this.changes++;
    const seq = ++this.seq;
    const named = [...new Set(paths)];
    if (named.length === 0) return;
    let store: () => FileState[];
    try {
      // The files' bytes are read now, before the tool changes them.
      store = await this.snapshots.captureFiles(named, signal);
    } catch (err) {
      this.unavailable(err);
      throw err;
    }
    // Hashing them (5 ms a 10 MB file) and writing their objects go on beside the tool's own work: the log keeps the step's place.
    const states = new Promise<void>((resolve) => setImmediate(resolve)).then(store);
    const written = states.then(() => this.snapshots.objectsWritten());
    // Reported through the step's line (unavailable); when the point's start failed there is no line, and it must not go unhandled.
    written.catch(() => undefined);
    void this.id.then((id) => this.log.step(id, states.then((files) => ({ seq, files })), written)).catch((err: unknown) => this.unavailable(err));
  }

  async beforeCommand(signal: AbortSignal): Promise<CommandWatch> {
    const seq = ++this.seq;
    // The prompt's first change: the snapshot before it is the tree as the command finds it.
    const first = this.recording === undefined;
    const baseline = this.untracked === undefined ? await this.waitForBaseline(signal) : undefined;
    if (baseline === undefined) return UNWATCHED;
    const early = first ? { tree: Promise.resolve(baseline), startedAt: Date.now(), changes: this.changes } : this.earlyTrack();
    // An early track that failed is as if there were none.
    const track = early ? early.tree.then((tree) => tree ?? this.snapshots.track(signal)) : this.snapshots.track(signal);
    let before: string | undefined;
    let index: IndexMark | undefined;
    try {
      [before, index] = await Promise.all([this.withinTimeout(track, signal), this.markUserIndex()]);
    } catch (err) {
      if (signal.aborted) throw err;
      this.stopTracking(`the workspace could not be recorded (${errorText(err)})`, '');
      return UNWATCHED;
    }
    if (before === undefined) return UNWATCHED;
    const from = before;
    let answer: Promise<string[]> | undefined;
    return { changedFiles: () => (answer ??= this.afterCommand(from, index, seq)) };
  }

  /**
   * A command is coming (its call is still streaming from the model): the
   * track before it starts now, beside the model, so the command waits
   * less. beforeCommand uses it if nothing changed since and it is fresh.
   */
  expectCommand(): void {
    if (this.untracked !== undefined || (this.early && this.usable(this.early))) return;
    const changes = this.changes;
    // Before the prompt's first change, the snapshot of the prompt is the track before the command.
    const first = this.recording === undefined;
    const tree = this.baseline.then((baseline) =>
      baseline instanceof Error ? undefined : first ? baseline : this.snapshots.track(this.controller.signal),
    );
    this.early = { tree: tree.catch(() => undefined), startedAt: Date.now(), changes };
  }

  /**
   * The model is being asked: the first time in the prompt, the snapshot
   * before the prompt starts now, beside the model's answer, so that a
   * command in that answer finds it made instead of waiting for a scan of
   * the tree. Later asks start nothing (a command's own call starts its
   * track while it streams: expectCommand).
   */
  beforeModelCall(): void {
    if (this.recording === undefined && this.untracked === undefined) this.expectCommand();
  }

  /** The early track, when no change was recorded since it started and it is recent enough that the user is unlikely to have edited since. */
  private earlyTrack(): EarlyTrack | undefined {
    const early = this.early;
    this.early = undefined;
    return early && this.usable(early) ? early : undefined;
  }

  private usable(early: EarlyTrack): boolean {
    return early.changes === this.changes && Date.now() - early.startedAt <= EARLY_TRACK_FRESH_MS;
  }

  /**
   * What the command changed, recorded whatever happened to it: a
   * cancelled or failed command may have changed files too, so this runs
   * under the point's own signal, not the call's.
   */
  private async afterCommand(before: string, index: IndexMark | undefined, seq: number): Promise<string[]> {
    try {
      return await this.recordCommand(before, index, seq);
    } catch (err) {
      const reason = `what a command changed could not be read (${errorText(err)})`;
      this.options.notify('warning', `Undo: ${reason}; it cannot be undone.`);
      await this.id.then((id) => this.log.gap(id, reason)).catch(() => undefined);
      throw err;
    }
  }

  private async recordCommand(before: string, index: IndexMark | undefined, seq: number): Promise<string[]> {
    const signal = this.controller.signal;
    this.changes++;
    const after = await this.snapshots.track(signal);
    // A command right after this one (the same response) starts from here.
    this.early = { tree: Promise.resolve(after), startedAt: Date.now(), changes: this.changes };
    const paths = (await this.snapshots.changes(before, after, signal)).map((change) => change.path);
    const id = await this.id;
    if (paths.length > 0) await this.log.step(id, { seq, commandPaths: paths, before });
    const copy = await this.indexCopy;
    if (index && copy && !this.indexSaved && (await indexMark(index.path))?.stamp !== index.stamp) {
      this.indexSaved = true;
      // A link shares the index's bytes: kept only if git replaced the index (as it always does), not if it was written in place.
      if ((await copyStamp(copy.file)) !== copy.stamp) {
        await this.log.gap(id, 'the git index was rewritten in place by a command, so its state before could not be kept');
        return paths;
      }
      await this.log.userIndex(id, { path: index.path, blob: await this.snapshots.saveFile(copy.file, signal), mtimeMs: copy.mtimeMs }, seq);
    }
    return paths;
  }

  private async recordBaseline(): Promise<string | Error> {
    try {
      const tree = await this.snapshots.track(this.controller.signal);
      if (this.untracked === undefined) await this.log.snapshot(await this.id, tree);
      return tree;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  /** The snapshot before the prompt, waited for at most the track timeout; undefined (and the user told) when there is none. */
  private async waitForBaseline(signal: AbortSignal): Promise<string | undefined> {
    const slow = setTimeout(() => this.options.notify('info', 'Recording the workspace for undo…'), SLOW_NOTICE_MS);
    try {
      const baseline = await this.withinTimeout(this.baseline, signal);
      if (baseline instanceof Error) {
        this.stopTracking(`the workspace could not be recorded (${errorText(baseline)})`, '');
        return undefined;
      }
      return baseline;
    } finally {
      clearTimeout(slow);
    }
  }

  /** The task's result, or undefined (commands then untracked for the rest of the prompt) when it takes longer than the track timeout. */
  private async withinTimeout<T>(task: Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.timeoutMs)));
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal?.reason);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([task, timeout, aborted]);
      if (outcome !== 'timeout') return outcome;
      const limit = this.timeoutMs < 1000 ? `${this.timeoutMs} ms` : `${Math.round(this.timeoutMs / 100) / 10} s`;
      this.stopTracking(
        `this folder is too large to record in ${limit}`,
        ' Raise [undo] track_timeout_ms in config.toml to wait longer; recording goes on in the background, so later prompts are usually quick.',
      );
      return undefined;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  private stopTracking(reason: string, hint: string): void {
    if (this.untracked !== undefined) return;
    this.untracked = reason;
    this.options.notify('warning', `Undo: ${reason}, so what commands change in this prompt cannot be undone; file edits still can.${hint}`);
    void this.id.then((id) => this.log.gap(id, `commands were not recorded: ${reason}`)).catch(() => undefined);
  }

  private unavailable(err: unknown): void {
    this.options.notify('warning', `Undo: file changes could not be recorded (${errorText(err)}); they cannot be undone.`);
  }

  /** Where the user's git index is and how it stands now; its content is kept (once per prompt) in case a command changes it. */
  private async markUserIndex(): Promise<IndexMark | undefined> {
    this.repository ??= findUserRepository(this.snapshots.workspace);
    const repository = await this.repository;
    if (!repository) return undefined;
    const mark = await indexMark(repository.index);
    if (!mark) return undefined;
    const copy = join(this.snapshots.gitDir, `user-index-${process.pid}-${randomUUID()}`);
    this.indexCopy ??= keepIndex(repository.index, copy).then(
      (stamp) => ({ file: copy, mtimeMs: mark.mtimeMs, stamp }),
      () => undefined,
    );
    await this.indexCopy;
    return mark;
  }
}

/** The user's index as a prompt's first command found it, kept in the shadow repository's private folder. */
interface IndexCopy {
  file: string;
  /** The index's own modification time, which a restore gives back. */
  mtimeMs: number;
  /** The kept file's size and time when kept: if they move, its bytes are no longer the index's before the command. */
  stamp: string;
}

/**
 * Keeps `index` at `copy`: a hard link where it can (no bytes copied, which
 * at 300,000 files was a 30 MB copy before every prompt's first command),
 * since git never writes an index in place but writes a new one and renames
 * it over the old (its lockfile protocol), so the link goes on holding the
 * old bytes. A copy where no link can be made (another file system, a file
 * of another user, a system without links). The link gets no chmod: its
 * mode is the user's index's own, and the folder it sits in is private.
 * Resolves with the kept file's stamp.
 */
async function keepIndex(index: string, copy: string): Promise<string> {
  try {
    await link(index, copy);
  } catch {
    await copyFile(index, copy);
    await chmod(copy, PRIVATE_FILE_MODE);
  }
  return copyStamp(copy);
}

async function copyStamp(file: string): Promise<string> {
  const stats = await stat(file).catch(() => undefined);
  return stats ? `${stats.size}:${stats.mtimeMs}` : 'gone';
}

async function indexMark(path: string): Promise<IndexMark | undefined> {
  const stats = await stat(path).catch(() => undefined);
  return stats ? { path, stamp: `${stats.mtimeMs}:${stats.size}:${stats.ino}`, mtimeMs: stats.mtimeMs } : undefined;
}
