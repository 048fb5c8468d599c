/**
 * `/rewind` in every front door: alone, it lists the session's checkpoints;
 * `/rewind N [files|conversation|both]` shows what going back to
 * checkpoint N changes, asks, and restores (both by default). With nobody
 * to ask, nothing changes and the answer says how to do it from a terminal.
 */
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { answeringRun } from './command-answer';
import type { RunStatus } from '../engine/events';
import { RestoreError } from '../journal/snapshot-restore';
import { countFiles } from '../journal/undo-plan';
import { errorText } from '../vocabulary/text';
import { listCheckpoints } from '../journal/checkpoint-list';
import { applyRewind, checkpointNumbered, checkpointTitle, describeRewind, nothingToRewind, planRewind, REWIND_MODES, RewindError, type RewindMode } from '../journal/rewind';

/** How long the question waits for an answer before nothing changes. */
const ANSWER_TIMEOUT_MS = 10 * 60_000;

export function rewindCommand(dataHome: string): ProgrammaticCommand {
  return {
    name: 'rewind',
    description: 'Go back to a checkpoint: the files, the conversation, or both (alone: lists the checkpoints).',
    argumentHint: '[N] [files|conversation|both]',
    // It restores from the undo log itself; a point of its own would only record the restore.
    skipUndoPoint: true,
    run: (input) =>
      answeringRun(
        input,
        () => rewind(input, dataHome),
        (err) =>
          err instanceof RewindError ? { status: 'needs_input', message: err.message }
          : { status: input.signal.aborted ? 'cancelled' : 'error', message: `Rewind failed, nothing was restored: ${errorText(err)}` },
      ),
  };
}

/** `N` and the mode from the text after /rewind; undefined when there is none (list them). */
export function parseRewindArgs(args: string): { number: number; mode: RewindMode } | undefined {
  const words = args.trim().split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) return undefined;
  const [first, second, ...rest] = words;
  const number = Number(first?.replace(/^#/, ''));
  const mode = (second ?? 'both') as RewindMode;
  if (!Number.isInteger(number) || number < 1 || !REWIND_MODES.includes(mode) || rest.length > 0) {
    throw new RewindError(`Use /rewind N [files|conversation|both], e.g. /rewind 3 files; /rewind alone lists the checkpoints.`);
  }
  return { number, mode };
}

async function rewind(input: CommandInput, dataHome: string): Promise<{ status: RunStatus; message: string }> {
  const { session, signal, workspace } = input;
  const asked = parseRewindArgs(input.args);
  if (!asked) return { status: 'needs_input', message: listing(input) };
  const target = checkpointNumbered(session, asked.number);
  const scope = { session, workspaceRoot: workspace.root, dataHome, env: input.env, ...(input.undo ? { snapshots: input.undo.snapshots } : {}) };
  const plan = await planRewind(scope, target, asked.mode, signal);
  const gaps = plan.files && plan.files.gaps.length > 0 ? ` Cannot be restored: ${plan.files.gaps.join('; ')}.` : '';
  if (nothingToRewind(plan)) return { status: 'completed', message: `Nothing to rewind: everything is as it was at checkpoint ${checkpointTitle(target)}.${gaps}` };
  const decision = await session.permissions.approve(
    {
      tool: 'rewind',
      callId: `rewind-${target.checkpoint.id}`,
      agent: input.agent.primary.name,
      category: 'write',
      title: `Rewind to checkpoint ${checkpointTitle(target)}: ${describeRewind(plan)}`,
      paths: plan.files?.changes.map((change) => change.path) ?? [],
      alwaysScope: 'this rewind',
    },
    signal,
    ANSWER_TIMEOUT_MS,
  );
  if (decision === 'unavailable') {
    return { status: 'needs_input', message: `Nothing restored: nobody can be asked here. From a terminal: crow undo --to ${target.number} --session ${session.id} --cwd ${workspace.root}` };
  }
  if (decision !== 'allowed') return { status: 'needs_input', message: `Nothing restored (${decision === 'timeout' ? 'no answer' : 'declined'}).` };
  try {
    const applied = await applyRewind(scope, plan, signal);
    const files = plan.files ? ` Restored ${countFiles(applied)}${plan.files.userIndex ? ' and the git index' : ''}.` : '';
    const conversation = plan.conversation ? ' The agents go on from the conversation as it was then.' : '';
    return { status: 'completed', message: `Rewound to checkpoint ${checkpointTitle(target)}.${files}${conversation}${gaps}` };
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    return { status: 'error', message: `Rewind stopped, the conversation is as it was: ${err.message}${err.applied.length > 0 ? ` (restored before that: ${countFiles(err.applied)})` : ''}` };
  }
}

/** The checkpoints, newest last, as a list to pick from. */
function listing(input: CommandInput): string {
  const listed = listCheckpoints(input.session);
  if (listed.length === 0) return 'This session has no checkpoints yet: they are made before each prompt and each change.';
  const lines = listed.map((entry) => `  ${checkpointTitle(entry)}${entry.checkpoint.undo === undefined ? ' (conversation only)' : ''}`);
  return [`Checkpoints of this session:`, ...lines, `Send /rewind N to go back to one (files and conversation), or /rewind N files, /rewind N conversation.`].join('\n');
}
