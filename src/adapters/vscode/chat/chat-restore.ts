/**
 * Undo and Restore as the chat view's buttons do them: on the person's
 * click, never through the agents' approval gate and never as a message
 * in the person's name (a typed /undo or /rewind still runs as the
 * command it is). The restore is planned first and compared with what
 * the view showed: the changes bar's files for an Undo, the cards after
 * the checkpoint for a Restore. Only a restore that would change a file
 * the person was not shown asks once, naming those files.
 */
import type { PlannedRestore, RestoreRequest } from '../../../host/restore-commands';
import { t } from '../l10n';
import { errorText } from '../../../vocabulary/text';
import type { HostMessage, RestoreTarget, TranscriptEvent } from '../../../../webview/chat/protocol';

export type RestoredMessage = Extract<HostMessage, { type: 'restored' }>;
type CountsMessage = Extract<HostMessage, { type: 'change_counts' }>;

/** What a click's restore needs: the open session's plan, the view's events, and a question for the rare case. */
export interface ClickRestoreDeps {
  plan(request: RestoreRequest): Promise<PlannedRestore>;
  /** Everything the view shows of the session, oldest first. */
  shown: readonly TranscriptEvent[];
  /** Asks once (a modal question); true when the person goes ahead. */
  confirm(question: string, detail: string, action: string): Promise<boolean>;
}

/** Plans and applies the restore `target` names; resolves with what the view says about it. */
export async function restoreOnClick(deps: ClickRestoreDeps, target: RestoreTarget, request: RestoreRequest): Promise<RestoredMessage> {
  const done = (outcome: RestoredMessage['outcome'], message: string): RestoredMessage => ({ type: 'restored', target, outcome, message });
  let planned: PlannedRestore;
  try {
    planned = await deps.plan(request);
  } catch (err) {
    return done('failed', t`Nothing was put back: ${errorText(err)}`);
  }
  if (planned.nothing !== undefined) return done('nothing', planned.nothing);
  const seen = new Set(target.kind === 'undo' ? (target.path !== undefined ? [target.path] : lastPromptFiles(deps.shown)) : filesAfter(deps.shown, target.checkpoint));
  const unseen = planned.paths.filter((path) => !seen.has(path));
  if (unseen.length > 0) {
    const go = await deps.confirm(
      unseen.length === 1 ? t`This also puts back a file the chat did not list: ${unseen.join(', ')}` : t`This also puts back ${unseen.length} files the chat did not list: ${unseen.join(', ')}`,
      t`${planned.title}. Changes made to them since (yours too) are lost.`,
      t('Put them back'),
    );
    if (!go) return done('declined', t('Nothing was put back.'));
  }
  try {
    const outcome = await planned.apply(new AbortController().signal);
    if (outcome.status !== 'completed') return done('failed', outcome.message);
    return done('restored', said(target, planned));
  } catch (err) {
    return done('failed', t`Nothing was put back: ${errorText(err)}`);
  }
}

/** What the view says once it is done, in the person's words (no checkpoint numbers). */
function said(target: RestoreTarget, planned: PlannedRestore): string {
  const paths = planned.paths.join(', ');
  const files = planned.paths.length === 0 ? '' : planned.paths.length === 1 ? t`${paths} is back as it was` : t`${paths} are back as they were`;
  if (target.kind === 'undo') return t`Undone: ${files}.`;
  const conversation = planned.conversation ? t('the conversation goes on from there (the turns after it are greyed out)') : '';
  return t`Restored to before this: ${[files, conversation].filter((part) => part !== '').join('; ')}.`;
}

/** The files the latest prompt's changes bar lists: its journal's, told with its end. */
function lastPromptFiles(shown: readonly TranscriptEvent[]): string[] {
  const start = shown.findLastIndex((event) => event.type === 'user_message' && !event.steered);
  return shown.slice(start + 1).flatMap((event) => (event.type === 'prompt_end' ? (event.changes ?? []).map((file) => file.path) : []));
}

/** The files the calls after checkpoint `id` changed, as their cards show them. */
function filesAfter(shown: readonly TranscriptEvent[], id: string): string[] {
  const at = shown.findIndex((event) => event.type === 'checkpoint' && event.id === id);
  return at < 0 ? [] : filesOf(shown.slice(at));
}

function filesOf(events: readonly TranscriptEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'tool_end' ? [...event.files, ...(event.diff ? [event.diff.path] : [])] : []));
}

/**
 * What the view was told of the open session's clicked restores and of its
 * last prompt's net counts, to tell a reloaded view again: each restore
 * where it happened among the events (so a rebuilt view greys the same
 * turns, not the ones after), then the counts.
 */
export class RestoreRecord {
  private restored: { at: number; message: RestoredMessage }[] = [];
  /** The last prompt's net counts; undefined once another prompt starts. */
  counts: CountsMessage | undefined;

  /** A restore done when `at` events were shown (no call runs then). */
  add(at: number, message: RestoredMessage): void {
    this.restored.push({ at, message });
  }

  clear(): void {
    this.restored = [];
    this.counts = undefined;
  }

  /** The messages that rebuild a view from `all` the events shown. */
  replay(all: readonly TranscriptEvent[]): HostMessage[] {
    const messages: HostMessage[] = [];
    let from = 0;
    for (const { at, message } of this.restored) {
      if (at > from) messages.push({ type: 'events', events: all.slice(from, at) });
      messages.push(message);
      from = Math.max(from, at);
    }
    if (all.length > from) messages.push({ type: 'events', events: all.slice(from) });
    if (this.counts) messages.push(this.counts);
    return messages;
  }
}
