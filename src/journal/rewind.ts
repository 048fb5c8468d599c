/**
 * Rewinding a session to a checkpoint, as every door does it: the files
 * (from the undo log: only what the agents changed after the checkpoint,
 * never anything else), the conversation (the agents no longer read what
 * came after it; the history keeps it for the trace), or both. Planned
 * first without touching anything, so a person sees what will change.
 */
import type { AgentEvent, RunStatus } from '../engine/events';
import { GitSnapshotManager } from './git-snapshots';
import type { ACPSession } from '../session/acp-session';
import { countFiles, findMark, planCheckpointRestore, type RestorePlan } from './restore-plan';
import { historyKey } from '../session/checkpoints';
import { readEntries, type InternalSession } from '../session/internal-session';
import { UndoLog } from './undo-log';
import type { FileChange } from '../tools/undo-recorder';
import { restoredNote, tellAgents } from '../session/agent-notes';
import { type ListedCheckpoint, listCheckpoints } from './checkpoint-list';

export type RewindMode = 'files' | 'conversation' | 'both';

export const REWIND_MODES: readonly RewindMode[] = ['both', 'files', 'conversation'];

/** A rewind that cannot be done as asked, with what to do instead. */
export class RewindError extends Error {
  override name = 'RewindError';
}

export interface RewindPlan {
  target: ListedCheckpoint;
  mode: RewindMode;
  /** What the files restore changes (mode files or both). */
  files?: RestorePlan;
  /** The agents' histories to rewind and to where (mode conversation or both); empty when nothing came after. */
  conversation?: { session: InternalSession; to: number }[];
  /** Prompts after the checkpoint, whose conversation the agents stop reading: the checkpoint's own prompt too, when it is the one made before a prompt. */
  laterPrompts: number;
}

export interface RewindScope {
  session: ACPSession;
  workspaceRoot: string;
  dataHome: string;
  env: NodeJS.ProcessEnv;
  /** The session's snapshot manager, when it has one (undo on). */
  snapshots?: GitSnapshotManager;
}

/** The checkpoint numbered `number`, or a RewindError listing what there is. */
export function checkpointNumbered(session: ACPSession, number: number): ListedCheckpoint {
  const listed = listCheckpoints(session);
  const found = listed.find((entry) => entry.number === number);
  if (found) return found;
  if (listed.length === 0) throw new RewindError('This session has no checkpoints yet: they are made before each prompt and each change.');
  throw new RewindError(`No checkpoint #${number}: this session has #1 to #${listed.length}. List them with /rewind (or crow sessions checkpoints).`);
}

export async function planRewind(scope: RewindScope, target: ListedCheckpoint, mode: RewindMode, signal: AbortSignal): Promise<RewindPlan> {
  const { session } = scope;
  // A prompt's checkpoint is made before the prompt: rewinding to it takes that prompt back too.
  const laterPrompts = listCheckpoints(session).filter((entry) => entry.number >= target.number && entry.checkpoint.kind === 'prompt').length;
  const plan: RewindPlan = { target, mode, laterPrompts };
  if (mode !== 'conversation') plan.files = await planFiles(scope, target, signal);
  if (mode !== 'files') plan.conversation = conversationCuts(session, target);
  return plan;
}

/** Restores what the plan says; returns the files put back. A files restore that fails part-way throws (RestoreError) before the conversation is touched. */
export async function applyRewind(scope: RewindScope, plan: RewindPlan, signal: AbortSignal): Promise<FileChange[]> {
  let applied: FileChange[] = [];
  if (plan.files) {
    applied = await plan.files.apply(signal);
    // With the conversation kept, the agents' histories still say the restored files hold their changes.
    if (!plan.conversation && applied.length > 0) {
      tellAgents(scope.session, restoredNote(`rewound the files to checkpoint ${checkpointTitle(plan.target)}`, applied.map((change) => change.path)));
    }
  }
  for (const { session, to } of plan.conversation ?? []) session.append({ kind: 'rewind', to, at: Date.now() });
  if (plan.conversation) scope.session.interruption = undefined;
  return applied;
}

/** What the plan will do, in a sentence for a question or a result. */
export function describeRewind(plan: RewindPlan): string {
  const parts: string[] = [];
  if (plan.files) {
    const { changes, userIndex } = plan.files;
    const files = changes.length > 0 ? `${countFiles(changes)} (${changes.map((change) => change.path).join(', ')})` : 'no file differs';
    parts.push(`files: ${files}${userIndex ? ', and the git index' : ''}`);
  }
  if (plan.conversation) {
    const prompts = plan.laterPrompts > 0 ? `, ${plan.laterPrompts} prompt${plan.laterPrompts === 1 ? '' : 's'} included` : '';
    parts.push(plan.conversation.length > 0 ? `conversation: the agents forget everything after it${prompts}` : 'conversation: nothing came after it');
  }
  return parts.join('; ');
}

/**
 * Records a rewind made outside any prompt (crow undo --to) in the
 * session's visible record, as the /rewind prompt it stands for, so a
 * replay shows where the conversation went back.
 */
export function recordRewind(session: ACPSession, plan: RewindPlan, status: RunStatus, message: string): void {
  const last = session.events
    .list()
    .map(({ event }) => event as AgentEvent)
    .findLast((event): event is Extract<AgentEvent, { type: 'prompt_start' }> => event.type === 'prompt_start');
  const agent = last?.agent ?? session.agentName;
  const primary = last?.primary ?? session.agentName;
  const text = `/rewind ${plan.target.number} ${plan.mode}`;
  const shown: AgentEvent[] = [
    { type: 'prompt_start', agent, primary, ...(last?.coagent ? { coagent: last.coagent } : {}), content: [{ type: 'text', text }] },
    { type: 'text_delta', agent: primary, delta: `${message}\n` },
    { type: 'run_complete', agent, status, message },
  ];
  for (const event of shown) session.events.record(event);
  session.events.flush();
}

/** "#3, before write_file notes.md (in "Rewrite the notes")" */
export function checkpointTitle(entry: ListedCheckpoint): string {
  const { checkpoint } = entry;
  return checkpoint.kind === 'prompt' ? `#${entry.number}, before the prompt "${checkpoint.label}"` : `#${entry.number}, before ${checkpoint.label} (in "${entry.prompt}")`;
}

/** Whether the plan changes nothing at all. */
export function nothingToRewind(plan: RewindPlan): boolean {
  const files = !plan.files || (plan.files.changes.length === 0 && plan.files.userIndex === undefined);
  return files && (plan.conversation ?? []).length === 0;
}

async function planFiles(scope: RewindScope, target: ListedCheckpoint, signal: AbortSignal): Promise<RestorePlan> {
  const mark = target.checkpoint.undo;
  const conversationOnly = `restore the conversation only (/rewind ${target.number} conversation)`;
  if (mark === undefined) throw new RewindError(`Checkpoint #${target.number} has no record of the files (undo was off for it): ${conversationOnly}.`);
  const log = new UndoLog({ workspace: scope.workspaceRoot, dataHome: scope.dataHome });
  const entries = (await log.list()).filter((entry) => entry.sessionId === scope.session.id);
  const at = findMark(entries, mark);
  if (!at) throw new RewindError(`The undo log of ${scope.workspaceRoot} has no record of checkpoint #${target.number} (it was made in another folder, or the log was removed): ${conversationOnly}.`);
  const snapshots = scope.snapshots ?? new GitSnapshotManager({ workspace: scope.workspaceRoot, dataHome: scope.dataHome, env: scope.env });
  return planCheckpointRestore(snapshots, entries, at, signal, log);
}

/** Every agent's history that holds something the model still reads after the checkpoint, and where to cut it. */
function conversationCuts(session: ACPSession, target: ListedCheckpoint): { session: InternalSession; to: number }[] {
  const cuts: { session: InternalSession; to: number }[] = [];
  for (const { role, session: internal } of session.internalSessions()) {
    // An agent that joined after the checkpoint had read nothing then.
    const to = target.checkpoint.history[historyKey(role, internal.agentName)] ?? 0;
    if (readEntries(internal.entries).some((entry) => entry.index >= to)) cuts.push({ session: internal, to });
  }
  return cuts;
}
