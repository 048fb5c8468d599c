/**
 * What a session's parallel attempts cost. Each attempt and the judge is a
 * session of its own, stored with the session that ran them as its parent
 * (the call ids below), so their spans are in their own traces, not in the
 * parent's: a resumed session adds theirs to its own, and its meter shows
 * the same total as it did live (where the attempts' usage was counted as
 * it came). Their ids are kept in the parent's folder as they are stored,
 * so a resume reads those sessions only, never the whole store.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { emptyMeter, type Meter, sumMeters } from '../vocabulary/meter';
import { isSessionId } from './folder-index';
import type { SessionTotals } from './session-totals';

/** In a parent session's folder: the ids of its attempts' and judges' sessions, one per line. */
const CHILDREN_FILE = 'attempt-sessions.txt';

/** The parent call id of attempt `n`'s session. */
export function attemptCallId(n: number): string {
  return `attempt-${n}`;
}

/** The parent call id of the judge's session. */
export const JUDGE_CALL_ID = 'attempts-judge';

export function isAttemptCall(callId: string): boolean {
  return callId === JUDGE_CALL_ID || /^attempt-\d+$/.test(callId);
}

/** Notes session `childId` as one of the attempts of the session whose folder is `parentFolder` (made if not yet stored). */
export function noteAttemptSession(parentFolder: string, childId: string): void {
  mkdirSync(parentFolder, { recursive: true, mode: PRIVATE_DIR_MODE });
  appendFileSync(join(parentFolder, CHILDREN_FILE), `${childId}\n`, { mode: PRIVATE_FILE_MODE });
}

/** The summed meters of the attempts' and judges' sessions noted in `parentFolder` (cost only while each had one). */
export function attemptsMeter(parentFolder: string, totals: (id: string) => SessionTotals): Meter {
  let text = '';
  try {
    text = readFileSync(join(parentFolder, CHILDREN_FILE), 'utf8');
  } catch {
    return emptyMeter();
  }
  // The file is the store's own, but a line that is not an id is never used as a path.
  const ids = new Set(text.split('\n').filter(isSessionId));
  let meter: Meter | undefined;
  for (const id of ids) {
    const own = totals(id).meter;
    meter = meter === undefined ? own : sumMeters(meter, own);
  }
  return meter ?? emptyMeter();
}
