/** How eval reports write numbers: percentages, points, p-values, dollars, counts and seconds. */

export function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

export function signedPoints(value: number): string {
  const points = Math.round(value * 100);
  return `${points > 0 ? '+' : points < 0 ? '−' : '±'}${Math.abs(points)} points`;
}

export function pValue(p: number): string {
  return p >= 0.001 ? p.toFixed(3) : '< 0.001';
}

export function usd(value: number | undefined): string {
  return value === undefined ? '—' : `$${value.toFixed(4)}`;
}

export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
