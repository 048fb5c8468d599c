/**
 * Going back from the transcript. Every message a person sent, and every
 * tool card of a call that could change something, comes after a
 * checkpoint and gets **Restore**: the files and the conversation (or one
 * of the two) go back to just before it, at once on the click (the host
 * asks only when a file the transcript did not show would change). A
 * rewound conversation's turns stay in sight, greyed and labelled
 * "Rewound" (`showRewound`). A message also gets **Edit**: the edited text
 * is sent in a new session that branches from just before it; the old one
 * stays in the sessions list. While a run is still ending (the view is
 * busy) these buttons are disabled: the host would only answer that Crow
 * is still working (`holdWhileBusy`).
 */
import { retireBar } from './changes-bar';
import { t } from './l10n';
import { button, el } from './elements';
import type { Post } from './host';
import type { HostMessage, RestoreMode, TranscriptEvent } from './protocol';

type CheckpointEvent = Extract<TranscriptEvent, { type: 'checkpoint' }>;
type Restored = Extract<HostMessage, { type: 'restored' }>;

/** The buttons that go back from the transcript, held while a run ends. */
const HELD = '.checkpoint-restore, .checkpoint-edit, .restore-choice button:not(.restore-cancel), .edit-send';

/** Whether the view is busy with a run (body[data-busy] is "false" only once the host said the run ended). */
function viewBusy(): boolean {
  return document.body.dataset['busy'] !== 'false';
}

/** Disables (busy) or gives back every Restore and Edit in `root`, as the host tells the view a run starts or ends. */
export function holdWhileBusy(root: ParentNode, busy: boolean): void {
  for (const action of root.querySelectorAll<HTMLButtonElement>(HELD)) action.disabled = busy;
}

const modes = (): { mode: RestoreMode; label: string }[] => [
  { mode: 'both', label: t('Files and conversation') },
  { mode: 'files', label: t('Files only') },
  { mode: 'conversation', label: t('Conversation only') },
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
    const edit = button(t('Edit'), 'checkpoint-edit', () => this.edit(message, id), 'edit');
    edit.disabled = viewBusy();
    actions.append(this.restoreButton(message, id), edit);
    message.append(actions);
  }

  private onCard(card: HTMLElement, id: string): void {
    card.dataset['checkpoint'] = id;
    const head = card.querySelector('.tool-head') ?? card;
    head.append(this.restoreButton(card, id));
  }

  private restoreButton(anchor: HTMLElement, id: string): HTMLButtonElement {
    const restore = button(t('Restore'), 'checkpoint-restore', () => this.choose(anchor, id), 'history');
    restore.title = t('Go back to just before this: the files, the conversation or both');
    restore.disabled = viewBusy();
    return restore;
  }

  /** The three ways to restore, under the message or card; one click restores. */
  private choose(anchor: HTMLElement, id: string): void {
    anchor.querySelector(':scope > .restore-choice')?.remove();
    const choice = el('div', 'restore-choice');
    choice.setAttribute('role', 'group');
    choice.setAttribute('aria-label', t('Restore to before this'));
    for (const { mode, label } of modes()) {
      choice.append(
        button(label, `restore-${mode}`, () => {
          const pending = el('div', 'restore-pending', t('Restoring…'));
          pending.setAttribute('role', 'status');
          choice.replaceWith(pending);
          this.post({ type: 'restore', checkpoint: id, mode });
        }),
      );
    }
    choice.append(button(t('Cancel'), 'restore-cancel', () => choice.remove()));
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
    input.setAttribute('aria-label', t('Edited message'));
    // A branch is of the conversation: said before sending, with the files' restore one tick away.
    const note = el('p', 'edit-note', t('A new branch of the conversation. The files stay as they are now, unless you tick:'));
    const files = el('input', 'edit-files');
    files.type = 'checkbox';
    const filesLabel = el('label', 'edit-files-label');
    filesLabel.append(files, ` ${t('Also put the files back as they were before this message')}`);
    const send = button(t('Send as a new branch'), 'edit-send', () => {
      const edited = input.value.trim();
      if (edited === '') return;
      box.remove();
      this.post({ type: 'edit_message', checkpoint: id, text: edited, ...(files.checked ? { files: true } : {}) });
    });
    send.title = t('Starts a new session from just before this message and sends the edited text; this session stays in the list');
    box.append(input, note, filesLabel, send, button(t('Cancel'), 'edit-cancel', () => box.remove()));
    message.append(box);
    input.focus();
  }
}

/**
 * How a Restore ended, in the transcript: a rewound conversation's turns
 * (from the checkpoint's message or card on) greyed under a "Rewound"
 * label, their Restore, Edit and Undo taken away; then a line saying what
 * went back, or why nothing did. A rewind told again from a reopened
 * session (`earlier`) says its words in the label alone, so they are not
 * read twice.
 */
export function showRewound(transcript: HTMLElement, restored: Restored): void {
  if (restored.target.kind !== 'rewind') return;
  const { checkpoint, mode } = restored.target;
  for (const pending of transcript.querySelectorAll('.restore-pending')) pending.remove();
  const anchor = [...transcript.querySelectorAll<HTMLElement>('[data-checkpoint]')].find((candidate) => candidate.dataset['checkpoint'] === checkpoint);
  const top = anchor ? topLevel(transcript, anchor) : undefined;
  const greyed = restored.outcome === 'restored' && mode !== 'files' && top !== undefined;
  if (greyed) {
    const label = el('div', 'rewound-label', restored.earlier ? restored.message : t('Rewound: the agents no longer see what follows'));
    top.before(label);
    for (let entry: Element | null = top; entry; entry = entry.nextElementSibling) {
      entry.classList.add('rewound');
      for (const action of entry.querySelectorAll('.checkpoint-actions, .checkpoint-restore, .restore-choice, .edit-box')) action.remove();
      if (entry.classList.contains('changes-bar')) retireBar(entry as HTMLElement);
    }
  }
  // A reopened session's rewind is said by its label; one whose turns are not shown still gets its line.
  if (restored.earlier && greyed) return;
  const note = el('div', `restore-note restore-${restored.outcome}`, restored.message);
  note.setAttribute('role', 'status');
  transcript.append(note);
}

/** The transcript's own child that holds `element`. */
function topLevel(transcript: HTMLElement, element: HTMLElement): HTMLElement | undefined {
  let current: HTMLElement | null = element;
  while (current && current.parentElement !== transcript) current = current.parentElement;
  return current ?? undefined;
}
