/**
 * The trace viewer served by `crow trace SESSION --serve`. Spans come from
 * `GET ./spans`; live changes from `GET ./events` (Server-Sent Events, one
 * SpanRecord per event, replacing any span with the same spanId). The event
 * stream is opened before the spans are fetched, so nothing falls between.
 */
import type { SpanKind, SpanRecord } from '../../src/telemetry/span';
import { renderDetails } from './details';
import { statusOf } from './format';
import { TraceModel, type Filter, type Row } from './model';
import { el, VirtualTree } from './virtual-tree';
import './viewer.css';

const KINDS: SpanKind[] = ['prompt', 'agent_turn', 'subagent', 'llm_call', 'tool', 'handoff'];
const STATUSES = ['ok', 'error', 'cancelled', 'running'];
const TOTALLED: ReadonlySet<SpanKind> = new Set(['prompt', 'agent_turn', 'subagent']);

class Viewer {
  private readonly model = new TraceModel();
  private readonly collapsed = new Set<string>();
  private filter: Filter = { agent: '', kind: '', status: '', search: '' };
  private selected: string | undefined;
  private rows: Row[] = [];
  private pending = false;
  private readonly agentSelect = select('filter-agent', 'All agents', []);
  private readonly counter = el('span', 'counter');
  private readonly tree: VirtualTree;
  private readonly details = el('aside', 'details');

  constructor(root: HTMLElement) {
    const viewport = el('div', 'viewport');
    this.tree = new VirtualTree(viewport, {
      onToggle: (id) => this.toggle(id),
      onSelect: (id) => this.select(id),
    });
    const main = el('main', 'layout');
    main.append(viewport, this.details);
    root.replaceChildren(this.toolbar(), main);
  }

  add(spans: SpanRecord[]): void {
    for (const span of spans) this.model.upsert(span);
    this.scheduleRender();
  }

  /** Renders now; later changes within the same frame are coalesced by scheduleRender. */
  render(): void {
    this.pending = false;
    this.rows = this.model.rows(this.collapsed, this.filter);
    this.refreshAgents();
    this.tree.show({
      rows: this.rows,
      bounds: this.model.bounds(),
      selected: this.selected,
      collapsed: this.collapsed,
      totals: (spanId) => this.model.totals(spanId),
    });
    const span = this.selected !== undefined ? this.model.get(this.selected) : undefined;
    renderDetails(this.details, span, span && TOTALLED.has(span.kind) ? this.model.totals(span.spanId) : undefined);
    this.counter.textContent = `${this.rows.length} of ${this.model.size} spans`;
    document.documentElement.dataset['spanCount'] = String(this.model.size);
  }

  private scheduleRender(): void {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => this.render());
  }

  private toolbar(): HTMLElement {
    const bar = el('header', 'toolbar');
    const kind = select('filter-kind', 'All kinds', KINDS);
    const status = select('filter-status', 'Any status', STATUSES);
    const search = document.createElement('input');
    search.type = 'search';
    search.id = 'search';
    search.placeholder = 'Search';
    this.agentSelect.addEventListener('change', () => this.setFilter({ agent: this.agentSelect.value }));
    kind.addEventListener('change', () => this.setFilter({ kind: kind.value as Filter['kind'] }));
    status.addEventListener('change', () => this.setFilter({ status: status.value as Filter['status'] }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.setFilter({ search: search.value.trim().toLowerCase() }), 150);
    });
    bar.append(this.agentSelect, kind, status, search, button('next-error', 'Next error', () => this.nextError()), button('export', 'Export JSON', () => this.exportJson()), this.counter);
    return bar;
  }

  private setFilter(change: Partial<Filter>): void {
    this.filter = { ...this.filter, ...change };
    this.render();
  }

  private toggle(spanId: string): void {
    if (!this.collapsed.delete(spanId)) this.collapsed.add(spanId);
    this.render();
  }

  private select(spanId: string): void {
    this.selected = spanId;
    this.render();
  }

  /** Selects the first error row after the selection, wrapping around. */
  private nextError(): void {
    const from = this.rows.findIndex((row) => row.span.spanId === this.selected);
    const order = [...this.rows.slice(from + 1), ...this.rows.slice(0, from + 1)];
    const next = order.find((row) => statusOf(row.span) === 'error');
    if (!next) return;
    this.select(next.span.spanId);
    this.tree.reveal(this.rows.indexOf(next));
  }

  private exportJson(): void {
    const spans = this.model.all().sort((a, b) => a.start - b.start);
    const url = URL.createObjectURL(new Blob([JSON.stringify(spans, null, 2)], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'trace.json';
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  private refreshAgents(): void {
    const agents = this.model.agents();
    const shown = [...this.agentSelect.options].slice(1).map((item) => item.value);
    if (shown.join('\n') === agents.join('\n')) return;
    const current = this.agentSelect.value;
    this.agentSelect.replaceChildren(option('', 'All agents'), ...agents.map((agent) => option(agent, agent)));
    this.agentSelect.value = current;
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

async function start(): Promise<void> {
  const viewer = new Viewer(document.getElementById('app')!);
  let loaded = false;
  const load = async (): Promise<void> => {
    loaded = true;
    const response = await fetch('./spans');
    viewer.add((await response.json()) as SpanRecord[]);
    viewer.render();
  };
  const events = new EventSource('./events');
  events.onmessage = (event: MessageEvent<string>) => viewer.add([JSON.parse(event.data) as SpanRecord]);
  events.onopen = () => void load();
  events.onerror = () => {
    if (!loaded) void load();
  };
}

void start();
