/**
 * The session list (folded by default): earlier sessions newest first, the
 * current one marked; choosing another posts `resume`. It folds whenever
 * another session opens (chosen here, New, a reopen after a reload);
 * otherwise whether it is unfolded survives the view being rebuilt.
 */
import { ago } from './format';
import { t } from './l10n';
import { el } from './elements';
import type { Post } from './host';
import type { SessionSummary } from './protocol';

export class SessionList {
  readonly element: HTMLDetailsElement;
  private readonly summary = el('summary', undefined, t('Sessions'));
  private readonly list = el('ul', 'session-items');
  private sessions: SessionSummary[] = [];
  private current: string | undefined;

  constructor(private readonly post: Post, open: boolean, onToggle: (open: boolean) => void) {
    this.element = el('details', 'sessions');
    this.element.id = 'sessions';
    this.element.open = open;
    this.element.append(this.summary, this.list);
    this.element.addEventListener('toggle', () => onToggle(this.element.open));
    this.render();
  }

  show(sessions: SessionSummary[], current: string | undefined): void {
    this.sessions = [...sessions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    this.current = current;
    this.render();
  }

  setCurrent(current: string | undefined): void {
    this.current = current;
    this.render();
  }

  fold(): void {
    this.element.open = false;
  }

  private render(): void {
    this.summary.textContent = t`Sessions (${this.sessions.length})`;
    if (this.sessions.length === 0) {
      this.list.replaceChildren(el('li', 'session-empty', t('No saved sessions yet.')));
      return;
    }
    this.list.replaceChildren(...this.sessions.map((session) => this.item(session)));
  }

  private item(session: SessionSummary): HTMLLIElement {
    const row = el('li');
    const choose = el('button', 'session');
    choose.type = 'button';
    choose.dataset['sessionId'] = session.id;
    const title = session.title.trim() || t('Untitled session');
    choose.append(el('span', 'session-title', title), el('span', 'session-meta', `${session.agent} · ${ago(session.updatedAt)}`));
    if (session.id === this.current) {
      choose.setAttribute('aria-current', 'true');
      choose.setAttribute('aria-label', t`${title} (current session)`);
    } else {
      choose.setAttribute('aria-label', t`Resume ${title}`);
    }
    choose.addEventListener('click', () => {
      if (session.id === this.current) return;
      this.post({ type: 'resume', sessionId: session.id });
      this.fold();
    });
    row.append(choose);
    return row;
  }
}
