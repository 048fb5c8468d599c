import assert from 'node:assert/strict';
import { applyPatch, FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { splicedText, type TextSplice } from '../../../src/tools/text-splice';
import { spliceDiff, unifiedDiff } from '../../../src/tools/unified-diff';

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

  describe('diffing only the edited region', () => {
    /** The diff as it was made before only the region was diffed: the whole of both texts line-diffed. */
    const wholeFileDiff = (before: string, after: string): string =>
      formatPatch(structuredPatch('a/f.ts', 'b/f.ts', before, after, undefined, undefined, { context: 3 }), FILE_HEADERS_ONLY);

    const source = Array.from({ length: 400 }, (_, i) =>
      i % 9 === 8 ? '\n' : i % 9 === 7 ? '}\n' : `  const value${i} = compute(${i % 13}, '${'x'.repeat(i % 5)}');\n`,
    ).join('');

    /** A small deterministic generator, so a failing case can be replayed. */
    const random = (seed: number) => () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);

    const edits: Array<[string, (text: string) => string]> = [
      ['one line changed in the middle', (text) => text.replace('value200 =', 'renamed200 =')],
      ['the first line changed', (text) => text.replace('value0 =', 'first =')],
      ['the last line changed', (text) => `${text.slice(0, -2)}};\n`],
      ['lines inserted', (text) => text.replace("value100 = compute(9, '');\n", "value100 = compute(9, '');\nextra();\nmore();\n")],
      ['lines deleted', (text) => text.replace(/ {2}const value5\d = .*\n/g, '')],
      ['two edits far apart', (text) => text.replace('value10 =', 'ten =').replace('value390 =', 'last =')],
      ['two edits close together', (text) => text.replace('value10 =', 'ten =').replace('value14 =', 'fourteen =')],
      ['a closing brace duplicated', (text) => text.replace('}\n\n', '}\n}\n\n')],
      ['a blank line added beside blank lines', (text) => text.replace('\n\n', '\n\n\n')],
      ['the final newline removed', (text) => text.slice(0, -1)],
      ['everything rewritten', (text) => text.toUpperCase()],
      ['emptied', () => ''],
    ];

    for (const [name, edit] of edits) {
      it(`gives the same diff as diffing the whole file: ${name}`, () => {
        const after = edit(source);
        assert.notEqual(after, source);
        assert.equal(unifiedDiff('f.ts', source, after).diff, wholeFileDiff(source, after));
        assert.equal(applyPatch(source, unifiedDiff('f.ts', source, after).diff), after);
      });
    }

    it('gives the same diff as diffing the whole file for 300 random line edits, CRLF files and files without a final newline included', () => {
      const next = random(30);
      const variants = [source, source.replace(/\n/g, '\r\n'), source.slice(0, -1), 'only line', '\n\n\n'];
      for (let run = 0; run < 300; run++) {
        const before = variants[run % variants.length]!;
        const lines = before.split('\n');
        for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
          const at = Math.floor(next() * lines.length);
          const choice = next();
          if (choice < 0.3) lines.splice(at, 1);
          else if (choice < 0.6) lines.splice(at, 0, lines[Math.floor(next() * lines.length)] ?? 'copied');
          else lines[at] = `${lines[at] ?? ''} // edited ${run}`;
        }
        const after = lines.join('\n');
        if (after === before) continue;
        assert.equal(unifiedDiff('f.ts', before, after).diff, wholeFileDiff(before, after), `run ${run}`);
      }
    });

    it('gives the same diff from an edit\'s stretch as from the whole edited text, for 400 random stretches', () => {
      const next = random(31);
      const pick = (limit: number): number => Math.floor(next() * (limit + 1));
      // Repeating texts let the common beginning and end run past the stretch, into text the edit kept.
      const variants = [source, source.replace(/\n/g, '\r\n'), source.slice(0, -1), 'ab\n'.repeat(300), 'x'.repeat(500), '\n\n\n', ''];
      const pieces = ['', '\n', '\r\n', 'ab\n', 'x', 'ab\nab\n', '  inserted();\n', "  const value7 = compute(7, 'xx');\n", 'é€😀\n'];
      for (let run = 0; run < 400; run++) {
        const before = variants[run % variants.length]!;
        const head = pick(before.length);
        const tail = pick(before.length - head);
        const middle = Array.from({ length: pick(3) }, () => pieces[pick(pieces.length - 1)]!).join('');
        const splice: TextSplice = { head, middle, tail };
        const after = splicedText(before, splice);
        const at = pick(before.length);
        const known = { at, line: before.slice(0, at).split('\n').length - 1 };
        const whole = unifiedDiff('f.ts', before, after);
        assert.deepEqual(spliceDiff('f.ts', before, splice), whole, `run ${run}`);
        assert.deepEqual(spliceDiff('f.ts', before, splice, known), whole, `run ${run}, lines counted from ${at}`);
      }
    });

    it('numbers the hunk by its place in the whole file when the file is large', () => {
      const before = numbered(200_000);
      const after = before.replace('line 150000\n', 'line 150000, edited\n');
      const { diff, linesAdded, linesRemoved } = unifiedDiff('big.txt', before, after);
      assert.equal(diff, '--- a/big.txt\n+++ b/big.txt\n@@ -149997,7 +149997,7 @@\n line 149997\n line 149998\n line 149999\n-line 150000\n+line 150000, edited\n line 150001\n line 150002\n line 150003\n');
      assert.deepEqual([linesAdded, linesRemoved], [1, 1]);
    });
  });
});
