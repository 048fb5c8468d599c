/**
 * A prompt and the session's journal (src/journal/): its undo point, begun
 * as the prompt is prepared so its snapshot runs beside the model's first
 * call and only a command waits for it; the checkpoint before it reaches
 * the agents, and the recorder of those before its changes; and, at its
 * end, what the journal says it changed. Commands that only look after the
 * session (/undo, /rewind, /compact) touch none of it.
 */
import type { AgentEvent, NoticeLevel } from '../engine/events';
import type { ACPSession } from '../session/acp-session';
import { CheckpointRecorder } from '../journal/checkpoint-list';
import type { SessionUndo } from '../journal/session-undo';
import type { WorkspaceCatalog } from './catalog';

/** How long the run's end waits for the journal's count of what the prompt changed. */
const CHANGES_TIMEOUT_MS = 10_000;

/** Starts the prompt's undo point; its snapshot runs beside the model call, and only a command waits for it. */
export function beginUndoPoint(undo: SessionUndo, sessionId: string, prompt: string, catalog: WorkspaceCatalog, notify: (level: NoticeLevel, message: string) => void): void {
  const trackTimeoutMs = catalog.settings?.().undo?.trackTimeoutMs;
  undo.begin({ sessionId, prompt, ...(trackTimeoutMs !== undefined ? { trackTimeoutMs } : {}), notify });
}

/** The checkpoint before the prompt reaches the agents (its event), and the recorder of the checkpoints before its changes. */
export function promptCheckpoints(session: ACPSession, undo: SessionUndo | undefined, agent: string, prompt: string): { recorder: CheckpointRecorder; event: AgentEvent } {
  const recorder = new CheckpointRecorder(session, undo);
  return { recorder, event: { type: 'checkpoint', agent, checkpoint: recorder.atPrompt(prompt) } };
}

/**
 * The run's end with what the prompt changed, from its journal (the same
 * plan Undo would apply); as it was when nothing changed, when undo is
 * off, or when the journal cannot be read (the door then shows no count
 * rather than a wrong one).
 */
export async function withChanges(ending: Extract<AgentEvent, { type: 'run_complete' }>, undo: SessionUndo | undefined): Promise<AgentEvent> {
  if (!undo) return ending;
  const changes = await undo.promptChanges(AbortSignal.timeout(CHANGES_TIMEOUT_MS)).catch(() => undefined);
  return changes && changes.length > 0 ? { ...ending, changes } : ending;
}
