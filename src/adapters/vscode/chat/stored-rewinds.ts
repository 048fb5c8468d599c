/**
 * The rewinds a stored session went through, read from the session itself
 * (not from what one window remembers), so a session reopened from the
 * list greys the same turns the view greyed when the person clicked
 * Restore. The truth is the primary agent's history: a rewind appends
 * `{ kind: 'rewind', to }`, where `to` is the history length a checkpoint
 * recorded; the event log says when each checkpoint and prompt happened.
 * A restore of files alone leaves no rewind in the history and greys
 * nothing, as it does live.
 */
import { eventsFromHistory } from '../../../host/history-events';
import { t } from '../l10n';
import type { AgentEvent } from '../../../engine/events';
import type { ACPSession } from '../../../session/acp-session';
import { historyKey } from '../../../session/checkpoints';
import type { TranscriptEvent } from '../../../../webview/chat/protocol';
import type { RestoredMessage } from './chat-restore';

/** A rewind as the view is told of it: after `at` of the shown events. */
export interface StoredRewind {
  at: number;
  message: RestoredMessage;
}

/** What the label over a reopened session's rewound turns says. */
export function storedRewindText(): string {
  return t('Rewound here earlier: the agents no longer see the greyed turns.');
}

/**
 * The session's conversation rewinds, oldest first, each placed among
 * `shown` (the session's transcript as the view shows it, one non-steered
 * user message per prompt) just before the first prompt that started after it.
 */
export function storedRewinds(session: ACPSession, shown: readonly TranscriptEvent[]): StoredRewind[] {
  const primary = session.internalSessions().find(({ role }) => role === 'primary')?.session;
  if (!primary) return [];
  const key = historyKey('primary', primary.agentName);
  const rewinds = primary.entries.flatMap((entry) => (entry.kind === 'rewind' ? [entry] : []));
  if (rewinds.length === 0) return [];
  const records: readonly { at: number; event: unknown }[] = session.events.empty ? eventsFromHistory(session) : session.events.list();
  const promptStarts = shownPromptStarts(shown);
  const found: StoredRewind[] = [];
  for (const rewind of rewinds) {
    const checkpoint = checkpointBefore(records, key, rewind.to, rewind.at);
    if (checkpoint === undefined) continue;
    const promptsBefore = records.filter(({ at, event }) => at <= rewind.at && (event as AgentEvent).type === 'prompt_start').length;
    found.push({
      at: promptStarts[promptsBefore] ?? shown.length,
      message: { type: 'restored', target: { kind: 'rewind', checkpoint, mode: 'conversation' }, outcome: 'restored', message: storedRewindText(), earlier: true },
    });
  }
  return found;
}

/** The id of the latest checkpoint made before `at` whose conversation for `key` was `length` entries long. */
function checkpointBefore(records: readonly { at: number; event: unknown }[], key: string, length: number, at: number): string | undefined {
  let id: string | undefined;
  for (const record of records) {
    if (record.at > at) break;
    const event = record.event as AgentEvent;
    if (event.type === 'checkpoint' && event.checkpoint.history[key] === length) id = event.checkpoint.id;
  }
  return id;
}

/** Where each prompt begins among the shown events (its user message). */
function shownPromptStarts(shown: readonly TranscriptEvent[]): number[] {
  return shown.flatMap((event, index) => (event.type === 'user_message' && !event.steered ? [index] : []));
}
