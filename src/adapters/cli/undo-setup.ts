import { dataHome } from '../../config/paths';
import { recordUndoPoint } from '../../session/undo-point';
import type { SnapshotManager } from '../../tools/snapshots';
import type { CliIO } from './cli-io';

/** Records the workspace before `crow run` works in it (see recordUndoPoint); progress and problems go to stderr. */
export function prepareUndo(root: string, sessionId: string, prompt: string, io: CliIO, signal: AbortSignal): Promise<SnapshotManager | undefined> {
  return recordUndoPoint({
    root,
    dataHome: dataHome(io.env),
    env: io.env,
    sessionId,
    prompt,
    signal,
    onSlow: (message) => io.stderr.write(`${message}\n`),
    onUnavailable: (message) => io.stderr.write(`crow: ${message}\n`),
  });
}
