/**
 * Forking a session at a checkpoint: a new session sharing the history up
 * to it (every agent's conversation as it was then, and what the doors
 * showed until then), the original left as it is. Files are not touched: a
 * fork branches the conversation; /rewind puts files back.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../engine/events';
import { ACPSession } from '../session/acp-session';
import { historyKey } from '../session/checkpoints';
import type { RecordedEvent } from '../session/event-log';
import { EventLog } from '../session/event-log';
import { InternalSession } from '../session/internal-session';
import type { SessionStore } from '../session/session-store';
import type { ListedCheckpoint } from './checkpoint-list';
import { checkpointNumbered } from './rewind';

export interface Fork {
  session: ACPSession;
  /** Where the source was cut; absent: the whole session. */
  at?: ListedCheckpoint;
}

/**
 * A new session, stored, holding `sourceId`'s conversation up to its
 * checkpoint `number`, or all of it (ACP's session/fork) when no number is given.
 */
export function forkSession(store: SessionStore, sourceId: string, number?: number): Fork {
  const source = store.load(sourceId);
  const at = number !== undefined ? checkpointNumbered(source, number) : undefined;
  const events = at ? eventsBefore(source, at) : [...source.events.list()];
  const fork = new ACPSession({ id: randomUUID(), cwd: source.cwd, agentName: source.agentName, events: new EventLog(events) });
  fork.title = `${source.title || 'untitled'} (fork${at ? ` at #${at.number}` : ''})`;
  fork.models = { ...source.models };
  fork.thoughtLevel = source.thoughtLevel;
  for (const { role, session } of source.internalSessions()) {
    const count = at ? (at.checkpoint.history[historyKey(role, session.agentName)] ?? 0) : session.entries.length;
    if (count === 0) continue;
    fork.adopt(role, new InternalSession(session.agentName, { history: session.entries.slice(0, count) }));
  }
  store.create(fork);
  return { session: fork, ...(at ? { at } : {}) };
}

/**
 * What the doors showed before the checkpoint: a prompt's checkpoint cuts
 * before that prompt; a tool call's cuts inside its prompt, which is then
 * closed, saying where the fork was made.
 */
function eventsBefore(source: ACPSession, at: ListedCheckpoint): RecordedEvent[] {
  const records = source.events.list();
  const index = records.findIndex(({ event }) => event.type === 'checkpoint' && (event as Extract<AgentEvent, { type: 'checkpoint' }>).checkpoint.id === at.checkpoint.id);
  const kept = records.slice(0, index < 0 ? records.length : index);
  const opened = kept.findLastIndex(({ event }) => event.type === 'prompt_start');
  // A prompt's checkpoint comes right after its prompt_start (and the notices of its setup): the whole prompt is left out.
  if (at.checkpoint.kind === 'prompt') return opened >= 0 ? kept.slice(0, opened) : kept;
  const start = opened >= 0 ? (kept[opened]!.event as Extract<AgentEvent, { type: 'prompt_start' }>) : undefined;
  if (!start) return kept;
  const message = `Forked here, before ${at.checkpoint.label}, from session ${source.id}.`;
  const closing: AgentEvent = { type: 'run_complete', agent: start.agent, status: 'cancelled', message };
  return [...kept, { at: Date.now(), event: closing }];
}
