/**
 * Export and copy as one "Export ▾" menu button (the WAI-ARIA menu button
 * pattern): Enter, Space or ArrowDown opens it on its first item, ArrowUp on
 * its last; the arrow keys, Home and End move between items; Enter or Space
 * picks one; Escape closes it and gives the focus back to the button, Tab
 * closes it and moves on. A click outside closes it too.
 */
import { el } from './element';
import { t } from './l10n';

export interface MenuItem {
  id: string;
  label: string;
  run(): void;
}

export class ExportMenu {
  readonly element = el('div', 'export-menu');
  private readonly button = document.createElement('button');
  private readonly list = el('div', 'export-list');
  private readonly items: HTMLButtonElement[];

  constructor(items: MenuItem[]) {
    this.button.type = 'button';
    this.button.id = 'export-menu';
    this.button.textContent = `${t('Export')} \u25be`;
    this.button.setAttribute('aria-haspopup', 'menu');
    this.button.setAttribute('aria-expanded', 'false');
    this.button.setAttribute('aria-controls', 'export-list');
    this.list.id = 'export-list';
    this.list.setAttribute('role', 'menu');
    this.list.setAttribute('aria-label', t('Export or copy the trace'));
    this.list.hidden = true;
    this.items = items.map((item) => {
      const entry = document.createElement('button');
      entry.type = 'button';
      entry.id = item.id;
      entry.textContent = item.label;
      entry.tabIndex = -1;
      entry.setAttribute('role', 'menuitem');
      entry.addEventListener('click', () => {
        this.close(true);
        item.run();
      });
      return entry;
    });
    this.list.append(...this.items);
    this.element.append(this.button, this.list);
    this.button.addEventListener('click', () => (this.list.hidden ? this.open(0) : this.close(true)));
    this.button.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        this.open(event.key === 'ArrowDown' ? 0 : this.items.length - 1);
      }
    });
    this.list.addEventListener('keydown', (event) => this.onMenuKey(event));
    this.list.addEventListener('focusout', (event) => {
      const next = event.relatedTarget as Node | null;
      if (!next || !this.element.contains(next)) this.close(false);
    });
    document.addEventListener('pointerdown', (event) => {
      if (!this.list.hidden && !this.element.contains(event.target as Node)) this.close(false);
    });
  }

  private open(index: number): void {
    this.list.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this.items[index]?.focus();
  }

  private close(refocus: boolean): void {
    if (this.list.hidden) return;
    this.list.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    if (refocus) this.button.focus();
  }

  private onMenuKey(event: KeyboardEvent): void {
    const at = this.items.indexOf(document.activeElement as HTMLButtonElement);
    const last = this.items.length - 1;
    const move: Record<string, number> = { ArrowDown: at >= last ? 0 : at + 1, ArrowUp: at <= 0 ? last : at - 1, Home: 0, End: last };
    if (event.key in move) {
      event.preventDefault();
      this.items[move[event.key]!]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.close(true);
    } else if (event.key === 'Tab') {
      this.close(false);
    }
  }
}
