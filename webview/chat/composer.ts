/**
 * The prompt box and its buttons. Enter sends, Shift+Enter is a new line
 * (and Enter while an IME is composing is left to the IME); Escape cancels a
 * running prompt. A `/` opening the prompt or an `@` before a word opens
 * the list of what may go there (suggest-menu.ts). While a prompt runs, Send queues the message for the
 * agents' next step; the draft is reported on every change so it survives a
 * reload.
 */
import { iconsWhenNarrow, setDisabled, setLabel, vsButton, type VscodeButton } from './controls';
import { t } from './l10n';
import { el } from './elements';
import type { Post } from './host';
import type { HostMessage } from './protocol';
import { SuggestMenu } from './suggest-menu';

export class Composer {
  readonly element = el('div', 'composer');
  readonly input = el('textarea');
  private readonly send: VscodeButton;
  private readonly cancel: VscodeButton;
  /** Sends the draft to run in the background: a new session the chat does not wait for. */
  private readonly background: VscodeButton;
  private busy = false;

  private readonly actions = el('div', 'composer-actions');
  /** Commands after `/`, MCP resources after `@`. */
  private readonly menu: SuggestMenu;

  constructor(private readonly post: Post, draft: string, private readonly onDraft: (text: string) => void) {
    this.input.id = 'prompt';
    this.input.rows = 3;
    this.input.value = draft;
    this.input.placeholder = t('Ask Crow… (Enter to send, Shift+Enter for a new line)');
    this.input.setAttribute('aria-label', t('Message to Crow'));
    this.menu = new SuggestMenu(this.input, post, (text) => this.onDraft(text));
    this.input.addEventListener('input', () => {
      this.onDraft(this.input.value);
      this.menu.update();
    });
    this.input.addEventListener('keydown', (event) => this.onKey(event));
    // The caret moved without typing: the word it is in may be another.
    this.input.addEventListener('click', () => this.menu.update());
    this.input.addEventListener('blur', () => this.menu.close());
    this.send = vsButton(t('Send'), 'primary-action', () => this.submit(), { icon: 'send' });
    this.send.id = 'send';
    this.send.setAttribute('aria-label', t('Send message'));
    this.cancel = vsButton(t('Cancel'), 'secondary-action', () => this.post({ type: 'cancel' }), { icon: 'debug-stop', secondary: true });
    this.cancel.id = 'cancel';
    this.cancel.setAttribute('aria-label', t('Cancel the running prompt'));
    this.cancel.title = t('Cancel the running prompt (Escape)');
    this.background = vsButton(t('Background'), 'secondary-action', () => this.submit('send_background'), { icon: 'run-below', secondary: true });
    this.background.id = 'background';
    this.background.setAttribute('aria-label', t('Run in background: a new session runs this prompt while you go on here'));
    this.background.title = t('Run in background: a new session runs this prompt; the Background runs list shows it');
    this.actions.append(this.cancel, this.background, this.send);
    iconsWhenNarrow(this.cancel, this.background, this.send);
    this.element.append(this.menu.element, this.input, this.actions);
    this.setBusy(false);
  }

  /** Puts `element` (the pickers) at the start of the buttons' row. */
  lead(element: HTMLElement): void {
    this.actions.prepend(element);
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    setLabel(this.send, busy ? t('Queue') : t('Send'), busy ? 'list-ordered' : 'send');
    this.send.setAttribute('aria-label', busy ? t("Queue the message for the agents' next step") : t('Send message'));
    this.send.title = busy ? t('The agents get it after their current step (Enter)') : t('Send (Enter)');
    setDisabled(this.cancel, !busy);
    // Only while something runs: idle, the row's room goes to the pickers.
    this.cancel.hidden = !busy;
    this.element.dataset['busy'] = String(busy);
  }

  /** Adds text (a selection or file sent to Crow) to the draft and puts the caret after it. */
  prefill(text: string): void {
    const draft = this.input.value;
    this.input.value = draft.trim() ? `${draft.replace(/\s+$/, '')}\n\n${text}` : text;
    this.onDraft(this.input.value);
    this.input.focus();
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
  }

  /** The host's answer to what the person is typing. */
  suggestions(message: Extract<HostMessage, { type: 'suggestions' }>): void {
    this.menu.show(message);
  }

  private onKey(event: KeyboardEvent): void {
    if (this.menu.onKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.isComposing) {
      event.preventDefault();
      this.submit();
    } else if (event.key === 'Escape' && this.busy) {
      event.preventDefault();
      this.post({ type: 'cancel' });
    }
  }

  private submit(type: 'send' | 'send_background' = 'send'): void {
    const text = this.input.value.trim();
    if (!text) return;
    this.menu.close();
    this.post({ type, text });
    this.input.value = '';
    this.onDraft('');
  }
}
