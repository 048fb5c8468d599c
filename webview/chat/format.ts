/** How figures read in the chat view; the same conventions as the trace viewer and `crow trace`. */
import { count } from '../../src/telemetry/readable';
import type { Meter } from './protocol';
import { t } from './l10n';

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m ${Math.round((ms % 60_000) / 1000)}s`;
}

// Grouped by hand, as `crow trace` does: a webview's first toLocaleString loads ICU's number formatting (11 to
// 31 ms of a fresh frame in Chromium), which fell on the first meter of a streaming answer.
export { count };

export function cost(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

/** "1,234 in · 56 out · 1,000 cached · $0.0123"; cached and cost only when there are any. */
export function meterText(meter: Meter): string {
  const parts = [t`${count(meter.inputTokens)} in`, t`${count(meter.outputTokens)} out`];
  if (meter.cachedTokens > 0) parts.push(t`${count(meter.cachedTokens)} cached`);
  if (meter.costUsd !== undefined) parts.push(cost(meter.costUsd));
  return parts.join(' · ');
}

/** "just now", "5 min ago", "3 h ago", else the date. */
export function ago(iso: string, now = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return '';
  const minutes = Math.round((now - time) / 60_000);
  if (minutes < 1) return t('just now');
  if (minutes < 60) return t`${minutes} min ago`;
  if (minutes < 24 * 60) return t`${Math.round(minutes / 60)} h ago`;
  return new Date(time).toISOString().slice(0, 10);
}
