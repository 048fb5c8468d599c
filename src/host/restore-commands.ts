/**
 * The slash commands that put the workspace back, in every front door:
 * `/undo` (the files this session's last prompt changed, as `crow undo
 * --session ID` does from a terminal) and `/rewind` (alone, the session's
 * checkpoints; `/rewind N [files|conversation|both]`, back to checkpoint N).
 * Each plans from the journal first, says what will change and asks (an
 * ACP client's permission request, the chat's approval, a terminal
 * question); with nobody to ask, nothing changes and the answer says how
 * to do it from a terminal. A door's own Undo and Restore buttons plan
 * and apply the same restore (`planRestore`) without the question: the
 * click was the person's answer.
 */
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import type { SessionUndo } from '../journal/session-undo';
import type { ACPSession } from '../session/acp-session';
import { listCheckpoints } from '../journal/checkpoint-list';
import { GitSnapshotManager } from '../journal/git-snapshots';
import { countFiles, countPlanned, nothingToUndo, planUndo, planUndoOf, type UndoPlan } from '../journal/restore-plan';
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

/** What a restore works on: the session, where its files are, and its undo recording when it has one. */
export interface RestoreScope {
  session: ACPSession;
  workspaceRoot: string;
  dataHome: string;
  env: NodeJS.ProcessEnv;
  undo?: SessionUndo;
}

/** What a person asked to put back: the last prompt's files (or only `paths` of them), or the session back to checkpoint `number`. */
export type RestoreRequest = { kind: 'undo'; paths?: readonly string[] } | { kind: 'rewind'; number: number; mode: RewindMode };

/**
 * A restore planned and not done yet: what it will change, in words and as
 * paths, and how to do it. `nothing` says why there is nothing to do (then
 * `apply` only says so again).
 */
export interface PlannedRestore {
  /** "Undo the last prompt ("…"): 1 file: 1 to restore", for a question. */
  title: string;
  /** Names this restore in a question about it (undo-<point time>, rewind-<checkpoint id>). */
  id: string;
  /** The files it will change. */
  paths: string[];
  /** Why nothing would change; undefined when something will. */
  nothing?: string;
  /** The conversation goes back too (a rewind of the conversation). */
  conversation: boolean;
  /** How to do it from a terminal, for a door that cannot ask. */
  terminal: string;
  /** Restores: a completed outcome saying what was put back, or an error one saying what was put back before it stopped. */
  apply(signal: AbortSignal): Promise<CommandOutcome>;
}

/**
 * Plans a restore without touching anything: the one engine of /undo,
 * /rewind and a front door's own Undo and Restore buttons (which act on
 * the person's click, without the approval question the commands ask).
 */
export async function planRestore(scope: RestoreScope, request: RestoreRequest, signal: AbortSignal): Promise<PlannedRestore> {
  return request.kind === 'undo' ? planUndoRestore(scope, request.paths, signal) : planRewindRestore(scope, request.number, request.mode, signal);
}

async function planUndoRestore(scope: RestoreScope, paths: readonly string[] | undefined, signal: AbortSignal): Promise<PlannedRestore> {
  const { session, workspaceRoot } = scope;
  const terminal = `crow undo --session ${session.id} --cwd ${workspaceRoot}`;
  const log = new UndoLog({ workspace: workspaceRoot, dataHome: scope.dataHome });
  const entry = await log.latest(session.id);
  if (!entry) return nothingPlanned('Nothing to undo: no prompt of this session recorded the workspace (undo may be off).', terminal);
  const snapshots = scope.undo?.snapshots ?? new GitSnapshotManager({ workspace: workspaceRoot, dataHome: scope.dataHome });
  const plan = paths ? await planUndoOf(snapshots, entry, paths, signal) : await planUndo(snapshots, entry, signal, log);
  const prompt = entry.prompt.split('\n', 1)[0];
  const gaps = plan.gaps.length > 0 ? ` Cannot be undone: ${plan.gaps.join('; ')}.` : '';
  if (nothingToUndo(plan)) return nothingPlanned(`Nothing to undo: the files "${prompt}" changed are as they were before it.${gaps}`, terminal);
  return {
    id: `undo-${entry.at}`,
    title: `Undo the last prompt ("${prompt}"): ${undoDescribed(plan)}`,
    paths: plan.changes.map((change) => change.path),
    conversation: false,
    terminal,
    apply: (applySignal) =>
      restoring(
        async () => {
          const applied = await plan.apply(applySignal);
          if (applied.length > 0) tellAgents(session, restoredNote(`undid the prompt "${prompt}"`, applied.map((change) => change.path)));
          const index = plan.userIndex ? ' and the git index' : '';
          return `Restored ${countFiles(applied)}${index}: ${applied.map((change) => change.path).join(', ')}.${gaps}`;
        },
        (err) => `Undo stopped: ${err.message}${restoredBefore(err.applied)}`,
      ),
  };
}

async function planRewindRestore(scope: RestoreScope, number: number, mode: RewindMode, signal: AbortSignal): Promise<PlannedRestore> {
  const { session, workspaceRoot } = scope;
  const target = checkpointNumbered(session, number);
  const terminal = `crow undo --to ${target.number} --session ${session.id} --cwd ${workspaceRoot}`;
  const rewindScope = { session, workspaceRoot, dataHome: scope.dataHome, env: scope.env, ...(scope.undo ? { snapshots: scope.undo.snapshots } : {}) };
  const plan = await planRewind(rewindScope, target, mode, signal);
  const gaps = plan.files && plan.files.gaps.length > 0 ? ` Cannot be restored: ${plan.files.gaps.join('; ')}.` : '';
  const title = checkpointTitle(target);
  if (nothingToRewind(plan)) return nothingPlanned(`Nothing to rewind: everything is as it was at checkpoint ${title}.${gaps}`, terminal);
  return {
    id: `rewind-${target.checkpoint.id}`,
    title: `Rewind to checkpoint ${title}: ${describeRewind(plan)}`,
    paths: plan.files?.changes.map((change) => change.path) ?? [],
    conversation: plan.conversation !== undefined,
    terminal,
    apply: (applySignal) =>
      restoring(
        async () => {
          const applied = await applyRewind(rewindScope, plan, applySignal);
          const files = plan.files ? ` Restored ${countFiles(applied)}${plan.files.userIndex ? ' and the git index' : ''}.` : '';
          const conversation = plan.conversation ? ' The agents go on from the conversation as it was then.' : '';
          return `Rewound to checkpoint ${title}.${files}${conversation}${gaps}`;
        },
        (err) => `Rewind stopped, the conversation is as it was: ${err.message}${restoredBefore(err.applied)}`,
      ),
  };
}

function nothingPlanned(nothing: string, terminal: string): PlannedRestore {
  return { id: 'nothing', title: nothing, paths: [], nothing, conversation: false, terminal, apply: async () => ({ status: 'completed', message: nothing }) };
}

/** Runs a restore; one that stopped part-way is an error outcome saying what it did put back. */
async function restoring(apply: () => Promise<string>, stopped: (err: RestoreError) => string): Promise<CommandOutcome> {
  try {
    return { status: 'completed', message: await apply() };
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    return { status: 'error', message: stopped(err) };
  }
}

async function undo(input: CommandInput, dataHome: string): Promise<CommandOutcome> {
  const planned = await planRestore(scopeOf(input, dataHome), { kind: 'undo' }, input.signal);
  return askThenRestore(input, planned, { tool: 'undo', scope: 'this undo' });
}

async function rewind(input: CommandInput, dataHome: string): Promise<CommandOutcome> {
  const asked = parseRewindArgs(input.args);
  if (!asked) return { status: 'needs_input', message: listing(input) };
  const planned = await planRestore(scopeOf(input, dataHome), { kind: 'rewind', ...asked }, input.signal);
  return askThenRestore(input, planned, { tool: 'rewind', scope: 'this rewind' });
}

function scopeOf(input: CommandInput, dataHome: string): RestoreScope {
  return { session: input.session, workspaceRoot: input.workspace.root, dataHome, env: input.env, ...(input.undo ? { undo: input.undo } : {}) };
}

/**
 * Asks the person (as a write, through the session's permission gate),
 * then restores: what a typed /undo or /rewind does, the person having
 * asked in words rather than by a click.
 */
async function askThenRestore(input: CommandInput, planned: PlannedRestore, question: { tool: string; scope: string }): Promise<CommandOutcome> {
  if (planned.nothing !== undefined) return { status: 'completed', message: planned.nothing };
  const decision = await input.session.permissions.approve(
    { tool: question.tool, callId: planned.id, agent: input.agent.primary.name, category: 'write', title: planned.title, paths: planned.paths, alwaysScope: question.scope },
    input.signal,
    ANSWER_TIMEOUT_MS,
  );
  if (decision === 'unavailable') return { status: 'needs_input', message: `Nothing restored: nobody can be asked here. From a terminal: ${planned.terminal}` };
  if (decision !== 'allowed') return { status: 'needs_input', message: `Nothing restored (${decision === 'timeout' ? 'no answer' : 'declined'}).` };
  return planned.apply(input.signal);
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
