/**
 * A session's checkpoints as every door lists them, and the recorder that
 * makes them while a prompt runs: one before the prompt (what the person
 * sent), one before each tool call that may change something. Each names
 * the conversation at that moment and, when undo records, a mark in the
 * undo log for the files.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../engine/events';
import type { ACPSession, SessionRole } from '../session/acp-session';
import type { RecordedEvent } from '../session/event-log';
import type { InternalSession } from '../session/internal-session';
import { type Checkpoint, type Checkpoints, historyKey, responseStart } from '../session/checkpoints';
import type { UndoRecorder } from '../tools/undo-recorder';

/** A checkpoint as listed: numbered from 1 in the session, with when it was made and the prompt it belongs to. */
export interface ListedCheckpoint {
  number: number;
  at: number;
  checkpoint: Checkpoint;
  /** The first line of the prompt it belongs to (for a prompt's own checkpoint, that prompt). */
  prompt: string;
}

/** The session's checkpoints, oldest first, from its visible record (the session's, or as read from the store). */
export function listCheckpoints(record: ACPSession | readonly RecordedEvent[]): ListedCheckpoint[] {
  const listed: ListedCheckpoint[] = [];
  let prompt = '';
  for (const { at, event } of 'events' in record ? record.events.list() : record) {
    const shown = event as AgentEvent;
    if (shown.type === 'prompt_start') prompt = firstLine(shown.content.map((block) => (block.type === 'text' ? block.text : '[image]')).join(' '));
    else if (shown.type === 'checkpoint' && isCheckpoint(shown.checkpoint)) listed.push({ number: listed.length + 1, at, checkpoint: shown.checkpoint, prompt });
  }
  return listed;
}

/** Makes a prompt's checkpoints; set on the session while the prompt runs. */
export class CheckpointRecorder implements Checkpoints {
  constructor(
    private readonly session: ACPSession,
    private readonly undo: UndoRecorder | undefined,
  ) {}

  /** Before the prompt reaches any agent: the conversation as it stands, the workspace before anything the prompt does. */
  atPrompt(label: string): Checkpoint {
    return this.made('prompt', firstLine(label), historyLengths(this.session));
  }

  /** Before a call: the acting agent's conversation goes back to before the response that made the call. */
  beforeCall(role: SessionRole, agent: string, callId: string, label: string): Checkpoint {
    const history = historyLengths(this.session);
    const key = historyKey(role, agent);
    const acting = this.session.internalSessions().find((entry) => historyKey(entry.role, entry.session.agentName) === key);
    if (acting) history[key] = responseStartIn(acting.session, callId);
    return { ...this.made('tool', firstLine(label), history), callId };
  }

  private made(kind: Checkpoint['kind'], label: string, history: Record<string, number>): Checkpoint {
    const undo = this.undo?.checkpoint?.();
    return { id: randomUUID(), kind, label, history, ...(undo !== undefined ? { undo } : {}) };
  }
}

/** How many entries each internal agent's history holds now. */
function historyLengths(session: ACPSession): Record<string, number> {
  return Object.fromEntries(session.internalSessions().map(({ role, session: internal }) => [historyKey(role, internal.agentName), internal.length]));
}

/**
 * responseStart in an agent's history, from the entries in memory when the
 * response lies within them (the call is the running prompt's, so it does
 * for a resumed session too); from the whole history otherwise.
 */
function responseStartIn(history: InternalSession, callId: string): number {
  const { base, entries } = history.loaded;
  const start = responseStart(entries, callId);
  return base === 0 || (start > 0 && start < entries.length) ? base + start : responseStart(history.entries, callId);
}

/** A checkpoint read from disk is used only when it has the shape this version writes. */
function isCheckpoint(value: unknown): value is Checkpoint {
  const checkpoint = value as Partial<Checkpoint> | null;
  return (
    typeof checkpoint?.id === 'string' &&
    (checkpoint.kind === 'prompt' || checkpoint.kind === 'tool') &&
    typeof checkpoint.label === 'string' &&
    typeof checkpoint.history === 'object' &&
    checkpoint.history !== null &&
    Object.values(checkpoint.history).every((count) => Number.isInteger(count) && count >= 0)
  );
}

function firstLine(text: string, max = 100): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
