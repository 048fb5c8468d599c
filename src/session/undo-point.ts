import { errorText } from '../config/text';
import type { SnapshotManager } from '../tools/snapshots';
import { GitSnapshotManager } from './git-snapshots';
import { UndoLog } from './undo-log';

/** A first snapshot of a large folder can take seconds: say what is happening if it does. */
const SLOW_TRACK_NOTICE_MS = 700;

export interface UndoPointOptions {
  root: string;
  dataHome: string;
  env: NodeJS.ProcessEnv;
  sessionId: string;
  prompt: string;
  signal: AbortSignal;
  /** Told once when the snapshot takes long (a large folder the first time). */
  onSlow(message: string): void;
  /** Told when undo cannot be set up; the prompt runs without it. */
  onUnavailable(message: string): void;
  /** Reuse this manager (a long-lived session) instead of making one. */
  snapshots?: GitSnapshotManager;
}

/**
 * Records the workspace before a prompt runs, so undo can put it back, and
 * returns the snapshot manager the tools use. Undo is a safety net, not a
 * requirement: when it cannot be set up (no git, say) the prompt goes on
 * without it and `onUnavailable` says so.
 */
export async function recordUndoPoint(options: UndoPointOptions): Promise<SnapshotManager | undefined> {
  const { root, dataHome, env, signal } = options;
  const notice = setTimeout(() => options.onSlow('Recording the workspace for undo…'), SLOW_TRACK_NOTICE_MS);
  try {
    const snapshots = options.snapshots ?? new GitSnapshotManager({ workspace: root, dataHome, env });
    const snapshot = await snapshots.track(signal);
    await new UndoLog({ workspace: root, dataHome }).record({ sessionId: options.sessionId, snapshot, prompt: options.prompt });
    return snapshots;
  } catch (err) {
    if (!signal.aborted) options.onUnavailable(`undo will not be available for this prompt: ${errorText(err)}`);
    return undefined;
  } finally {
    clearTimeout(notice);
  }
}
