/** How durations, counts and long texts read in terminals and trace trees. */

/** "850ms", "12.3s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/**
 * "12,345", as `toLocaleString('en-US')` writes it. Whole numbers are grouped here: the first
 * toLocaleString of a process loads ICU's number formatting, about 10 ms of a one-shot run.
 */
export function count(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US');
  const digits = String(Math.abs(value));
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ',');
  return value < 0 || Object.is(value, -0) ? `-${grouped}` : grouped;
}
