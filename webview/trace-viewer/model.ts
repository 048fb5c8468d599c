/**
 * The spans of one session, keyed by spanId (a record received again
 * replaces the old one in place: a span arrives when it starts and again
 * when it ends), and the rows the tree shows for a given filter and set of
 * collapsed spans. Everything a render asks for costs no more than the rows
 * it walks: the tree, the time bounds, the agents and the tool calls are
 * kept up to date per record, and the sums below a span are remembered
 * until the next record arrives.
 */
import type { SpanKind, SpanRecord } from '../../src/telemetry/span';
import { supersedes } from '../../src/telemetry/stored-spans';
import { num, statusOf, text, type Status } from './format';
import { SpanTree, type SpanNode } from './span-tree';

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

export class TraceModel {
  /** Whether a live process records the trace: its spans that have not ended are running, not unfinished. */
  recording = false;
  /** Whether the stored trace is still being read: a span not seen ending may end further on. */
  loading = false;
  private readonly tree = new SpanTree();
  private readonly open = new Set<string>();
  private readonly searchText = new Map<string, string>();
  private readonly toolCalls = new Map<string, string>();
  private readonly agentNames = new Set<string>();
  private sortedAgents: string[] = [];
  private start = Infinity;
  private end = -Infinity;
  /** What is remembered per span until the next record: sums below it, and the last time seen below it. */
  private sums = new Map<string, Totals>();
  private reach = new Map<string, number>();

  /** Adds or replaces a span; a late start record never turns an ended span back into a running one. */
  upsert(span: SpanRecord): void {
    if (!supersedes(span, this.tree.get(span.spanId)?.span)) return;
    this.tree.set(span);
    if (span.end === undefined) this.open.add(span.spanId);
    else this.open.delete(span.spanId);
    this.searchText.delete(span.spanId);
    const callId = span.attributes['gen_ai.tool.call.id'];
    if (span.kind === 'tool' && typeof callId === 'string') this.toolCalls.set(callId, span.spanId);
    if (span.agent && !this.agentNames.has(span.agent)) {
      this.agentNames.add(span.agent);
      this.sortedAgents = [...this.agentNames].sort();
    }
    this.start = Math.min(this.start, span.start);
    this.end = Math.max(this.end, span.end ?? span.start);
    if (this.sums.size > 0) this.sums = new Map();
    if (this.reach.size > 0) this.reach = new Map();
  }

  /** Whether any span has not ended yet (the waterfall then grows with the clock while recording). */
  get running(): boolean {
    return this.recording && this.open.size > 0;
  }

  statusOf(span: SpanRecord): Status {
    return statusOf(span, this.recording, this.loading);
  }

  /** The tool span of a tool call, by the call id the engine puts on it. */
  toolSpan(callId: string): SpanRecord | undefined {
    const span = this.get(this.toolCalls.get(callId) ?? '');
    return span?.attributes['gen_ai.tool.call.id'] === callId ? span : undefined;
  }

  /** The spans above `spanId`, nearest first. */
  ancestors(spanId: string): string[] {
    const found: string[] = [];
    for (let node = this.tree.get(spanId)?.parent; node; node = node.parent) found.push(node.span.spanId);
    return found;
  }

  get(spanId: string): SpanRecord | undefined {
    return this.tree.get(spanId)?.span;
  }

  all(): SpanRecord[] {
    return Array.from(this.tree.values(), (node) => node.span);
  }

  get size(): number {
    return this.tree.size;
  }

  agents(): string[] {
    return this.sortedAgents;
  }

  /**
   * Earliest start and latest end over all spans; an open span counts as
   * ending at `now` while the trace is recorded, else where it started.
   */
  bounds(now: number): { start: number; end: number } {
    if (this.start === Infinity) return { start: 0, end: 1 };
    const end = this.running ? Math.max(this.end, now) : this.end;
    return { start: this.start, end: Math.max(end, this.start + 1) };
  }

  /**
   * Depth-first rows. Without a filter, children of collapsed spans are
   * hidden; with one, every match shows with its ancestors for context.
   * Walked with a stack of its own, so no depth of nesting is too deep.
   */
  rows(collapsed: ReadonlySet<string>, filter: Filter): Row[] {
    const filtering = filter.agent !== '' || filter.kind !== '' || filter.status !== '' || filter.search !== '';
    const rows: Row[] = [];
    /** A span whose row is rows[at], the next of its children to walk, and whether any child kept a row. */
    const stack: { node: SpanNode; at: number; next: number; kept: boolean; open: boolean }[] = [];
    const enter = (node: SpanNode): void => {
      stack.push({ node, at: rows.length, next: 0, kept: false, open: filtering || !collapsed.has(node.span.spanId) });
      rows.push({ span: node.span, depth: stack.length - 1, hasChildren: node.children.length > 0 });
    };
    for (const root of this.tree.roots) {
      enter(root);
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        if (top.open && top.next < top.node.children.length) {
          enter(top.node.children[top.next++]!);
          continue;
        }
        stack.pop();
        const kept = !filtering || top.kept || this.matches(top.node.span, filter);
        if (!kept) rows.length = top.at;
        else if (stack.length > 0) stack[stack.length - 1]!.kept = true;
      }
    }
    return rows;
  }

  /** The latest time anything under a span is known to have happened: where an unfinished span's bar stops. */
  lastSeen(spanId: string): number {
    let latest = this.reach.get(spanId);
    if (latest !== undefined) return latest;
    latest = 0;
    for (const span of this.below(spanId)) latest = Math.max(latest, span.end ?? span.start);
    this.reach.set(spanId, latest);
    return latest;
  }

  /** Sums over a span and everything below it. */
  totals(spanId: string): Totals {
    const known = this.sums.get(spanId);
    if (known) return known;
    const totals: Totals = { llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, pricedCalls: 0, errors: 0 };
    for (const span of this.below(spanId)) {
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
    }
    this.sums.set(spanId, totals);
    return totals;
  }

  /** A span and every span below it. */
  private *below(spanId: string): Generator<SpanRecord> {
    const node = this.tree.get(spanId);
    const stack = node ? [node] : [];
    for (let next = stack.pop(); next; next = stack.pop()) {
      yield next.span;
      for (const child of next.children) stack.push(child);
    }
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
}
