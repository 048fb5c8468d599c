import assert from 'node:assert/strict';
import { closestWindow, exactMatches, findMatches, replaceMatches } from '../../../src/tools/text-match';
import { editDistance, linesSimilarity } from '../../../src/tools/text-match-blocks';
import { commonIndentation, reindent } from '../../../src/tools/text-match-lines';
import { assertPromptly } from '../../support/promptly';

/** The text each match covers. */
const covered = (text: string, search: string): string[] =>
  (findMatches(text, search)?.matches ?? []).map((match) => text.slice(match.start, match.end));

const edit = (text: string, search: string, replacement: string): string | undefined => {
  const found = findMatches(text, search);
  return found && replaceMatches(text, found.matches, replacement);
};

describe('text matching', () => {
  describe('exact', () => {
    it('finds every non-overlapping occurrence with its line', () => {
      assert.deepEqual(exactMatches('aaa\nb aa\n', 'aa'), [
        { start: 0, end: 2, line: 0 },
        { start: 6, end: 8, line: 1 },
      ]);
      assert.deepEqual(exactMatches('abc', ''), []);
      assert.equal(findMatches('x = 1;\n', 'x = 1')?.matcher, 'exact');
    });

    it('replaces inside a line without touching the rest', () => {
      assert.equal(edit('let a = f(1);\n', 'f(1)', 'g(2)'), 'let a = g(2);\n');
    });
  });

  describe('whitespace-normalised', () => {
    it('matches LF search text in a CRLF file and covers the CRLF lines', () => {
      const text = 'one\r\ntwo\r\nthree\r\n';
      const found = findMatches(text, 'one\ntwo\n');
      assert.equal(found?.matcher, 'whitespace-normalised');
      assert.deepEqual(covered(text, 'one\ntwo\n'), ['one\r\ntwo\r\n']);
      assert.deepEqual(covered(text, 'one\ntwo'), ['one\r\ntwo']);
    });

    it('ignores trailing whitespace and runs of inner spaces and tabs', () => {
      const text = '  const  x =\t1;   \n  return x;\n';
      assert.equal(findMatches(text, '  const x = 1;\n  return x;')?.matcher, 'whitespace-normalised');
      assert.equal(edit(text, '  const x = 1;\n  return x;', '  return 1;'), '  return 1;\n');
    });

    it('takes the last line even without a final line break', () => {
      assert.deepEqual(covered('a\nb  ', 'a\nb\n'), ['a\nb  ']);
    });

    it('does not tolerate other indentation', () => {
      assert.notEqual(findMatches('    a();\n    b();\n', '  a();\n  b();')?.matcher, 'whitespace-normalised');
    });
  });

  describe('indentation-flexible', () => {
    const text = 'class A {\n    run() {\n        go();\n    }\n}\n';

    it('matches the same lines at another common indentation and re-indents the replacement', () => {
      const found = findMatches(text, 'run() {\n    go();\n}');
      assert.equal(found?.matcher, 'indentation-flexible');
      assert.deepEqual(found?.matches[0]?.reindent, { from: '', to: '    ' });
      assert.equal(
        edit(text, 'run() {\n    go();\n}', 'run() {\n    stop();\n\n    go();\n}'),
        'class A {\n    run() {\n        stop();\n\n        go();\n    }\n}\n',
      );
    });

    it('re-indents towards less indentation too', () => {
      const out = edit('if (x) {\n  y();\n}\n', '      if (x) {\n        y();\n      }\n', '      if (x) {\n        z();\n      }\n');
      assert.equal(out, 'if (x) {\n  z();\n}\n');
    });

    it('matches tab-indented lines from an unindented search', () => {
      const tabbed = 'function f() {\n\tif (x) {\n\t\ty();\n\t}\n}\n';
      assert.equal(findMatches(tabbed, 'if (x) {\n\ty();\n}')?.matcher, 'indentation-flexible');
      assert.equal(edit(tabbed, 'if (x) {\n\ty();\n}', 'if (x) {\n\tz();\n}'), 'function f() {\n\tif (x) {\n\t\tz();\n\t}\n}\n');
    });

    it('does not match when the relative indentation differs', () => {
      assert.equal(findMatches(text, 'run() {\ngo();\n}')?.matcher, 'line-trimmed');
    });
  });

  describe('line-trimmed', () => {
    it('matches lines that differ only in their surrounding whitespace', () => {
      const text = 'if (a) {\n      b();\n  }\n';
      const found = findMatches(text, 'if (a) {\n  b();\n}');
      assert.equal(found?.matcher, 'line-trimmed');
      assert.deepEqual(covered(text, 'if (a) {\n  b();\n}'), ['if (a) {\n      b();\n  }']);
    });

    it('does not match when a line differs inside', () => {
      assert.equal(findMatches('a();\nb();\n', 'a();\nc();'), undefined);
    });
  });

  describe('block-anchor', () => {
    const block = [
      'function total(items) {',
      '  let sum = 0;',
      '  for (const item of items) {',
      '    sum += item.price * item.count;',
      '  }',
      '  return sum;',
      '}',
    ];
    const text = `// header\n${block.join('\n')}\n// footer\n`;

    it('matches when the first and last lines agree and the middle is similar', () => {
      const search = block.join('\n').replace('item.price * item.count', 'item.price * item.qty');
      const found = findMatches(text, search);
      assert.equal(found?.matcher, 'block-anchor');
      assert.deepEqual(covered(text, search), [block.join('\n')]);
      assert.equal(found?.matches[0]?.line, 1);
    });

    it('rejects a middle below the similarity threshold', () => {
      const search = ['function total(items) {', '  return items.length > 0 ? compute(items) : 0;', '  // nothing else here', '}'];
      assert.equal(findMatches(text, search.join('\n')), undefined);
    });

    it('needs at least three lines', () => {
      assert.equal(findMatches('a {\nb\n}\n', 'a {\n}'), undefined);
    });

    it('picks the most similar of several candidates', () => {
      const twice = 'begin\n  alpha beta gamma\nend\nbegin\n  alpha beta gamma delta\nend\n';
      const found = findMatches(twice, 'begin\n  alpha beta gamma delt\nend');
      assert.equal(found?.matcher, 'block-anchor');
      assert.deepEqual(found?.matches.map((match) => match.line), [3]);
    });
  });

  describe('the cascade', () => {
    it('stops at the first matcher that finds anything', () => {
      const text = '  a();\n  b();\n\n    a();\n  b();\n';
      const found = findMatches(text, 'a();\nb();');
      assert.equal(found?.matcher, 'indentation-flexible');
      assert.deepEqual(found?.matches.map((match) => match.line), [0]);
    });

    it('reports every match of that matcher', () => {
      const found = findMatches('x();  \ny();\nx();\t\ny();\n', 'x();\ny();');
      assert.equal(found?.matcher, 'whitespace-normalised');
      assert.deepEqual(found?.matches.map((match) => match.line), [0, 2]);
    });
  });

  describe('closestWindow', () => {
    it('finds the stretch most like the search, with its first line', () => {
      const text = 'import x;\n\nfunction add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n';
      const closest = closestWindow(text, 'function sub(a, c) {\n  return a - c;\n}');
      assert.equal(closest?.line, 6);
      assert.deepEqual(closest?.lines, ['function sub(a, b) {', '  return a - b;', '}']);
      assert.ok(closest!.similarity > 0.8 && closest!.similarity < 1);
    });

    it('places the search by its rare words in repetitive code, and stays fast on 5,000 lines', () => {
      const fn = (i: number) => [`function f${i}() {`, `  return compute(${i});`, '}', ''];
      const text = Array.from({ length: 1_250 }, (_, i) => fn(i).join('\n')).join('\n');
      const search = 'function f700() {\n  return cached(700) ?? fallback;\n}';
      const started = performance.now();
      assert.equal(findMatches(text, search), undefined);
      const closest = closestWindow(text, search);
      assertPromptly(started, 'placed the search in 5,000 lines', () => performance.now());
      assert.equal(closest?.line, 2_800);
      assert.deepEqual(closest?.lines, fn(700).slice(0, 3));
    });

    it('is undefined when no line shares a word', () => {
      assert.equal(closestWindow('alpha\nbeta\n', 'gamma delta'), undefined);
    });
  });

  describe('helpers', () => {
    it('measures edit distance, stopping above a limit', () => {
      assert.equal(editDistance('kitten', 'sitting'), 3);
      assert.equal(editDistance('', 'abc'), 3);
      assert.ok(editDistance('aaaaaaaa', 'bbbbbbbb', 2) > 2);
    });

    it('scores line similarity against the longer line, exactly at the threshold too', () => {
      assert.equal(linesSimilarity(['abcde'], ['abcdX']), 0.8);
      assert.equal(linesSimilarity(['abcde'], ['abcdX'], 0.8), 0.8);
      assert.ok(linesSimilarity(['abcde'], ['abXYZ'], 0.8) < 0.8);
      assert.equal(linesSimilarity([''], ['']), 1);
    });

    it('finds the common indentation of non-blank lines', () => {
      assert.equal(commonIndentation(['    a', '', '  b', '      c']), '  ');
      assert.equal(commonIndentation(['\ta', '\t\tb']), '\t');
      assert.equal(commonIndentation(['', '  ']), '');
    });

    it('re-indents keeping relative indentation and blank lines', () => {
      assert.equal(reindent('a\n  b\n\nc', '', '    '), '    a\n      b\n\n    c');
      assert.equal(reindent('    a\n  b', '    ', ''), 'a\nb');
    });
  });
});
