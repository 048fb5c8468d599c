/**
 * Going back from the transcript. Every message a person sent, and every
 * tool card of a call that could change something, comes after a
 * checkpoint and gets **Restore**: the files and the conversation (or one
 * of the two) go back to just before it; the host asks first, listing what
 * changes. A message also gets **Edit**: the edited text is sent in a new
 * session that branches from just before it; the old one stays in the
 * sessions list.
 */
import { button, el } from './elements';
import type { Post } from './host';
import type { RestoreMode, TranscriptEvent } from './protocol';

type CheckpointEvent = Extract<TranscriptEvent, { type: 'checkpoint' }>;

const MODES: { mode: RestoreMode; label: string }[] = [
  { mode: 'both', label: 'Files and conversation' },
  { mode: 'files', label: 'Files only' },
  { mode: 'conversation', label: 'Conversation only' },
];

export class CheckpointActions {
  /** Checkpoints before tool calls whose cards have not come yet, by call id. */
  private readonly waiting = new Map<string, string>();

  constructor(private readonly post: Post) {}

  /** A checkpoint: before the message shown last (a prompt's), or before the card of its call (now, or once it comes). */
  mark(event: CheckpointEvent, lastMessage: HTMLElement | undefined, card: (callId: string) => HTMLElement | undefined): void {
    if (event.kind === 'prompt') {
      if (lastMessage) this.onMessage(lastMessage, event.id);
      return;
    }
    if (event.callId === undefined) return;
    const shown = card(event.callId);
    if (shown) this.onCard(shown, event.id);
    else this.waiting.set(event.callId, event.id);
  }

  /** A card was added: its checkpoint may have come first. */
  cardAdded(callId: string, element: HTMLElement): void {
    const id = this.waiting.get(callId);
    if (id === undefined) return;
    this.waiting.delete(callId);
    this.onCard(element, id);
  }

  clear(): void {
    this.waiting.clear();
  }

  private onMessage(message: HTMLElement, id: string): void {
    message.dataset['checkpoint'] = id;
    const actions = el('div', 'checkpoint-actions');
    actions.append(this.restoreButton(message, id), button('Edit', 'checkpoint-edit', () => this.edit(message, id), 'edit'));
    message.append(actions);
  }

  private onCard(card: HTMLElement, id: string): void {
    card.dataset['checkpoint'] = id;
    const head = card.querySelector('.tool-head') ?? card;
    head.append(this.restoreButton(card, id));
  }

  private restoreButton(anchor: HTMLElement, id: string): HTMLButtonElement {
    const restore = button('Restore', 'checkpoint-restore', () => this.choose(anchor, id), 'history');
    restore.title = 'Go back to just before this: the files, the conversation or both (you see what changes before anything does)';
    return restore;
  }

  /** The three ways to restore, under the message or card; one click asks the host, which shows what changes and asks. */
  private choose(anchor: HTMLElement, id: string): void {
    anchor.querySelector(':scope > .restore-choice')?.remove();
    const choice = el('div', 'restore-choice');
    choice.setAttribute('role', 'group');
    choice.setAttribute('aria-label', 'Restore to before this');
    for (const { mode, label } of MODES) {
      choice.append(
        button(label, `restore-${mode}`, () => {
          choice.remove();
          this.post({ type: 'restore', checkpoint: id, mode });
        }),
      );
    }
    choice.append(button('Cancel', 'restore-cancel', () => choice.remove()));
    anchor.append(choice);
  }

  /** The message's text in an editor; sending it branches a new session from before the message. */
  private edit(message: HTMLElement, id: string): void {
    if (message.querySelector('.edit-box')) return;
    const text = message.querySelector('.msg-text')?.textContent ?? '';
    const box = el('div', 'edit-box');
    const input = el('textarea', 'edit-input');
    input.value = text;
    input.rows = Math.min(8, text.split('\n').length + 1);
    input.setAttribute('aria-label', 'Edited message');
    const send = button('Send as a new branch', 'edit-send', () => {
      const edited = input.value.trim();
      if (edited === '') return;
      box.remove();
      this.post({ type: 'edit_message', checkpoint: id, text: edited });
    });
    send.title = 'Starts a new session from just before this message and sends the edited text; this session stays in the list';
    box.append(input, send, button('Cancel', 'edit-cancel', () => box.remove()));
    message.append(box);
    input.focus();
  }
}
