/**
 * A session's undo recording: the tools' recorder for the whole session,
 * handing each prompt's changes to that prompt's UndoPoint (undo-point.ts),
 * on the workspace's shared snapshot manager (shared-snapshots.ts).
 */
import type { CommandWatch, UndoRecorder } from '../tools/undo-recorder';
import type { GitSnapshotManager } from './git-snapshots';
import type { KeeperLaunch } from './keeper-client';
import { holdSnapshots } from './shared-snapshots';
import { promptChanges } from './prompt-changes';
import { HunkRefused, planHunkUndo, type PromptHunk, promptHunks } from './hunk-restore';
import type { RestorePlan } from './restore-plan';
import type { ChangedFile } from '../vocabulary/changed-file';
import { type UndoEntry, UndoLog } from './undo-log';
import { type PromptUndoOptions, type UndoNoticeLevel, UndoPoint, UNWATCHED } from './undo-point';

export interface SessionUndoOptions {
  /** Workspace root. */
  root: string;
  dataHome: string;
  env: NodeJS.ProcessEnv;
  /** How to start the folder's keeper, for a process that lives for one run (see shared-snapshots.ts). */
  keeper?: KeeperLaunch;
  /** Use this manager (tests) instead of making one. */
  snapshots?: GitSnapshotManager;
}

/** A session's undo recording: one point per prompt, the tools' recorder in between. */
export class SessionUndo implements UndoRecorder {
  readonly snapshots: GitSnapshotManager;
  readonly log: UndoLog;
  private current: UndoPoint | undefined;
  private readonly told = new Set<string>();

  /** Lets go of the workspace's shared manager; undefined when the manager was given (tests), which close() then closes. */
  private readonly release: (() => void) | undefined;

  constructor(readonly options: SessionUndoOptions) {
    // The workspace is watched from its first snapshot on, by a manager every session of the folder in this process shares,
    // so later tracks, of this session or the next, are recorded without scanning the tree.
    const shared = options.snapshots ? undefined : holdSnapshots({
          workspace: options.root,
          dataHome: options.dataHome,
          env: options.env,
          ...(options.keeper ? { keeper: options.keeper } : {}),
        });
    this.snapshots = options.snapshots ?? shared!.manager;
    this.release = shared?.release;
    this.log = new UndoLog({ workspace: options.root, dataHome: options.dataHome });
  }

  /** Starts recording a prompt; returns at once, the snapshot running in the background. */
  begin(options: PromptUndoOptions): UndoPoint {
    const notify = (level: UndoNoticeLevel, message: string): void => {
      if (this.told.has(message)) return;
      this.told.add(message);
      options.notify(level, message);
    };
    this.current?.release();
    this.current = new UndoPoint(this.snapshots, this.log, { ...options, notify });
    return this.current;
  }

  beforeFileChanges(paths: readonly string[], signal: AbortSignal): Promise<void> {
    return this.current?.beforeFileChanges(paths, signal) ?? Promise.resolve();
  }

  beforeCommand(signal: AbortSignal): Promise<CommandWatch> {
    return this.current?.beforeCommand(signal) ?? Promise.resolve(UNWATCHED);
  }

  expectCommand(): void {
    this.current?.expectCommand();
  }

  beforeModelCall(): void {
    this.current?.beforeModelCall();
  }

  checkpoint(): string | undefined {
    return this.current?.mark();
  }

  /**
   * What the session's current prompt changed, from its journal (see
   * prompt-changes.ts); undefined when no prompt was recorded.
   */
  async promptChanges(signal: AbortSignal): Promise<ChangedFile[] | undefined> {
    const entry = await this.currentEntry();
    return entry ? promptChanges(this.snapshots, entry, signal) : undefined;
  }

  /** The hunks of what the current prompt changed in `path` (see hunk-restore.ts). */
  async promptHunks(path: string, signal: AbortSignal): Promise<PromptHunk[]> {
    const entry = await this.currentEntry();
    return entry ? promptHunks(this.snapshots, entry, path, signal) : [];
  }

  /** Plans undoing one hunk of the current prompt's change to `path`; throws HunkRefused saying why not. */
  async planHunkUndo(path: string, id: string, signal: AbortSignal): Promise<RestorePlan> {
    const entry = await this.currentEntry();
    if (!entry) throw new HunkRefused('no prompt of this session recorded the workspace');
    return planHunkUndo(this.snapshots, entry, path, id, signal);
  }

  /** The journal's entry of the current prompt. */
  private async currentEntry(): Promise<UndoEntry | undefined> {
    const point = await this.current?.point().catch(() => undefined);
    if (point === undefined) return undefined;
    return (await this.log.list()).find((candidate) => candidate.point === point);
  }

  /**
   * Stops a snapshot still running and lets go of the workspace's watcher
   * (the last session to go stops it, a while later): the session is
   * closing. Resolves once the snapshot's git is gone.
   */
  async close(): Promise<void> {
    const stopped = this.current?.stop();
    if (this.release) this.release();
    else void this.snapshots.close();
    await stopped;
  }
}
