/**
 * The shared todo list as a plan, pinned under the transcript: each `plan`
 * event replaces it whole (the host sends the full list). Hidden while empty.
 */
import { el } from './elements';
import { t } from './l10n';
import type { PlanEntry } from './protocol';

const MARK: Record<PlanEntry['status'], string> = { pending: '○', in_progress: '◐', completed: '●' };
const spoken = (status: PlanEntry['status']): string => (status === 'pending' ? t('to do') : status === 'in_progress' ? t('in progress') : t('done'));

export class PlanView {
  readonly element: HTMLDetailsElement;
  private readonly summary = el('summary');
  private readonly list = el('ol', 'plan-list');

  constructor() {
    this.element = el('details', 'plan');
    this.element.id = 'plan';
    this.element.open = true;
    this.element.append(this.summary, this.list);
    this.show([]);
  }

  show(entries: PlanEntry[]): void {
    this.element.hidden = entries.length === 0;
    const done = entries.filter((entry) => entry.status === 'completed').length;
    this.summary.textContent = t`Plan \u00b7 ${done} of ${entries.length} done`;
    this.list.replaceChildren(...entries.map(item));
  }
}

function item(entry: PlanEntry): HTMLLIElement {
  const row = el('li', `plan-entry plan-${entry.status}`);
  row.dataset['status'] = entry.status;
  const mark = el('span', 'plan-mark', MARK[entry.status]);
  mark.setAttribute('aria-label', spoken(entry.status));
  mark.setAttribute('role', 'img');
  row.append(mark, el('span', 'plan-text', entry.content));
  return row;
}
