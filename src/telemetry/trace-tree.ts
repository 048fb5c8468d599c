import { formatUsd } from '../vocabulary/money';
import { oneLine } from '../vocabulary/text';
import { count, duration } from './readable';
import type { SpanRecord } from './span';

export interface TraceNode {
  span: SpanRecord;
  children: TraceNode[];
}

/** The spans of a session as trees, one per prompt, children in start order. */
export function buildTraceTrees(spans: readonly SpanRecord[]): TraceNode[] {
  const nodes = new Map(spans.map((span) => [span.spanId, { span, children: [] as TraceNode[] }]));
  const roots: TraceNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanId !== undefined ? nodes.get(node.span.parentSpanId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const byStart = (a: TraceNode, b: TraceNode): number => a.span.start - b.span.start;
  for (const node of nodes.values()) node.children.sort(byStart);
  return roots.sort(byStart);
}

/**
 * The tree as text, seed 002 style:
 * ├─ [builder] invoke_agent builder (8.2s) ✓ 1,234 in · 56 out
 * A span that has not ended reads "(running)" while `recording` (a live
 * process is still writing the trace), else "(unfinished)".
 */
export function renderTraceTree(roots: TraceNode[], options: { recording?: boolean } = {}): string {
  const open = options.recording ? ' (running) …' : ' (unfinished) …';
  const lines: string[] = [];
  const walk = (node: TraceNode, prefix: string, last: boolean, depth: number): void => {
    const branch = depth === 0 ? '' : last ? '└─ ' : '├─ ';
    lines.push(`${prefix}${branch}${describe(node.span, open)}`);
    const childPrefix = depth === 0 ? '' : `${prefix}${last ? '   ' : '│  '}`;
    node.children.forEach((child, i) => walk(child, childPrefix, i === node.children.length - 1, depth + 1));
  };
  for (const root of roots) {
    walk(root, '', true, 0);
    lines.push('');
  }
  return lines.join('\n');
}

function describe(span: SpanRecord, open: string): string {
  const who = span.agent ? `[${span.agent}${span.role ? `/${span.role}` : ''}] ` : '';
  if (span.end === undefined) return `${who}${span.name}${open}${details(span)}`;
  const took = ` (${duration(span.end - span.start)})`;
  const mark = span.status === 'cancelled' ? '⊘ cancelled' : span.status === 'error' ? '✗' : '✓';
  const problem = span.status === 'error' && span.statusMessage ? ` ${oneLine(span.statusMessage, 120)}` : '';
  return `${who}${span.name}${took} ${mark}${problem}${details(span)}`;
}

function details(span: SpanRecord): string {
  const a = span.attributes;
  const parts: string[] = [];
  if (typeof a['gen_ai.usage.input_tokens'] === 'number') parts.push(`${count(a['gen_ai.usage.input_tokens'])} in`);
  if (typeof a['gen_ai.usage.output_tokens'] === 'number') parts.push(`${count(a['gen_ai.usage.output_tokens'])} out`);
  if (typeof a['gen_ai.usage.cache_read.input_tokens'] === 'number' && a['gen_ai.usage.cache_read.input_tokens'] > 0) {
    parts.push(`${count(a['gen_ai.usage.cache_read.input_tokens'])} cached`);
  }
  if (typeof a['crow.cost_usd'] === 'number') parts.push(formatUsd(a['crow.cost_usd']));
  if (typeof a['crow.time_to_first_token_ms'] === 'number') parts.push(`ttft ${duration(a['crow.time_to_first_token_ms'])}`);
  if (span.kind === 'tool' && Array.isArray(a['crow.tool.files_modified']) && a['crow.tool.files_modified'].length > 0) {
    parts.push(`changed ${a['crow.tool.files_modified'].join(', ')}`);
  }
  // Traces stored before the seed's names were used carry crow.handoff.to.
  if (span.kind === 'handoff') parts.push(`${String(a['crow.handoff.purpose'])} → ${String(a['handoff.to'] ?? a['crow.handoff.to'])}`);
  if (span.kind === 'prompt' && typeof a['crow.run.status'] === 'string') parts.push(`run ${a['crow.run.status']}`);
  if (span.kind === 'hook') {
    if (typeof a['crow.hook.decision'] === 'string') parts.push(a['crow.hook.decision']);
    if (typeof a['crow.hook.exit_code'] === 'number') parts.push(`exit ${a['crow.hook.exit_code']}`);
    if (typeof a['crow.hook.reason'] === 'string') parts.push(oneLine(a['crow.hook.reason'], 120));
  }
  return parts.length > 0 ? ` · ${parts.join(' · ')}` : '';
}

