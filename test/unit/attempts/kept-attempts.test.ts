/**
 * What a background run of attempts keeps to pick from later
 * (src/attempts/kept-attempts.ts): written private beside the run's record,
 * read back field by field as hostile input, the files of a patch taken
 * from git's reading of it (never from attempts.json), and applied once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PatchTarget } from '../../../src/attempts/attempt-trees';
import type { AttemptsResult } from '../../../src/attempts/best-of';
import { claimApplied, keepAttempts, keptApplied, keptChanges, pickable, readKept, releaseApplied } from '../../../src/attempts/kept-attempts';
import { writeRecord } from '../../../src/host/background-records';

const ID = 'run-1';
const BASE = 'a'.repeat(40);

function result(): AttemptsResult {
  const attempt = (n: number, patch: string) => ({ n, tree: '', sessionId: `s${n}`, status: 'completed' as const, summary: `Attempt ${n}.`, tokens: 10, changes: { patch, files: patch ? [{ path: 'a.txt', added: 1, removed: 0 }] : [] } });
  return {
    attempts: [attempt(1, 'diff --git a/a.txt b/a.txt\n'), attempt(2, '')],
    ranking: [{ n: 2, reason: 'Nothing.' }, { n: 1, reason: 'Something.' }],
    judge: { agent: 'judge-attempts', used: true },
    trees: { base: BASE } as AttemptsResult['trees'],
  };
}

describe('kept attempts of a background run', () => {
  let data: string;
  const target = (files: { path: string; added: number; removed: number }[]): PatchTarget => ({ root: '/r', apply: async () => undefined, patchFiles: async () => files });
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'crow-kept-'));
    writeRecord(data, { id: ID, pid: 1, cwd: '/r', prompt: 'p', attempts: 2, startedAt: 1 });
  });
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  it('keeps the result and each patch private, and reads them back; only attempts with changes are pickable', () => {
    keepAttempts(data, ID, result());
    const folder = join(data, 'background', ID);
    assert.equal(statSync(join(folder, 'attempts.json')).mode & 0o777, 0o600);
    assert.equal(statSync(join(folder, 'attempt-1.patch')).mode & 0o777, 0o600);
    assert.throws(() => statSync(join(folder, 'attempt-2.patch')), /ENOENT/);
    const kept = readKept(data, ID);
    assert.ok(kept && !('problem' in kept));
    assert.equal(kept.base, BASE);
    assert.deepEqual(pickable(kept), [1]);
  });

  it('takes the files from git reading the patch, and refuses an attempt that changed nothing or whose patch reads as none', async () => {
    keepAttempts(data, ID, result());
    const kept = readKept(data, ID);
    assert.ok(kept && !('problem' in kept));
    const read = await keptChanges(data, ID, kept, 1, target([{ path: 'elsewhere.txt', added: 3, removed: 0 }]));
    assert.deepEqual(read.files.map((file) => file.path), ['elsewhere.txt']);
    await assert.rejects(keptChanges(data, ID, kept, 2, target([])), /Attempt 2 changed nothing/);
    await assert.rejects(keptChanges(data, ID, kept, 1, target([])), /kept patch changes nothing/);
    await assert.rejects(keptChanges(data, ID, kept, 9, target([])), /There is no attempt 9: the run had 1, 2/);
  });

  it('says why an altered attempts.json does not read', () => {
    keepAttempts(data, ID, result());
    const file = join(data, 'background', ID, 'attempts.json');
    const good = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...good, base: '../x' }, /has no base commit/],
      [{ ...good, ranking: [{ n: 1, reason: '' }, { n: 1, reason: '' }] }, /does not name each attempt once/],
      [{ ...good, attempts: [{ ...(good['attempts'] as object[])[0], n: 99 }] }, /number from 1 to 16/],
      [{ ...good, attempts: [{ ...(good['attempts'] as object[])[0], patch: 'elsewhere' }, (good['attempts'] as object[])[1]] }, /says nothing of attempt 1's patch/],
    ];
    for (const [value, expected] of cases) {
      writeFileSync(file, JSON.stringify(value));
      const read = readKept(data, ID);
      assert.ok(read && 'problem' in read);
      assert.match(read.problem, expected);
    }
  });

  it('is applied once: a second claim fails until the first is released', () => {
    assert.equal(keptApplied(data, ID), undefined);
    assert.equal(claimApplied(data, ID, 1), true);
    assert.equal(claimApplied(data, ID, 2), false);
    assert.equal(keptApplied(data, ID)?.n, 1);
    releaseApplied(data, ID);
    assert.equal(claimApplied(data, ID, 2), true);
  });
});
