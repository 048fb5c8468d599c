/**
 * `/undo` in every front door: puts back the files this session's last
 * prompt changed, as `crow undo --session ID` does from a terminal.
 * The plan is shown and a person is asked first (an ACP client's permission
 * request, the chat's approval, a terminal question); with nobody to ask,
 * nothing is restored and the answer says how to do it from a terminal.
 */
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { restoredNote, tellAgents } from '../session/agent-notes';
import { answeringRun } from './command-answer';
import { errorText } from '../vocabulary/text';
import type { RunStatus } from '../engine/events';
import { GitSnapshotManager } from '../journal/git-snapshots';
import { RestoreError } from '../journal/snapshot-restore';
import { UndoLog } from '../journal/undo-log';
import { countFiles, countPlanned, nothingToUndo, planUndo, type UndoPlan } from '../journal/undo-plan';

/** How long the question waits for an answer before nothing is restored. */
const ANSWER_TIMEOUT_MS = 10 * 60_000;

export function undoCommand(dataHome: string): ProgrammaticCommand {
  return {
    name: 'undo',
    description: "Put back the files this session's last prompt changed (asks first).",
    argumentHint: '',
    skipUndoPoint: true,
    run: (input) =>
      answeringRun(
        input,
        () => undo(input, dataHome),
        (err) => ({ status: input.signal.aborted ? 'cancelled' : 'error', message: `Undo failed, nothing was restored: ${errorText(err)}` }),
      ),
  };
}

async function undo(input: CommandInput, dataHome: string): Promise<{ status: RunStatus; message: string }> {
  const { session, signal, workspace } = input;
  const log = new UndoLog({ workspace: workspace.root, dataHome });
  const entry = await log.latest(session.id);
  if (!entry) return { status: 'completed', message: 'Nothing to undo: no prompt of this session recorded the workspace (undo may be off).' };
  const snapshots = input.undo?.snapshots ?? new GitSnapshotManager({ workspace: workspace.root, dataHome });
  const plan = await planUndo(snapshots, entry, signal, log);
  const prompt = entry.prompt.split('\n', 1)[0];
  const gaps = plan.gaps.length > 0 ? ` Cannot be undone: ${plan.gaps.join('; ')}.` : '';
  if (nothingToUndo(plan)) return { status: 'completed', message: `Nothing to undo: the files "${prompt}" changed are as they were before it.${gaps}` };
  const decision = await session.permissions.approve(
    {
      tool: 'undo',
      callId: `undo-${entry.at}`,
      agent: input.agent.primary.name,
      category: 'write',
      title: `Undo the last prompt ("${prompt}"): ${described(plan)}`,
      paths: plan.changes.map((change) => change.path),
      alwaysScope: 'this undo',
    },
    signal,
    ANSWER_TIMEOUT_MS,
  );
  if (decision === 'unavailable') {
    return { status: 'needs_input', message: `Nothing restored: nobody can be asked here. From a terminal: crow undo --session ${session.id} --cwd ${workspace.root}` };
  }
  if (decision !== 'allowed') return { status: 'needs_input', message: `Nothing restored (${decision === 'timeout' ? 'no answer' : 'declined'}).` };
  try {
    const applied = await plan.apply(signal);
    if (applied.length > 0) tellAgents(session, restoredNote(`undid the prompt "${prompt}"`, applied.map((change) => change.path)));
    const index = plan.userIndex ? ' and the git index' : '';
    return { status: 'completed', message: `Restored ${countFiles(applied)}${index}: ${applied.map((change) => change.path).join(', ')}.${gaps}` };
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    return { status: 'error', message: `Undo stopped: ${err.message}${err.applied.length > 0 ? ` (restored before that: ${countFiles(err.applied)})` : ''}` };
  }
}

/** "2 files: 1 to restore, 1 to recreate, and the git index": asked before anything is done. */
function described(plan: UndoPlan): string {
  const files = plan.changes.length > 0 ? countPlanned(plan.changes) : '';
  const index = plan.userIndex ? 'the git index' : '';
  return [files, index].filter((part) => part !== '').join(', and ');
}
