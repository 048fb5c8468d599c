/**
 * The trace viewer: a toolbar, the tree with its waterfall, and the details
 * of the selected span. Rows read as a story by default ("builder · read
 * a.txt"); Story | Spans switches to span names, remembered by the
 * transport. The first row is selected as soon as there is one, and the
 * keyboard moves through the tree. It knows nothing of where spans come
 * from; a Transport (HTTP in a browser, postMessage in VS Code) feeds it
 * host messages and carries its export and copy requests.
 *
 * A stored trace arrives in pieces: the first screen is drawn as soon as
 * the first pieces fill it, then the tree is drawn again at most every
 * LOADING_RENDER_MS while the rest loads, with the progress in the toolbar.
 * Filters, search, Next error and the story work on what has loaded and
 * follow as more arrives; export and copy wait for the whole trace.
 */
import type { SpanKind, SpanRecord } from '../../src/telemetry/span';
import { toOtlpJson } from '../../src/telemetry/otlp-json';
import { renderDetails } from './details';
import { el } from './element';
import { count } from './format';
import { TraceModel, type Filter, type Row } from './model';
import type { ExportFormat, HostMessage, Transport } from './protocol';
import { splitter } from './splitter';
import { parseStoredLines } from './stored-lines';
import { Toolbar, type ViewMode } from './toolbar';
import { treeMove } from './tree-keys';
import { VirtualTree } from './virtual-tree';
import { t } from './l10n';

const TOTALLED: ReadonlySet<SpanKind> = new Set(['prompt', 'agent_turn', 'subagent']);
/** How often running spans' bars and durations move on. */
const TICK_MS = 1_000;
/** How often the tree is drawn again while a stored trace loads, once the first screen is full. */
const LOADING_RENDER_MS = 250;
const NO_FILTER: Filter = { agent: '', kind: '', status: '', search: '' };
const MODE_KEY = 'mode';

export class Viewer {
  private readonly model = new TraceModel();
  private readonly collapsed = new Set<string>();
  private filter: Filter = NO_FILTER;
  private selected: string | undefined;
  /** Once the person (or a reveal) picked a row, or the first row was picked for them, nothing is picked again. */
  private picked = false;
  private mode: ViewMode;
  /** A reveal asked for a span that has not arrived yet. */
  private pendingReveal: { spanId?: string; callId?: string } | undefined;
  private rows: Row[] = [];
  private pending = false;
  private lastRender = 0;
  /** How far the stored trace has loaded (bytes), and how many of its lines were not span records. */
  private load = { read: 0, total: 0, skipped: 0 };
  /** An export or copy asked for while the trace loads: done once it has. */
  private waiting: { action: 'export' | 'copy'; format: ExportFormat } | undefined;
  private readonly toolbar: Toolbar;
  private readonly tree: VirtualTree;
  private readonly details = el('aside', 'details');

  constructor(
    root: HTMLElement,
    private readonly transport: Transport,
  ) {
    this.toolbar = new Toolbar({
      onFilter: (change) => this.setFilter(change),
      onNextError: () => this.nextError(),
      onExport: (format) => this.exportAs(format),
      onCopy: (format) => this.copyAs(format),
      onMode: (mode) => this.setMode(mode),
      onFocusTree: () => this.focusTree(),
    });
    this.mode = transport.recall(MODE_KEY) === 'spans' ? 'spans' : 'story';
    this.toolbar.showMode(this.mode);
    const viewport = el('div', 'viewport');
    this.tree = new VirtualTree(viewport, {
      onToggle: (id) => this.toggle(id),
      onSelect: (id) => this.select(id),
      onKey: (event) => this.onTreeKey(event),
    });
    // The details scroll on their own: reachable with Tab, so the keyboard can scroll them too.
    this.details.id = 'details';
    this.details.tabIndex = 0;
    this.details.setAttribute('role', 'region');
    this.details.setAttribute('aria-label', t('Details of the selected row'));
    const main = el('main', 'layout');
    main.append(viewport, splitter(this.details), this.details);
    root.replaceChildren(this.toolbar.element, main);
    setInterval(() => this.model.running && this.scheduleRender(), TICK_MS);
  }

  receive(message: HostMessage): void {
    switch (message.type) {
      case 'spans':
        return this.add(message.spans);
      case 'stored': {
        const { spans, skipped } = parseStoredLines(message.lines);
        // A load starts with a piece of no lines (the host may send the whole trace again).
        const before = message.read === 0 && message.lines === '' ? 0 : this.load.skipped;
        this.model.loading = true;
        this.load = { read: message.read, total: message.total, skipped: before + skipped };
        return this.add(spans);
      }
      case 'stored-end':
        return this.loaded(message.error);
      case 'recording':
        this.model.recording = message.recording;
        document.documentElement.dataset['recording'] = String(message.recording);
        return this.scheduleRender();
      case 'reveal':
        return this.reveal(message);
      case 'notice':
        return this.toolbar.tell(message.text, message.error);
      case 'session':
        // For the transport (VS Code keeps it to restore the panel); nothing to show.
        return;
      default:
        return unreachable(message);
    }
  }

  /** Renders now; later changes within the same frame are coalesced by scheduleRender. */
  render(): void {
    this.pending = false;
    const now = Date.now();
    this.rows = this.model.rows(this.collapsed, this.filter);
    if (!this.picked && this.selected === undefined && this.rows[0]) {
      // Something to read from the start: the root (the prompt, with the run's totals).
      this.picked = true;
      this.selected = this.rows[0].span.spanId;
    }
    document.documentElement.dataset['mode'] = this.mode;
    this.toolbar.showAgents(this.model.agents());
    this.tree.show({
      rows: this.rows,
      bounds: this.model.bounds(now),
      selected: this.selected,
      collapsed: this.collapsed,
      mode: this.mode,
      now,
      status: (span) => this.model.statusOf(span),
      lastSeen: (spanId) => this.model.lastSeen(spanId),
      totals: (spanId) => this.model.totals(spanId),
    });
    const span = this.selected !== undefined ? this.model.get(this.selected) : undefined;
    const totals = span && TOTALLED.has(span.kind) ? this.model.totals(span.spanId) : undefined;
    renderDetails(this.details, { span, status: span ? this.model.statusOf(span) : 'ok', totals, now: this.model.recording ? now : undefined, mode: this.mode });
    this.toolbar.count(this.rows.length, this.model.size);
    this.toolbar.loading(this.model.loading ? { spans: this.model.size, share: this.shareLoaded() } : undefined);
    document.documentElement.dataset['spanCount'] = String(this.model.size);
    document.documentElement.dataset['loading'] = String(this.model.loading);
    this.lastRender = performance.now();
  }

  private add(spans: readonly SpanRecord[]): void {
    for (const span of spans) this.model.upsert(span);
    if (this.pendingReveal) this.reveal(this.pendingReveal);
    this.scheduleRender();
  }

  /** The stored trace has been read: spans not seen ending are running or unfinished from now on. */
  private loaded(error: string | undefined): void {
    this.model.loading = false;
    const waiting = this.waiting;
    this.waiting = undefined;
    const skipped = this.load.skipped;
    const nothing = waiting === undefined ? '' : waiting.action === 'export' ? t('Nothing was exported.') : t('Nothing was copied.');
    if (error !== undefined) this.toolbar.tell(nothing === '' ? error : `${error} ${nothing}`, true);
    else if (skipped > 0) this.toolbar.tell(skipped === 1 ? t('Skipped 1 line of the trace that held no span record.') : t`Skipped ${count(skipped)} lines of the trace that held no span record.`, true);
    this.render();
    if (error !== undefined) return;
    if (waiting?.action === 'export') this.exportAs(waiting.format);
    if (waiting?.action === 'copy') this.copyAs(waiting.format);
  }

  /**
   * Draws at the next frame; while a stored trace loads and the rows fill
   * the screen already, no sooner than LOADING_RENDER_MS after the last
   * drawing, so the load keeps going.
   */
  private scheduleRender(): void {
    if (this.pending) return;
    this.pending = true;
    const filled = this.rows.length >= this.tree.rowsInView();
    const wait = this.model.loading && filled ? this.lastRender + LOADING_RENDER_MS - performance.now() : 0;
    if (wait <= 0) requestAnimationFrame(() => this.render());
    else setTimeout(() => requestAnimationFrame(() => this.render()), wait);
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
    this.picked = true;
    this.selected = spanId;
    this.render();
  }

  private setMode(mode: ViewMode): void {
    this.mode = mode;
    this.transport.remember(MODE_KEY, mode);
    this.toolbar.showMode(mode);
    this.render();
  }

  /** Arrow keys, Home/End, Enter and Space in the tree: selection follows the keyboard focus. */
  private onTreeKey(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const at = this.rows.findIndex((row) => row.span.spanId === this.selected);
    const move = treeMove(event.key, this.rows, at, this.collapsed);
    if (!move) return;
    event.preventDefault();
    if (move.type === 'toggle') this.toggle(move.spanId);
    if (move.type !== 'select') return;
    this.select(this.rows[move.index]!.span.spanId);
    this.tree.reveal(move.index);
    this.tree.focus();
  }

  /** Gives the tree the keyboard focus, on the selected row when it is shown. */
  private focusTree(): void {
    const index = this.rows.findIndex((row) => row.span.spanId === this.selected);
    if (index >= 0) this.tree.reveal(index);
    this.tree.focus();
  }

  /**
   * Selects a span and scrolls it into view, opening its collapsed
   * ancestors, and dropping the filters when they hide it.
   */
  private reveal(target: { spanId?: string; callId?: string }): void {
    const span = target.spanId !== undefined ? this.model.get(target.spanId) : target.callId !== undefined ? this.model.toolSpan(target.callId) : undefined;
    this.pendingReveal = span ? undefined : target;
    if (!span) return;
    this.picked = true;
    for (const ancestor of this.model.ancestors(span.spanId)) this.collapsed.delete(ancestor);
    this.selected = span.spanId;
    this.render();
    if (!this.rows.some((row) => row.span.spanId === span.spanId)) {
      this.filter = NO_FILTER;
      this.toolbar.clearFilters();
      this.render();
    }
    const index = this.rows.findIndex((row) => row.span.spanId === span.spanId);
    if (index >= 0) this.tree.reveal(index);
  }

  /** Selects the first error row after the selection, wrapping around. */
  private nextError(): void {
    const from = this.rows.findIndex((row) => row.span.spanId === this.selected);
    const order = [...this.rows.slice(from + 1), ...this.rows.slice(0, from + 1)];
    const next = order.find((row) => this.model.statusOf(row.span) === 'error');
    if (!next) return this.toolbar.tell(this.model.loading ? t`No errors in the spans loaded so far (${this.percentLoaded()}).` : t('No errors in the spans shown.'));
    this.select(next.span.spanId);
    this.tree.reveal(this.rows.indexOf(next));
  }

  private exportAs(format: ExportFormat): void {
    if (this.model.loading) return this.afterLoad({ action: 'export', format });
    const serialised = this.serialise(format);
    if (serialised) this.transport.send({ type: 'export', format, fileName: format === 'json' ? 'trace.json' : 'trace.otlp.json', ...serialised });
  }

  private copyAs(format: ExportFormat): void {
    if (this.model.loading) return this.afterLoad({ action: 'copy', format });
    const serialised = this.serialise(format);
    if (serialised) this.transport.send({ type: 'copy', format, ...serialised });
  }

  /** An export or copy of a part of the trace would pass for all of it: it waits (the latest ask wins). */
  private afterLoad(waiting: { action: 'export' | 'copy'; format: ExportFormat }): void {
    this.waiting = waiting;
    const percent = this.percentLoaded();
    this.toolbar.tell(waiting.action === 'export' ? t`Exporting once the whole trace has loaded (${percent} so far)\u2026` : t`Copying once the whole trace has loaded (${percent} so far)\u2026`);
  }

  /** How much of the stored trace has loaded, from 0 to 1. */
  private shareLoaded(): number {
    return this.load.total > 0 ? Math.min(this.load.read / this.load.total, 1) : 0;
  }

  private percentLoaded(): string {
    return `${Math.floor(this.shareLoaded() * 100)}%`;
  }

  /**
   * Every span, not only those the filters show, in start order; undefined,
   * having said why, when it is more text than the browser can hold.
   */
  private serialise(format: ExportFormat): { content: string; spanCount: number } | undefined {
    const spans: SpanRecord[] = this.model.all().sort((a, b) => a.start - b.start);
    // A running span ends "now" in OTLP (which needs an end); an unfinished one where it started.
    const body = format === 'json' ? spans : toOtlpJson(spans, this.model.recording ? { now: Date.now() } : {});
    try {
      return { content: JSON.stringify(body, null, 2), spanCount: spans.length };
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      const command = format === 'json' ? '--json > trace.json' : '--otlp-json > trace.otlp.json';
      this.toolbar.tell(t`These ${count(spans.length)} spans are too much text to export from the viewer: run crow trace SESSION ${command} instead.`, true);
      return undefined;
    }
  }
}

function unreachable(message: never): void {
  console.warn('trace viewer: unknown message from the host', message);
}
