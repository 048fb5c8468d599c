import { isolatedEnv } from '../test/support/isolated-env';
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

/**
 * The environment of a crow the bench spawns: isolated like the tests'
 * (isolatedEnv), but with every default of a person's crow, the folder
 * keeper that the tests turn off included.
 */
export function personEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return isolatedEnv(home, { CROW_KEEPER: undefined, ...extra });
}
