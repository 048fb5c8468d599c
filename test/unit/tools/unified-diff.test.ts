import assert from 'node:assert/strict';
import { applyPatch } from 'diff';
import { unifiedDiff } from '../../../src/tools/unified-diff';

const numbered = (count: number, tag = 'line'): string =>
  Array.from({ length: count }, (_, i) => `${tag} ${i + 1}\n`).join('');

describe('unifiedDiff', () => {
  it('heads the diff with a/ and b/ paths and keeps three lines of context', () => {
    const before = numbered(10);
    const after = before.replace('line 5\n', 'line five\n');
    const { diff, linesAdded, linesRemoved } = unifiedDiff('src/app.ts', before, after);
    assert.equal(
      diff,
      [
        '--- a/src/app.ts',
        '+++ b/src/app.ts',
        '@@ -2,7 +2,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+line five',
        ' line 6',
        ' line 7',
        ' line 8',
        '',
      ].join('\n'),
    );
    assert.deepEqual([linesAdded, linesRemoved], [1, 1]);
  });

  it('makes separate hunks for changes far apart', () => {
    const before = numbered(30);
    const after = before.replace('line 2\n', 'two\n').replace('line 28\n', '');
    const { diff, linesAdded, linesRemoved } = unifiedDiff('a.txt', before, after);
    assert.deepEqual(diff.match(/^@@ .* @@$/gm), ['@@ -1,5 +1,5 @@', '@@ -25,6 +25,5 @@']);
    assert.deepEqual([linesAdded, linesRemoved], [1, 2]);
    assert.equal(applyPatch(before, diff), after);
  });

  it('counts moved lines as removed and added', () => {
    const { linesAdded, linesRemoved } = unifiedDiff('a.txt', 'a\nb\nc\n', 'c\na\nb\n');
    assert.deepEqual([linesAdded, linesRemoved], [1, 1]);
  });

  it('diffs a new file against /dev/null', () => {
    const { diff, linesAdded, linesRemoved } = unifiedDiff('new.md', undefined, 'one\ntwo\n');
    assert.equal(diff, '--- /dev/null\n+++ b/new.md\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    assert.deepEqual([linesAdded, linesRemoved], [2, 0]);
  });

  it('shows every line removed when the content is emptied', () => {
    const { diff, linesAdded, linesRemoved } = unifiedDiff('old.md', 'one\ntwo\n', '');
    assert.equal(diff, '--- a/old.md\n+++ b/old.md\n@@ -1,2 +0,0 @@\n-one\n-two\n');
    assert.deepEqual([linesAdded, linesRemoved], [0, 2]);
  });

  it('marks a missing final newline', () => {
    const { diff, linesAdded, linesRemoved } = unifiedDiff('a.txt', 'x\ny\n', 'x\ny');
    assert.match(diff, /-y\n\+y\n\\ No newline at end of file\n$/);
    assert.deepEqual([linesAdded, linesRemoved], [1, 1]);
  });

  it('is empty when nothing changed', () => {
    assert.deepEqual(unifiedDiff('a.txt', 'same\n', 'same\n'), { diff: '', linesAdded: 0, linesRemoved: 0 });
  });

  it('shows a large rewrite as one block between the unchanged ends, quickly', () => {
    const before = `keep 1\nkeep 2\n${numbered(3_000, 'old')}tail\n`;
    const after = `keep 1\nkeep 2\n${numbered(2_500, 'new')}tail`;
    const started = performance.now();
    const { diff, linesAdded, linesRemoved } = unifiedDiff('big.txt', before, after);
    assert.ok(performance.now() - started < 5_000);
    assert.deepEqual([linesAdded, linesRemoved], [2_501, 3_001]);
    assert.match(diff, /^--- a\/big.txt\n\+\+\+ b\/big.txt\n@@ -1,3003 \+1,2503 @@\n keep 1\n keep 2\n-old 1\n/);
    assert.equal(applyPatch(before, diff), after);
  });
});
