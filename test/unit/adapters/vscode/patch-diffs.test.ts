import assert from 'node:assert/strict';
import { patchDiffs } from '../../../../src/adapters/vscode/chat/patch-diffs';

/** An attempt's patch as the attempts card shows it: a diff per file, named, binary content left out, capped. */
describe('patchDiffs: an attempt\'s git patch as the card\'s diffs', () => {
  const text = (path: string, line: string) => `diff --git a/${path} b/${path}\nindex 1..2 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-old\n+${line}\n`;

  it('splits the patch per file, each named by its path, new and deleted files too', () => {
    const added = 'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n';
    const deleted = 'diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n';
    const diffs = patchDiffs(`${text('a.js', 'one')}${added}${deleted}\n`);
    assert.deepEqual(diffs.map((diff) => diff.path), ['a.js', 'new.txt', 'gone.txt']);
    assert.match(diffs[0]!.unified, /^\+one$/m);
    assert.doesNotMatch(diffs[0]!.unified, /new\.txt/, "one file's diff holds nothing of the next");
  });

  it('leaves out a binary file\'s content, keeping its name', () => {
    const binary = 'diff --git a/logo.png b/logo.png\nindex 1..2 100644\nGIT binary patch\nliteral 12\nTcmZ?wbhEHbRA5kGU|;|M0jL0&\n\n';
    assert.deepEqual(patchDiffs(binary), [{ path: 'logo.png', unified: '' }]);
  });

  it('caps what it shows of a large patch at whole lines, and names the files past the cap', () => {
    const big = text('big.txt', 'x'.repeat(39_990)) + text('after.txt', 'y');
    const diffs = patchDiffs(big);
    assert.equal(diffs.length, 2);
    assert.ok(diffs[0]!.unified.length <= 40_100);
    assert.match(diffs[0]!.unified, /\n \[the rest is not shown here: Apply brings in the whole change\]\n$/);
    assert.deepEqual(diffs[1], { path: 'after.txt', unified: '' });
    assert.deepEqual(patchDiffs(''), []);
  });
});
