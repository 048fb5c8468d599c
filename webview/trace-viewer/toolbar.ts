/** The viewer's toolbar: filters, search, next error, export and copy, the span counter and a notice line. */
import type { SpanKind } from '../../src/telemetry/span';
import type { Status } from './format';
import type { Filter } from './model';
import type { ExportFormat } from './protocol';
import { el } from './virtual-tree';

const KINDS: SpanKind[] = ['prompt', 'agent_turn', 'subagent', 'llm_call', 'tool', 'handoff', 'hook'];
const STATUSES: Status[] = ['ok', 'error', 'cancelled', 'running', 'unfinished'];
const NOTICE_MS = 8_000;
/** Narrower than this, export and copy fold into a menu rather than wrap the toolbar onto more lines. */
const FOLD_BELOW_PX = 760;

export interface ToolbarHandlers {
  onFilter(change: Partial<Filter>): void;
  onNextError(): void;
  onExport(format: ExportFormat): void;
  onCopy(format: ExportFormat): void;
}

export class Toolbar {
  readonly element = el('header', 'toolbar');
  private readonly agents = select('filter-agent', 'All agents', []);
  private readonly kind = select('filter-kind', 'All kinds', KINDS);
  private readonly status = select('filter-status', 'Any status', STATUSES);
  private readonly search = document.createElement('input');
  private readonly counter = el('span', 'counter');
  private readonly notice = el('span', 'notice');
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(handlers: ToolbarHandlers) {
    this.search.type = 'search';
    this.search.id = 'search';
    this.search.placeholder = 'Search';
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
    const exports = el('span', 'export-group');
    exports.append(
      button('export', 'Export JSON', () => handlers.onExport('json')),
      button('export-otlp', 'Export OTLP JSON', () => handlers.onExport('otlp-json')),
      button('copy', 'Copy JSON', () => handlers.onCopy('json')),
      button('copy-otlp', 'Copy OTLP JSON', () => handlers.onCopy('otlp-json')),
    );
    const menu = document.createElement('details');
    menu.className = 'export-menu';
    const summary = document.createElement('summary');
    summary.textContent = 'Export…';
    menu.append(summary);
    this.element.append(this.agents, this.kind, this.status, this.search, button('next-error', 'Next error', () => handlers.onNextError()), exports, menu, this.counter, this.notice);
    // A choice made from the menu closes it.
    exports.addEventListener('click', () => (menu.open = false));
    new ResizeObserver(() => {
      const narrow = this.element.clientWidth < FOLD_BELOW_PX;
      if (narrow && exports.parentElement !== menu) menu.append(exports);
      if (!narrow && exports.parentElement === menu) menu.before(exports);
      menu.hidden = !narrow;
    }).observe(this.element);
  }

  /** Puts every control back to "show everything" (the caller resets its filter too). */
  clearFilters(): void {
    for (const control of [this.agents, this.kind, this.status, this.search]) control.value = '';
  }

  count(shown: number, total: number): void {
    this.counter.textContent = `${shown} of ${total} spans`;
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
    this.agents.replaceChildren(option('', 'All agents'), ...agents.map((agent) => option(agent, agent)));
    this.agents.value = current;
  }
}

function select(id: string, all: string, values: string[]): HTMLSelectElement {
  const element = document.createElement('select');
  element.id = id;
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
