/**
 * The slash commands that put the workspace back, in every front door:
 * `/undo` (the files this session's last prompt changed, as `crow undo
 * --session ID` does from a terminal) and `/rewind` (alone, the session's
 * checkpoints; `/rewind N [files|conversation|both]`, back to checkpoint N).
 * Each plans from the journal first, says what will change and asks (an
 * ACP client's permission request, the chat's approval, a terminal
 * question); with nobody to ask, nothing changes and the answer says how
 * to do it from a terminal.
 */
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { listCheckpoints } from '../journal/checkpoint-list';
import { GitSnapshotManager } from '../journal/git-snapshots';
import { countFiles, countPlanned, nothingToUndo, planUndo, type UndoPlan } from '../journal/restore-plan';
import { applyRewind, checkpointNumbered, checkpointTitle, describeRewind, nothingToRewind, planRewind, REWIND_MODES, RewindError, type RewindMode } from '../journal/rewind';
import { RestoreError } from '../journal/snapshot-restore';
import { UndoLog } from '../journal/undo-log';
import { restoredNote, tellAgents } from '../session/agent-notes';
import type { FileChange } from '../tools/undo-recorder';
import { errorText } from '../vocabulary/text';
import { answeringRun, type CommandOutcome } from './command-answer';

/** How long the question waits for an answer before nothing changes. */
const ANSWER_TIMEOUT_MS = 10 * 60_000;

export function undoCommand(dataHome: string): ProgrammaticCommand {
  return {
    name: 'undo',
    description: "Put back the files this session's last prompt changed (asks first).",
    argumentHint: '',
    // It restores from the journal itself; a point of its own would only record the restore.
    skipUndoPoint: true,
    run: (input) =>
      answeringRun(
        input,
        () => undo(input, dataHome),
        (err) => ({ status: input.signal.aborted ? 'cancelled' : 'error', message: `Undo failed, nothing was restored: ${errorText(err)}` }),
      ),
  };
}

export function rewindCommand(dataHome: string): ProgrammaticCommand {
  return {
    name: 'rewind',
    description: 'Go back to a checkpoint: the files, the conversation, or both (alone: lists the checkpoints).',
    argumentHint: '[N] [files|conversation|both]',
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

async function undo(input: CommandInput, dataHome: string): Promise<CommandOutcome> {
  const { session, signal, workspace } = input;
  const log = new UndoLog({ workspace: workspace.root, dataHome });
  const entry = await log.latest(session.id);
  if (!entry) return { status: 'completed', message: 'Nothing to undo: no prompt of this session recorded the workspace (undo may be off).' };
  const snapshots = input.undo?.snapshots ?? new GitSnapshotManager({ workspace: workspace.root, dataHome });
  const plan = await planUndo(snapshots, entry, signal, log);
  const prompt = entry.prompt.split('\n', 1)[0];
  const gaps = plan.gaps.length > 0 ? ` Cannot be undone: ${plan.gaps.join('; ')}.` : '';
  if (nothingToUndo(plan)) return { status: 'completed', message: `Nothing to undo: the files "${prompt}" changed are as they were before it.${gaps}` };
  const question = { tool: 'undo', id: `undo-${entry.at}`, title: `Undo the last prompt ("${prompt}"): ${undoDescribed(plan)}`, paths: plan.changes.map((change) => change.path), scope: 'this undo' };
  const terminal = `crow undo --session ${session.id} --cwd ${workspace.root}`;
  return askThenRestore(input, question, terminal, {
    apply: async () => {
      const applied = await plan.apply(signal);
      if (applied.length > 0) tellAgents(session, restoredNote(`undid the prompt "${prompt}"`, applied.map((change) => change.path)));
      const index = plan.userIndex ? ' and the git index' : '';
      return `Restored ${countFiles(applied)}${index}: ${applied.map((change) => change.path).join(', ')}.${gaps}`;
    },
    stopped: (err) => `Undo stopped: ${err.message}${restoredBefore(err.applied)}`,
  });
}

async function rewind(input: CommandInput, dataHome: string): Promise<CommandOutcome> {
  const { session, signal, workspace } = input;
  const asked = parseRewindArgs(input.args);
  if (!asked) return { status: 'needs_input', message: listing(input) };
  const target = checkpointNumbered(session, asked.number);
  const scope = { session, workspaceRoot: workspace.root, dataHome, env: input.env, ...(input.undo ? { snapshots: input.undo.snapshots } : {}) };
  const plan = await planRewind(scope, target, asked.mode, signal);
  const gaps = plan.files && plan.files.gaps.length > 0 ? ` Cannot be restored: ${plan.files.gaps.join('; ')}.` : '';
  const title = checkpointTitle(target);
  if (nothingToRewind(plan)) return { status: 'completed', message: `Nothing to rewind: everything is as it was at checkpoint ${title}.${gaps}` };
  const question = { tool: 'rewind', id: `rewind-${target.checkpoint.id}`, title: `Rewind to checkpoint ${title}: ${describeRewind(plan)}`, paths: plan.files?.changes.map((change) => change.path) ?? [], scope: 'this rewind' };
  const terminal = `crow undo --to ${target.number} --session ${session.id} --cwd ${workspace.root}`;
  return askThenRestore(input, question, terminal, {
    apply: async () => {
      const applied = await applyRewind(scope, plan, signal);
      const files = plan.files ? ` Restored ${countFiles(applied)}${plan.files.userIndex ? ' and the git index' : ''}.` : '';
      const conversation = plan.conversation ? ' The agents go on from the conversation as it was then.' : '';
      return `Rewound to checkpoint ${title}.${files}${conversation}${gaps}`;
    },
    stopped: (err) => `Rewind stopped, the conversation is as it was: ${err.message}${restoredBefore(err.applied)}`,
  });
}

/**
 * Asks the person (as a write, through the session's permission gate),
 * then restores; a restore that stopped part-way is answered as an error
 * saying what it did put back.
 */
async function askThenRestore(
  input: CommandInput,
  question: { tool: string; id: string; title: string; paths: string[]; scope: string },
  terminal: string,
  restore: { apply(): Promise<string>; stopped(err: RestoreError): string },
): Promise<CommandOutcome> {
  const decision = await input.session.permissions.approve(
    { tool: question.tool, callId: question.id, agent: input.agent.primary.name, category: 'write', title: question.title, paths: question.paths, alwaysScope: question.scope },
    input.signal,
    ANSWER_TIMEOUT_MS,
  );
  if (decision === 'unavailable') return { status: 'needs_input', message: `Nothing restored: nobody can be asked here. From a terminal: ${terminal}` };
  if (decision !== 'allowed') return { status: 'needs_input', message: `Nothing restored (${decision === 'timeout' ? 'no answer' : 'declined'}).` };
  try {
    return { status: 'completed', message: await restore.apply() };
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    return { status: 'error', message: restore.stopped(err) };
  }
}

function restoredBefore(applied: readonly FileChange[]): string {
  return applied.length > 0 ? ` (restored before that: ${countFiles(applied)})` : '';
}

/** "2 files: 1 to restore, 1 to recreate, and the git index": asked before anything is done. */
function undoDescribed(plan: UndoPlan): string {
  const files = plan.changes.length > 0 ? countPlanned(plan.changes) : '';
  const index = plan.userIndex ? 'the git index' : '';
  return [files, index].filter((part) => part !== '').join(', and ');
}

/** The checkpoints, newest last, as a list to pick from. */
function listing(input: CommandInput): string {
  const listed = listCheckpoints(input.session);
  if (listed.length === 0) return 'This session has no checkpoints yet: they are made before each prompt and each change.';
  const lines = listed.map((entry) => `  ${checkpointTitle(entry)}${entry.checkpoint.undo === undefined ? ' (conversation only)' : ''}`);
  return [`Checkpoints of this session:`, ...lines, `Send /rewind N to go back to one (files and conversation), or /rewind N files, /rewind N conversation.`].join('\n');
}
