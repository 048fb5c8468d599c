/** How durations, counts and long texts read in terminals and trace trees. */

/** "850ms", "12.3s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/** "12,345". */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}


