/**
 * The spans of one session, keyed by spanId (a record received again replaces
 * the old one in place: a span arrives when it starts and again when it
 * ends), and the rows the tree shows for a given filter and set of collapsed
 * spans. The tree is rebuilt lazily after changes.
 */
import type { SpanKind, SpanRecord } from '../../src/telemetry/span';
import { supersedes } from '../../src/telemetry/stored-spans';
import { num, statusOf, text, type Status } from './format';

export interface Filter {
  agent: string;
  kind: SpanKind | '';
  status: Status | '';
  /** Lower-case text looked for in names, agents, messages and attribute values. */
  search: string;
}

export interface Row {
  span: SpanRecord;
  depth: number;
  hasChildren: boolean;
}

export interface Totals {
  llmCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  /** LLM calls that carried a cost: none means the model has no price, not that it cost nothing. */
  pricedCalls: number;
  errors: number;
}

interface Node {
  span: SpanRecord;
  children: Node[];
}

export class TraceModel {
  /** Whether a live process records the trace: its spans that have not ended are running, not unfinished. */
  recording = false;
  private readonly spans = new Map<string, SpanRecord>();
  private readonly open = new Set<string>();
  private readonly searchText = new Map<string, string>();
  private roots: Node[] | undefined;
  private nodes = new Map<string, Node>();
  private readonly reach = new Map<string, number>();

  /** Adds or replaces a span; a late start record never turns an ended span back into a running one. */
  upsert(span: SpanRecord): void {
    if (!supersedes(span, this.spans.get(span.spanId))) return;
    this.spans.set(span.spanId, span);
    if (span.end === undefined) this.open.add(span.spanId);
    else this.open.delete(span.spanId);
    this.searchText.delete(span.spanId);
    this.roots = undefined;
  }

  /** Whether any span has not ended yet (the waterfall then grows with the clock while recording). */
  get running(): boolean {
    return this.recording && this.open.size > 0;
  }

  statusOf(span: SpanRecord): Status {
    return statusOf(span, this.recording);
  }

  /** The tool span of a tool call, by the call id the engine puts on it. */
  toolSpan(callId: string): SpanRecord | undefined {
    for (const span of this.spans.values()) {
      if (span.kind === 'tool' && span.attributes['gen_ai.tool.call.id'] === callId) return span;
    }
    return undefined;
  }

  /** The spans above `spanId`, nearest first. */
  ancestors(spanId: string): string[] {
    const found: string[] = [];
    let parent = this.spans.get(spanId)?.parentSpanId;
    while (parent !== undefined && this.spans.has(parent) && !found.includes(parent)) {
      found.push(parent);
      parent = this.spans.get(parent)?.parentSpanId;
    }
    return found;
  }

  get(spanId: string): SpanRecord | undefined {
    return this.spans.get(spanId);
  }

  all(): SpanRecord[] {
    return [...this.spans.values()];
  }

  get size(): number {
    return this.spans.size;
  }

  agents(): string[] {
    return [...new Set(this.all().flatMap((span) => (span.agent ? [span.agent] : [])))].sort();
  }

  /**
   * Earliest start and latest end over all spans; an open span counts as
   * ending at `now` while the trace is recorded, else where it started.
   */
  bounds(now: number): { start: number; end: number } {
    let start = Infinity;
    let end = -Infinity;
    for (const span of this.spans.values()) {
      start = Math.min(start, span.start);
      end = Math.max(end, span.end ?? span.start);
    }
    if (this.running) end = Math.max(end, now);
    return start === Infinity ? { start: 0, end: 1 } : { start, end: Math.max(end, start + 1) };
  }

  /**
   * Depth-first rows. Without a filter, children of collapsed spans are
   * hidden; with one, every match shows with its ancestors for context.
   */
  rows(collapsed: ReadonlySet<string>, filter: Filter): Row[] {
    const filtering = filter.agent !== '' || filter.kind !== '' || filter.status !== '' || filter.search !== '';
    const rows: Row[] = [];
    const walk = (node: Node, depth: number): boolean => {
      const at = rows.length;
      rows.push({ span: node.span, depth, hasChildren: node.children.length > 0 });
      if (filtering || !collapsed.has(node.span.spanId)) {
        let anyChild = false;
        for (const child of node.children) anyChild = walk(child, depth + 1) || anyChild;
        if (filtering && !anyChild && !this.matches(node.span, filter)) {
          rows.length = at;
          return false;
        }
      }
      return true;
    };
    for (const root of this.tree()) walk(root, 0);
    return rows;
  }

  /** The latest time anything under a span is known to have happened: where an unfinished span's bar stops. */
  lastSeen(spanId: string): number {
    this.tree();
    const known = this.reach.get(spanId);
    if (known !== undefined) return known;
    const node = this.nodes.get(spanId);
    if (!node) return 0;
    let latest = node.span.end ?? node.span.start;
    for (const child of node.children) latest = Math.max(latest, this.lastSeen(child.span.spanId));
    this.reach.set(spanId, latest);
    return latest;
  }

  /** Sums over a span and everything below it. */
  totals(spanId: string): Totals {
    const totals: Totals = { llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, pricedCalls: 0, errors: 0 };
    this.tree();
    const node = this.nodes.get(spanId);
    const add = (n: Node): void => {
      const span = n.span;
      if (span.kind === 'llm_call') {
        totals.llmCalls += 1;
        totals.inputTokens += num(span, 'gen_ai.usage.input_tokens') ?? 0;
        totals.outputTokens += num(span, 'gen_ai.usage.output_tokens') ?? 0;
        totals.cachedTokens += num(span, 'gen_ai.usage.cache_read.input_tokens') ?? 0;
        const usd = num(span, 'crow.cost_usd');
        if (usd !== undefined) {
          totals.costUsd += usd;
          totals.pricedCalls += 1;
        }
      }
      if (span.kind === 'tool') totals.toolCalls += 1;
      if (span.status === 'error') totals.errors += 1;
      n.children.forEach(add);
    };
    if (node) add(node);
    return totals;
  }

  private matches(span: SpanRecord, filter: Filter): boolean {
    if (filter.agent !== '' && span.agent !== filter.agent) return false;
    if (filter.kind !== '' && span.kind !== filter.kind) return false;
    if (filter.status !== '' && this.statusOf(span) !== filter.status) return false;
    return filter.search === '' || this.textOf(span).includes(filter.search);
  }

  private textOf(span: SpanRecord): string {
    let found = this.searchText.get(span.spanId);
    if (found === undefined) {
      const values = Object.values(span.attributes).map(text);
      found = [span.name, span.agent ?? '', span.role ?? '', span.statusMessage ?? '', ...values].join('\n').toLowerCase();
      this.searchText.set(span.spanId, found);
    }
    return found;
  }

  /** Roots in start order, children in start order; a span whose parent is missing is a root. */
  private tree(): Node[] {
    if (this.roots) return this.roots;
    this.reach.clear();
    const nodes = new Map([...this.spans.values()].map((span) => [span.spanId, { span, children: [] as Node[] }]));
    this.nodes = nodes;
    const roots: Node[] = [];
    for (const node of nodes.values()) {
      const parent = node.span.parentSpanId !== undefined ? nodes.get(node.span.parentSpanId) : undefined;
      (parent ? parent.children : roots).push(node);
    }
    const byStart = (a: Node, b: Node): number => a.span.start - b.span.start;
    for (const node of nodes.values()) node.children.sort(byStart);
    this.roots = roots.sort(byStart);
    return this.roots;
  }
}
