/**
 * Messages sent while the agents work: shown above the input until an
 * agent takes them at its next step (then they appear in the transcript
 * where they arrived). **Send now** stops the running step instead, and
 * what waits here is sent at once.
 */
import { button, el } from './elements';
import { t } from './l10n';
import type { Post } from './host';

export class QueueView {
  readonly element = el('section', 'queue');

  constructor(private readonly post: Post) {
    this.element.setAttribute('aria-label', t('Messages waiting for the agents'));
    this.element.hidden = true;
  }

  show(items: readonly { id: string; text: string }[]): void {
    this.element.replaceChildren();
    this.element.hidden = items.length === 0;
    if (items.length === 0) return;
    const head = el('div', 'queue-head');
    head.append(el('span', 'queue-title', items.length === 1 ? t('Queued: the agents get it after their current step') : t('Queued: the agents get them after their current step')));
    const now = button(t('Send now'), 'queue-send-now', () => this.post({ type: 'interrupt' }));
    now.title = t('Stop the running step and send what is queued at once');
    head.append(now);
    this.element.append(head);
    for (const item of items) {
      const entry = el('div', 'queue-item', item.text);
      entry.dataset['id'] = item.id;
      this.element.append(entry);
    }
  }
}
