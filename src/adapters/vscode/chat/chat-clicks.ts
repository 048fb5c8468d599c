/**
 * The chat view's restore buttons, as the controller hands them over:
 * Undo (the prompt, one file, one hunk), Restore to a checkpoint, and
 * Edit on an earlier message (a branch, with its files put back when the
 * person asks). Each acts on the click (see chat-restore.ts), is said
 * where it was clicked, and is kept in the RestoreRecord so a reloaded
 * view shows it again.
 */
import { forkSession } from '../../../journal/fork';
import { t } from '../l10n';
import type { SessionStore } from '../../../session/session-store';
import type { RestoreRequest } from '../../../host/restore-commands';
import type { HostMessage, RestoreTarget, WebviewMessage } from '../../../../webview/chat/protocol';
import type { ChatSession } from './chat-session';
import type { ShownTranscript } from './shown-transcript';
import { RestoreRecord, restoreOnClick } from './chat-restore';
import { filesForBranch } from './edit-branch';

/** The messages of the view's restore buttons. */
export type ClickMessage = Extract<WebviewMessage, { type: 'restore' | 'edit_message' | 'undo_prompt' | 'show_hunks' | 'undo_hunk' | 'keep_hunk' }>;

/** What the clicks need of the controller: its open session, its events, the view, and a way to branch. */
export interface ClickHost {
  /** The session open now (undefined between sessions), to drop answers meant for one closed meanwhile. */
  current(): ChatSession | undefined;
  /** The open session, started on first use. */
  session(): Promise<ChatSession>;
  shown: ShownTranscript;
  record: RestoreRecord;
  store: SessionStore;
  post(message: HostMessage): void;
  confirm(question: string, detail: string, action: string): Promise<boolean>;
  /** Opens the stored session `id` in the view (the record is cleared). */
  open(id: string): Promise<void>;
  /** Sends `text` as the person's prompt in the open session. */
  send(text: string): Promise<void>;
}

export class ChatClicks {
  constructor(private readonly host: ClickHost) {}

  handle(message: ClickMessage): Promise<void> {
    switch (message.type) {
      case 'restore':
        return this.restore({ kind: 'rewind', checkpoint: message.checkpoint, mode: message.mode });
      case 'edit_message':
        return this.editMessage(message.checkpoint, message.text, message.files === true);
      case 'undo_prompt':
        return this.restore(message.path !== undefined ? { kind: 'undo', path: message.path } : { kind: 'undo' });
      case 'show_hunks':
        return this.showHunks(message.path);
      case 'undo_hunk':
        return this.undoHunk(message.path, message.hunk);
      case 'keep_hunk':
        // Nothing to write: the host's word that it is kept, which the editor follows (editor-hunks.ts).
        this.host.post({ type: 'hunk_kept', path: message.path, hunk: message.hunk });
        return Promise.resolve();
    }
  }

  /** An Undo or Restore the person clicked: done at once, said where they clicked (see chat-restore.ts). */
  private async restore(target: RestoreTarget): Promise<void> {
    const chat = await this.host.session();
    const request: RestoreRequest =
      target.kind === 'undo' ? { kind: 'undo', ...(target.path !== undefined ? { paths: [target.path] } : {}) }
      : { kind: 'rewind', number: await this.checkpointNumber(target.checkpoint), mode: target.mode };
    const done = await restoreOnClick(this.deps(chat), target, request);
    if (this.host.current() !== chat) return;
    // Where it happened among the events (no call runs now): a reloaded view greys the same turns, not the ones after.
    if (done.outcome === 'restored') this.host.record.add(this.host.shown.all.length, done);
    this.host.post(done);
    // Undoing one file leaves the prompt's other files to count; a whole undo leaves none (the journal goes on to the prompt before).
    if (done.outcome === 'restored' && target.kind === 'undo' && target.path !== undefined) await this.countChanges(chat);
  }

  private async showHunks(path: string): Promise<void> {
    this.host.post({ type: 'hunks', path, hunks: await (await this.host.session()).promptHunks(path) });
  }

  /** One hunk's Undo, clicked in the changes bar: said where it was clicked; the bar's counts and the file's hunks follow. */
  private async undoHunk(path: string, hunk: string): Promise<void> {
    const chat = await this.host.session();
    const done = await chat.undoHunk(path, hunk);
    if (this.host.current() !== chat) return;
    this.host.post({ type: 'hunk_undone', path, hunk, ...done });
    if (!done.restored) return;
    this.host.post({ type: 'hunks', path, hunks: await chat.promptHunks(path) });
    await this.countChanges(chat);
  }

  /** The last prompt's changes again, from its journal, for its changes bar (nothing when they cannot be told now). */
  private async countChanges(chat: ChatSession): Promise<void> {
    const files = await chat.promptChanges();
    // Another session opened, or another prompt started, meanwhile: these counts are no longer the last bar's.
    if (!files || this.host.current() !== chat || chat.busy) return;
    this.host.record.counts = { type: 'change_counts', files };
    this.host.post(this.host.record.counts);
  }

  /** The number /rewind takes for a checkpoint the view shows. */
  private async checkpointNumber(id: string): Promise<number> {
    const number = (await this.host.session()).checkpointNumber(id);
    if (number === undefined) throw new Error(t('That checkpoint is not in this session any more: reopen the session to see its checkpoints.'));
    return number;
  }

  /**
   * Edits a message the person sent: a new session branches from just
   * before it and gets the edited text; the old session stays in the list.
   */
  private async editMessage(checkpoint: string, text: string, withFiles: boolean): Promise<void> {
    const chat = await this.host.session();
    if (chat.busy) throw new Error(t('Crow is still working: cancel the running prompt before editing an earlier message.'));
    const number = await this.checkpointNumber(checkpoint);
    const restoreFiles = () => restoreOnClick(this.deps(chat), { kind: 'rewind', checkpoint, mode: 'files' }, { kind: 'rewind', number, mode: 'files' });
    const files = await filesForBranch(checkpoint, withFiles ? restoreFiles : undefined);
    if (!files.branch) return this.host.post(files.note);
    const { session } = forkSession(this.host.store, chat.id, number);
    await this.host.open(session.id);
    // What became of the files, at the head of the branch (and again after a reload).
    this.host.record.add(this.host.shown.all.length, files.note);
    this.host.post(files.note);
    await this.host.send(text);
  }

  private deps(chat: ChatSession) {
    return { plan: (asked: RestoreRequest) => chat.planRestore(asked), shown: this.host.shown.all, confirm: this.host.confirm };
  }
}
