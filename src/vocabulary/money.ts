/**
 * Dollars as a person reads them in a trace: whole cents from $1, two
 * significant digits below ("$0.0031", "$0.12"), "<$0.0001" for less, and
 * "$0" for nothing at all, so a cheap call never reads "$0.0000". Shared by
 * `crow trace` and the trace viewer.
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return '$0';
  if (usd < 0.0001) return '<$0.0001';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  return `$${Number(usd.toPrecision(2))}`;
}
