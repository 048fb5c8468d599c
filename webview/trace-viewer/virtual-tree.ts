/**
 * The tree and its waterfall as one virtualised list: only the rows in view
 * (plus a small margin) are in the DOM, so the row count does not matter.
 * It is an ARIA tree with a roving tabindex: the selected row (or, scrolled
 * away from it, the first row drawn) is the one Tab reaches, and a repaint
 * keeps the focus on it. Every piece of span text is set with textContent.
 */
import { el } from './element';
import { cost, count, duration, STATUS_MARKS, summary, type Status } from './format';
import type { SpanRecord } from '../../src/telemetry/span';
import type { Row, Totals } from './model';
import { storyLabel, storyLine, WHOLE } from './story';
import type { ViewMode } from './toolbar';
import { t } from './l10n';

export const ROW_HEIGHT = 22;
const OVERSCAN = 10;

export interface TreeHandlers {
  onToggle(spanId: string): void;
  onSelect(spanId: string): void;
  /** A key pressed on the tree (the viewer moves the selection). */
  onKey(event: KeyboardEvent): void;
}

export interface TreeView {
  rows: Row[];
  bounds: { start: number; end: number };
  selected: string | undefined;
  collapsed: ReadonlySet<string>;
  mode: ViewMode;
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
    this.spacer.setAttribute('role', 'tree');
    this.spacer.setAttribute('aria-label', t('Spans of the session'));
    this.spacer.id = 'tree';
    viewport.append(this.spacer);
    viewport.addEventListener('keydown', (event) => {
      if ((event.target as HTMLElement).closest('.row')) handlers.onKey(event);
    });
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

  /** How many rows the viewport has room for. */
  rowsInView(): number {
    return Math.ceil(this.viewport.clientHeight / ROW_HEIGHT);
  }

  /** Scrolls just enough for row `index` to be visible. */
  reveal(index: number): void {
    const top = index * ROW_HEIGHT;
    const { scrollTop, clientHeight } = this.viewport;
    if (top < scrollTop) this.viewport.scrollTop = top;
    else if (top + ROW_HEIGHT > scrollTop + clientHeight) this.viewport.scrollTop = top + ROW_HEIGHT - clientHeight;
    this.paint();
  }

  /** Puts the keyboard focus on the selected row (or the row Tab would reach). */
  focus(): void {
    this.rowToFocus()?.focus({ preventScroll: true });
  }

  private rowToFocus(): HTMLElement | null {
    return this.spacer.querySelector<HTMLElement>('.row[tabindex="0"]');
  }

  private paint(): void {
    const view = this.view;
    if (!view) return;
    const hadFocus = this.spacer.contains(document.activeElement);
    const { scrollTop, clientHeight } = this.viewport;
    const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(view.rows.length, Math.ceil((scrollTop + clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const drawn = new Map<string | undefined, Element>([...this.spacer.children].map((row) => [(row as HTMLElement).dataset['spanId'], row]));
    const elements: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const made = rowElement(view, view.rows[i]!, i);
      const kept = drawn.get(made.dataset['spanId']) as HTMLElement | undefined;
      elements.push(kept?.outerHTML === made.outerHTML ? kept : made);
    }
    if (!elements.some((row) => row.tabIndex === 0) && elements[0]) elements[0].tabIndex = 0;
    placeRows(this.spacer, elements);
    if (hadFocus) this.focus();
  }
}

/**
 * Makes `rows` the children of `spacer`, in order, leaving a row that is
 * already drawn as it is (same span, same place, same content) where it
 * is: a trace that loads repaints every 250 ms, and a row replaced between
 * a person's press and release lost their click.
 */
function placeRows(spacer: HTMLElement, rows: readonly HTMLElement[]): void {
  const wanted = new Set<Element>(rows);
  for (const child of [...spacer.children]) if (!wanted.has(child)) child.remove();
  let next = spacer.firstElementChild;
  for (const row of rows) {
    if (row === next) next = next.nextElementSibling;
    else spacer.insertBefore(row, next);
  }
}

function rowElement(view: TreeView, row: Row, index: number): HTMLElement {
  const { span } = row;
  const status = view.status(span);
  const element = el('div', `row kind-${span.kind} status-${status}`);
  const selected = span.spanId === view.selected;
  if (selected) element.classList.add('selected');
  element.dataset['spanId'] = span.spanId;
  element.style.top = `${index * ROW_HEIGHT}px`;
  element.setAttribute('role', 'treeitem');
  element.setAttribute('aria-level', String(row.depth + 1));
  element.setAttribute('aria-selected', String(selected));
  if (row.hasChildren) element.setAttribute('aria-expanded', String(!view.collapsed.has(span.spanId)));
  element.tabIndex = selected ? 0 : -1;
  const cell = el('div', 'tree-cell');
  cell.style.paddingLeft = `${row.depth * 14}px`;
  const toggle = el('span', row.hasChildren ? 'toggle' : 'toggle-space');
  toggle.textContent = row.hasChildren ? (view.collapsed.has(span.spanId) ? '▸' : '▾') : '';
  toggle.setAttribute('aria-hidden', 'true');
  const took = span.end !== undefined ? duration(span.end - span.start) : status === 'running' ? t`running ${duration(view.now - span.start)}` : status;
  const story = view.mode === 'story';
  const label = story ? storyLabel(span) : { actor: span.agent ? `[${span.agent}${span.role ? `/${span.role}` : ''}]` : '', text: span.name };
  const details = span.kind === 'prompt' ? totalsLine(view.totals(span.spanId)) : story ? storySummary(span) : summary(span);
  const mark = text('mark', STATUS_MARKS[status]);
  mark.title = status;
  // The row's accessible name is its text: the mark's meaning is said in words, the tooltip has the whole label.
  mark.setAttribute('aria-hidden', 'true');
  const said = text('offscreen', status === 'ok' ? '' : `${status}: `);
  cell.append(toggle, mark, said, text('agent', label.actor), text('name', label.text), text('took', took), text('summary', details));
  if (span.kind === 'agent_turn' && typeof span.attributes['crow.review.verdict'] === 'string') element.dataset['verdict'] = span.attributes['crow.review.verdict'];
  element.append(cell, bar(view, span, status));
  // The label may be cut to its column: the whole of it on hover (the details pane has it for every reader).
  const whole = [story ? storyLine(span, WHOLE) : `${label.actor} ${label.text}`.trim(), `${status}, ${took}`, details].filter((part) => part !== '').join(' · ');
  element.title = whole;
  return element;
}

/** What a story row adds after its time: only why a span failed (a call's model and figures are in its label, tooltip and details). */
function storySummary(span: SpanRecord): string {
  return span.status === 'error' && span.statusMessage ? (span.statusMessage.split('\n', 1)[0] ?? '') : '';
}

function totalsLine(totals: Totals): string {
  const parts = [
    t`${count(totals.llmCalls)} LLM`,
    t`${count(totals.toolCalls)} tools`,
    t`${count(totals.inputTokens)} in / ${count(totals.outputTokens)} out`,
  ];
  // No price known for any call: say nothing rather than "$0".
  if (totals.pricedCalls > 0) parts.push(cost(totals.costUsd));
  if (totals.errors > 0) parts.push(totals.errors === 1 ? t('1 error') : t`${count(totals.errors)} errors`);
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

function text(className: string, content: string): HTMLElement {
  const element = el('span', className);
  element.textContent = content;
  return element;
}
