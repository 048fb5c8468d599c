/**
 * "At once", as a pass/fail test may say it: a cancel, an abort or a close
 * answered well inside this is one the code acted on, not one that waited
 * for a stall to end or for a timeout (the shortest, a stream's idle
 * timeout, is 120 s by default). How fast is the bench's business; a test
 * on a shared, loaded machine asserts only that nothing was waited out.
 */
import * as assert from 'node:assert/strict';

export const PROMPTLY_MS = 5_000;

/** Fails when more than PROMPTLY_MS passed since `since` (a Date.now() or performance.now() reading, as `now` gives). */
export function assertPromptly(since: number, what: string, now: () => number = Date.now): void {
  const took = now() - since;
  assert.ok(took < PROMPTLY_MS, `${what} ${Math.round(took)} ms after (waited for something rather than acting at once)`);
}
