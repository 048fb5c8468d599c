/** How span figures read in the viewer; the same conventions as `crow trace`. */
import type { AttributeValue, SpanRecord } from '../../src/telemetry/span';
import { formatUsd } from '../../src/vocabulary/money';
import { count, duration } from '../../src/telemetry/readable';
import { t } from './l10n';

// `crow trace`'s own: its count groups whole numbers by hand, where the page's first Intl.NumberFormat loaded
// ICU's number formatting (11 to 31 ms of a fresh tab in Chromium) before the viewer could draw anything.
export { count, duration };

/** Dollars with the precision that means something, never "$0.0000" (see formatUsd). */
export function cost(usd: number): string {
  return formatUsd(usd);
}

/** A token count at a glance: 80, 1.2k, 35k, 1.5M. */
export function compactCount(value: number): string {
  const sign = value < 0 ? '-' : '';
  const n = Math.abs(value);
  const scaled = (divisor: number, unit: string): string => {
    const figure = n / divisor;
    return `${sign}${figure < 10 ? Number(figure.toFixed(1)) : Math.round(figure)}${unit}`;
  };
  if (n < 1_000) return `${sign}${Math.round(n)}`;
  if (n < 999_500) return scaled(1_000, 'k');
  return scaled(1_000_000, 'M');
}

export function num(span: SpanRecord, key: string): number | undefined {
  const value = span.attributes[key];
  return typeof value === 'number' ? value : undefined;
}

export function text(value: AttributeValue | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

export type Status = 'ok' | 'error' | 'cancelled' | 'running' | 'unfinished' | 'loading';

/**
 * The status of an ended span (one ended without a status counts as ok); a
 * span that has not ended is "loading" while the stored trace is still
 * being read (its end may be further on), else "running" while a live
 * process records the trace, else "unfinished" (its process stopped before
 * it ended).
 */
export function statusOf(span: SpanRecord, recording: boolean, loading = false): Status {
  if (span.end === undefined) return loading ? 'loading' : recording ? 'running' : 'unfinished';
  return span.status ?? 'ok';
}

export const STATUS_MARKS: Record<Status, string> = { ok: '✓', error: '✗', cancelled: '⊘', running: '…', unfinished: '?', loading: '⋯' };

/** The one-line summary shown after a span's name in the tree. */
export function summary(span: SpanRecord): string {
  const a = span.attributes;
  const parts: string[] = [];
  if (span.kind === 'llm_call') {
    const model = a['gen_ai.response.model'] ?? a['gen_ai.request.model'];
    if (model !== undefined) parts.push(text(model));
    const tokens = tokenParts(span);
    if (tokens) parts.push(tokens);
    const ttft = num(span, 'crow.time_to_first_token_ms');
    if (ttft !== undefined) parts.push(t`ttft ${duration(ttft)}`);
    const usd = num(span, 'crow.cost_usd');
    if (usd !== undefined) parts.push(cost(usd));
    if (a['gen_ai.response.finish_reasons'] !== undefined) parts.push(text(a['gen_ai.response.finish_reasons']));
  } else if (span.kind === 'tool') {
    if (a['crow.tool.status'] !== undefined) parts.push(text(a['crow.tool.status']));
    const files = a['crow.tool.files_modified'];
    if (Array.isArray(files) && files.length > 0) parts.push(t`changed ${files.join(', ')}`);
  } else if (span.kind === 'handoff') {
    parts.push(`${text(a['handoff.from'] ?? span.agent ?? '?')} → ${text(a['handoff.to'] ?? a['crow.handoff.to'])}`);
  } else if (span.kind === 'hook') {
    if (a['crow.hook.decision'] !== undefined) parts.push(text(a['crow.hook.decision']));
    if (a['crow.hook.exit_code'] !== undefined) parts.push(t`exit ${text(a['crow.hook.exit_code'])}`);
  }
  if (span.status === 'error' && span.statusMessage) parts.push(span.statusMessage.split('\n', 1)[0] ?? '');
  return parts.join(' · ');
}

function tokenParts(span: SpanRecord): string {
  const figures: [string, (figure: string) => string][] = [
    ['gen_ai.usage.input_tokens', (figure) => t`${figure} in`],
    ['gen_ai.usage.output_tokens', (figure) => t`${figure} out`],
    ['gen_ai.usage.cache_read.input_tokens', (figure) => t`${figure} cached`],
    ['gen_ai.usage.reasoning.output_tokens', (figure) => t`${figure} reasoning`],
  ];
  return figures.flatMap(([key, said]) => {
    const value = num(span, key);
    return value !== undefined ? [said(count(value))] : [];
  }).join(' / ');
}
