/** Shared helpers for the benchmarks: every figure is a median, never a pass/fail. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function timed(fn: () => Promise<number>): Promise<{ count: number; ms: number }> {
  const start = performance.now();
  const count = await fn();
  return { count, ms: performance.now() - start };
}

export function fmt(rate: number): string {
  return Math.round(rate).toLocaleString('en-US');
}
