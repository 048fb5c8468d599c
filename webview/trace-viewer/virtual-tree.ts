/**
 * The tree and its waterfall as one virtualised list: only the rows in view
 * (plus a small margin) are in the DOM, so the row count does not matter.
 * Every piece of span text is set with textContent.
 */
import { cost, count, duration, STATUS_MARKS, summary, type Status } from './format';
import type { SpanRecord } from '../../src/telemetry/span';
import type { Row, Totals } from './model';

export const ROW_HEIGHT = 22;
const OVERSCAN = 10;

export interface TreeHandlers {
  onToggle(spanId: string): void;
  onSelect(spanId: string): void;
}

export interface TreeView {
  rows: Row[];
  bounds: { start: number; end: number };
  selected: string | undefined;
  collapsed: ReadonlySet<string>;
  /** The clock at this render: running spans last until now. */
  now: number;
  status(span: SpanRecord): Status;
  /** Where an unfinished span's bar stops: the last thing seen under it. */
  lastSeen(spanId: string): number;
  /** Sums below a span, shown on prompt rows. */
  totals(spanId: string): Totals;
}

export class VirtualTree {
  private readonly spacer: HTMLElement;
  private view: TreeView | undefined;

  constructor(private readonly viewport: HTMLElement, handlers: TreeHandlers) {
    this.spacer = el('div', 'spacer');
    viewport.append(this.spacer);
    viewport.addEventListener('scroll', () => this.paint());
    viewport.addEventListener('click', (event) => {
      const target = event.target as HTMLElement;
      const spanId = target.closest<HTMLElement>('.row')?.dataset['spanId'];
      if (spanId === undefined) return;
      if (target.closest('.toggle')) handlers.onToggle(spanId);
      else handlers.onSelect(spanId);
    });
  }

  show(view: TreeView): void {
    this.view = view;
    this.spacer.style.height = `${view.rows.length * ROW_HEIGHT}px`;
    this.paint();
  }

  /** Scrolls just enough for row `index` to be visible. */
  reveal(index: number): void {
    const top = index * ROW_HEIGHT;
    const { scrollTop, clientHeight } = this.viewport;
    if (top < scrollTop) this.viewport.scrollTop = top;
    else if (top + ROW_HEIGHT > scrollTop + clientHeight) this.viewport.scrollTop = top + ROW_HEIGHT - clientHeight;
    this.paint();
  }

  private paint(): void {
    const view = this.view;
    if (!view) return;
    const { scrollTop, clientHeight } = this.viewport;
    const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(view.rows.length, Math.ceil((scrollTop + clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const elements: HTMLElement[] = [];
    for (let i = first; i < last; i++) elements.push(rowElement(view, view.rows[i]!, i));
    this.spacer.replaceChildren(...elements);
  }
}

function rowElement(view: TreeView, row: Row, index: number): HTMLElement {
  const { span } = row;
  const status = view.status(span);
  const element = el('div', `row kind-${span.kind} status-${status}`);
  if (span.spanId === view.selected) element.classList.add('selected');
  element.dataset['spanId'] = span.spanId;
  element.style.top = `${index * ROW_HEIGHT}px`;
  const cell = el('div', 'tree-cell');
  cell.style.paddingLeft = `${row.depth * 14}px`;
  const toggle = el('span', row.hasChildren ? 'toggle' : 'toggle-space');
  toggle.textContent = row.hasChildren ? (view.collapsed.has(span.spanId) ? '▸' : '▾') : '';
  const took = span.end !== undefined ? duration(span.end - span.start) : status === 'running' ? `running ${duration(view.now - span.start)}` : 'unfinished';
  cell.append(
    toggle,
    text('mark', STATUS_MARKS[status]),
    text('agent', span.agent ? `[${span.agent}${span.role ? `/${span.role}` : ''}]` : ''),
    text('name', span.name),
    text('took', took),
    text('summary', span.kind === 'prompt' ? totalsLine(view.totals(span.spanId)) : summary(span)),
  );
  element.append(cell, bar(view, span, status));
  // The label is cut to its column: the whole of it on hover.
  element.title = cell.textContent ?? '';
  return element;
}

function totalsLine(totals: Totals): string {
  const parts = [
    `${count(totals.llmCalls)} LLM`,
    `${count(totals.toolCalls)} tools`,
    `${count(totals.inputTokens)} in / ${count(totals.outputTokens)} out`,
    cost(totals.costUsd),
  ];
  if (totals.errors > 0) parts.push(`${count(totals.errors)} error${totals.errors === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/**
 * The span's place on the waterfall, as a share of the whole session's time.
 * A running span reaches to now (and grows as the view re-renders); an
 * unfinished one to the last thing seen under it.
 */
function bar(view: TreeView, span: SpanRecord, status: Status): HTMLElement {
  const { start, end } = view.bounds;
  const width = end - start;
  const cell = el('div', 'bar-cell');
  const element = el('div', 'bar');
  const spanEnd = span.end ?? (status === 'running' ? view.now : view.lastSeen(span.spanId));
  element.style.left = `${((span.start - start) / width) * 100}%`;
  element.style.width = `${Math.max(((Math.min(spanEnd, end) - span.start) / width) * 100, 0.2)}%`;
  cell.append(element);
  return cell;
}

export function el(tag: string, className: string): HTMLElement {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}

function text(className: string, content: string): HTMLElement {
  const element = el('span', className);
  element.textContent = content;
  return element;
}
