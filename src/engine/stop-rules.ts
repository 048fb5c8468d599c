/**
 * Small predicates that decide when a turn must stop. Each holds only the
 * state it needs; the loop asks them at the right moments.
 */

/** Stops a turn after `limit` LLM calls. */
export function stepLimitReached(stepsTaken: number, limit: number): boolean {
  return stepsTaken >= limit;
}

/**
 * Notices the same tool call (same name, same arguments) made `threshold`
 * times in a row. Argument order in JSON objects does not matter.
 */
export class RepeatedCallDetector {
  private last = '';
  private count = 0;

  constructor(readonly threshold: number) {
    assertRepeatThreshold(threshold);
  }

  /** Records a call; true when it completes a run of `threshold` identical calls. */
  record(name: string, rawArguments: string): boolean {
    const key = `${name}\u0000${canonicalArguments(rawArguments)}`;
    this.count = key === this.last ? this.count + 1 : 1;
    this.last = key;
    return this.count >= this.threshold;
  }
}

export function assertRepeatThreshold(threshold: number): void {
  if (!Number.isInteger(threshold) || threshold < 2) {
    throw new Error(`doom loop threshold must be an integer of at least 2, got ${threshold}`);
  }
}

function canonicalArguments(raw: string): string {
  try {
    return stableStringify(JSON.parse(raw));
  } catch {
    return raw.trim();
  }
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
