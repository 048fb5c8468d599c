import { dataHome } from '../../config/paths';
import { GitSnapshotManager } from '../../session/git-snapshots';
import { UndoLog } from '../../session/undo-log';
import { errorMessage } from '../../tools/define-tool';
import type { SnapshotManager } from '../../tools/snapshots';
import type { CliIO } from './cli-io';

/** A first snapshot of a large folder can take seconds: say what is happening if it does. */
const SLOW_TRACK_NOTICE_MS = 700;

/**
 * Records the workspace before a prompt runs, so `crow undo` can put it
 * back, and returns the snapshot manager the tools use. Undo is a safety net,
 * not a requirement: when it cannot be set up (no git, say) the run goes on
 * without it and says so.
 */
export async function prepareUndo(
  root: string,
  sessionId: string,
  prompt: string,
  io: CliIO,
  signal: AbortSignal,
): Promise<SnapshotManager | undefined> {
  const data = dataHome(io.env);
  const notice = setTimeout(() => io.stderr.write('Recording the workspace for undo…\n'), SLOW_TRACK_NOTICE_MS);
  try {
    const snapshots = new GitSnapshotManager({ workspace: root, dataHome: data, env: io.env });
    const snapshot = await snapshots.track(signal);
    await new UndoLog({ workspace: root, dataHome: data }).record({ sessionId, snapshot, prompt });
    return snapshots;
  } catch (err) {
    if (!signal.aborted) io.stderr.write(`crow: undo will not be available for this prompt: ${errorMessage(err)}\n`);
    return undefined;
  } finally {
    clearTimeout(notice);
  }
}
