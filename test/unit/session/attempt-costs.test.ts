import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attemptsMeter, noteAttemptSession } from '../../../src/session/attempt-costs';
import { emptyTotals, type SessionTotals } from '../../../src/session/session-totals';

const A = '0a8a4c6e-1d2b-4c3d-8e9f-0a1b2c3d4e5f';
const B = '1b9b5d7f-2e3c-4d4e-9fa0-1b2c3d4e5f60';

function totalsOf(costs: Record<string, number>): (id: string) => SessionTotals {
  return (id) => ({ ...emptyTotals(), meter: { inputTokens: 10, outputTokens: 1, cachedTokens: 0, costUsd: costs[id] ?? 0 } });
}

describe("a session's attempts' cost, from the ids noted in its folder", () => {
  let folder: string;
  beforeEach(() => (folder = join(mkdtempSync(join(tmpdir(), 'crow-attempt-costs-')), 'parent')));
  afterEach(() => rmSync(join(folder, '..'), { recursive: true, force: true }));

  it('sums the noted sessions once each, making the parent folder when it is not stored yet', () => {
    noteAttemptSession(folder, A);
    noteAttemptSession(folder, B);
    noteAttemptSession(folder, A);
    const meter = attemptsMeter(folder, totalsOf({ [A]: 0.5, [B]: 0.25 }));
    assert.deepEqual(meter, { inputTokens: 20, outputTokens: 2, cachedTokens: 0, costUsd: 0.75 });
  });

  it('is nothing for a session that ran none', () => {
    assert.deepEqual(attemptsMeter(folder, totalsOf({})), { inputTokens: 0, outputTokens: 0, cachedTokens: 0 });
  });

  it('never reads a line that is not a session id (a path, a traversal)', () => {
    noteAttemptSession(folder, A);
    writeFileSync(join(folder, 'attempt-sessions.txt'), `${A}\n../../etc\n/etc/passwd\n`, { flag: 'a' });
    const asked: string[] = [];
    attemptsMeter(folder, (id) => (asked.push(id), totalsOf({ [A]: 1 })(id)));
    assert.deepEqual(asked, [A]);
  });
});
