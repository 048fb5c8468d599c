/**
 * The viewer's toolbar: the Story | Spans switch, filters, search, next
 * error, one Export menu, the span counter and a notice line. The filters
 * change only on an explicit choice: arrow keys on a closed filter go to the
 * tree (which is what arrow keys move in) instead of stepping the filter.
 */
import type { SpanKind } from '../../src/telemetry/span';
import { ExportMenu } from './export-menu';
import { count, type Status } from './format';
import type { Filter } from './model';
import type { ExportFormat } from './protocol';
import { el } from './element';
import { t } from './l10n';

/** How rows read: who did what ("story"), or OpenTelemetry span names ("spans"). */
export type ViewMode = 'story' | 'spans';

const KINDS: SpanKind[] = ['prompt', 'agent_turn', 'subagent', 'llm_call', 'tool', 'handoff', 'hook', 'mcp'];
const STATUSES: Status[] = ['ok', 'error', 'cancelled', 'running', 'unfinished'];
const NOTICE_MS = 8_000;
/** Keys a closed <select> would use to step its value without opening: here they never touch a filter. */
const STEPPING_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

export interface ToolbarHandlers {
  onFilter(change: Partial<Filter>): void;
  onNextError(): void;
  onExport(format: ExportFormat): void;
  onCopy(format: ExportFormat): void;
  onMode(mode: ViewMode): void;
  /** Arrow keys pressed on a filter: the tree takes the focus. */
  onFocusTree(): void;
}

export class Toolbar {
  readonly element = el('header', 'toolbar');
  private readonly agents = select('filter-agent', t('All'), []);
  private readonly kind = select('filter-kind', t('All'), KINDS);
  private readonly status = select('filter-status', t('Any'), STATUSES);
  private readonly search = document.createElement('input');
  private readonly counter = el('span', 'counter');
  private readonly progress = el('span', 'load-progress');
  private readonly progressBar = document.createElement('progress');
  private readonly progressText = el('span', '');
  private readonly notice = el('span', 'notice');
  private readonly modes = el('div', 'view-mode');
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(handlers: ToolbarHandlers) {
    this.search.type = 'search';
    this.search.id = 'search';
    this.search.placeholder = t('Search');
    this.search.setAttribute('aria-label', t('Search the rows'));
    this.notice.id = 'notice';
    this.notice.setAttribute('role', 'status');
    this.agents.addEventListener('change', () => handlers.onFilter({ agent: this.agents.value }));
    this.kind.addEventListener('change', () => handlers.onFilter({ kind: this.kind.value as Filter['kind'] }));
    this.status.addEventListener('change', () => handlers.onFilter({ status: this.status.value as Filter['status'] }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    this.search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => handlers.onFilter({ search: this.search.value.trim().toLowerCase() }), 150);
    });
    for (const control of [this.agents, this.kind, this.status]) guardFilter(control, handlers);
    const menu = new ExportMenu([
      { id: 'export', label: t('Export JSON\u2026'), run: () => handlers.onExport('json') },
      { id: 'export-otlp', label: t('Export OTLP JSON\u2026'), run: () => handlers.onExport('otlp-json') },
      { id: 'copy', label: t('Copy JSON'), run: () => handlers.onCopy('json') },
      { id: 'copy-otlp', label: t('Copy OTLP JSON'), run: () => handlers.onCopy('otlp-json') },
    ]);
    this.modes.setAttribute('role', 'group');
    this.modes.setAttribute('aria-label', t('Rows read as'));
    this.modes.append(button('view-story', t('Story'), () => handlers.onMode('story')), button('view-spans', t('Spans'), () => handlers.onMode('spans')));
    this.progress.id = 'load-progress';
    this.progress.setAttribute('role', 'status');
    this.progress.hidden = true;
    this.progressBar.max = 1;
    this.progressBar.setAttribute('aria-hidden', 'true');
    this.progress.append(this.progressBar, this.progressText);
    this.element.append(this.modes, labelled(t('Agent'), this.agents), labelled(t('Kind'), this.kind), labelled(t('Status'), this.status), this.search, button('next-error', t('Next error'), () => handlers.onNextError()), menu.element, this.counter, this.progress, this.notice);
  }

  /** Marks which of Story | Spans is in force. */
  showMode(mode: ViewMode): void {
    for (const choice of this.modes.querySelectorAll('button')) choice.setAttribute('aria-pressed', String(choice.id === `view-${mode}`));
  }

  /** Puts every control back to "show everything" (the caller resets its filter too). */
  clearFilters(): void {
    for (const control of [this.agents, this.kind, this.status, this.search]) control.value = '';
  }

  count(shown: number, total: number): void {
    this.counter.textContent = t`${count(shown)} of ${count(total)} spans`;
  }

  /** How far a stored trace has loaded (`share` of its bytes); undefined once it has. */
  loading(progress: { spans: number; share: number } | undefined): void {
    this.progress.hidden = progress === undefined;
    if (!progress) return;
    this.progressBar.value = progress.share;
    this.progressText.textContent = t`Loading: ${count(progress.spans)} spans so far (${Math.floor(progress.share * 100)}%)`;
  }

  /** A message about an export or copy, which fades after a while. */
  tell(text: string, error = false): void {
    clearTimeout(this.noticeTimer);
    this.notice.textContent = text;
    this.notice.classList.toggle('error', error);
    this.noticeTimer = setTimeout(() => (this.notice.textContent = ''), NOTICE_MS);
  }

  /** Keeps the agent filter's choices in step with the agents seen so far. */
  showAgents(agents: string[]): void {
    const shown = [...this.agents.options].slice(1).map((item) => item.value);
    if (shown.join('\n') === agents.join('\n')) return;
    const current = this.agents.value;
    this.agents.replaceChildren(option('', t('All')), ...agents.map((agent) => option(agent, agent)));
    this.agents.value = current;
  }
}

/**
 * A closed select steps its value with the arrow keys (Chromium fires
 * "change" at once), which hid spans behind a person's back. Those keys now
 * move to the tree; Space or Alt+ArrowDown still opens the list, where the
 * arrows choose and Enter confirms.
 */
function guardFilter(control: HTMLSelectElement, handlers: ToolbarHandlers): void {
  control.addEventListener('keydown', (event) => {
    if (!STEPPING_KEYS.has(event.key) || event.altKey) return;
    event.preventDefault();
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') handlers.onFocusTree();
  });
}

/** A filter with its name shown before it, so every reader knows what it filters. */
function labelled(name: string, control: HTMLSelectElement): HTMLLabelElement {
  const label = document.createElement('label');
  label.className = 'filter';
  label.append(`${name} `, control);
  return label;
}

function select(id: string, all: string, values: string[]): HTMLSelectElement {
  const element = document.createElement('select');
  element.id = id;
  element.title = t('Space or Alt+\u2193 opens the list');
  element.append(option('', all), ...values.map((value) => option(value, value)));
  return element;
}

function option(value: string, label: string): HTMLOptionElement {
  const element = document.createElement('option');
  element.value = value;
  element.textContent = label;
  return element;
}

function button(id: string, label: string, onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.id = id;
  element.type = 'button';
  element.textContent = label;
  element.addEventListener('click', onClick);
  return element;
}
