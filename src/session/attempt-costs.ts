/**
 * What a session's parallel attempts cost. Each attempt and the judge is a
 * session of its own, stored with the session that ran them as its parent
 * (the call ids below), so their spans are in their own traces, not in the
 * parent's: a resumed session adds theirs to its own, and its meter shows
 * the same total as it did live (where the attempts' usage was counted as
 * it came).
 */
import { emptyMeter, type Meter, sumMeters } from '../vocabulary/meter';
import type { SessionMeta } from './meta-file';
import type { SessionTotals } from './session-totals';

/** The parent call id of attempt `n`'s session. */
export function attemptCallId(n: number): string {
  return `attempt-${n}`;
}

/** The parent call id of the judge's session. */
export const JUDGE_CALL_ID = 'attempts-judge';

export function isAttemptCall(callId: string): boolean {
  return callId === JUDGE_CALL_ID || /^attempt-\d+$/.test(callId);
}

/** The summed meters of the attempts' and judges' sessions stored under session `id` (cost only while each had one). */
export function attemptsMeter(store: { list(): SessionMeta[]; totals(id: string): SessionTotals }, id: string): Meter {
  const children = store.list().filter((meta) => meta.parent?.sessionId === id && isAttemptCall(meta.parent.callId));
  let meter: Meter | undefined;
  for (const child of children) {
    const own = store.totals(child.id).meter;
    meter = meter === undefined ? own : sumMeters(meter, own);
  }
  return meter ?? emptyMeter();
}
