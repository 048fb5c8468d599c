import assert from 'node:assert/strict';
import { diffLines } from '../../../../src/adapters/cli/diff-lines';
import { lastBlockEnd, MarkdownStream } from '../../../../src/adapters/cli/markdown-stream';
import { terminalMarkdown } from '../../../../src/adapters/cli/terminal-markdown';
import { styleFor } from '../../../../src/adapters/cli/terminal-style';

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream, {});

describe('markdown for the terminal', () => {
  it('finds where complete blocks end: at a blank line, never inside a code fence', () => {
    assert.equal(lastBlockEnd('one paragraph still growing'), 0);
    assert.equal(lastBlockEnd('para one\n\npara two'), 'para one\n\n'.length);
    assert.equal(lastBlockEnd('```js\nconst a = 1;\n\nconst b = 2;\n'), 0, 'a blank line inside a fence ends nothing');
    const fenced = '```js\nconst a = 1;\n\nconst b = 2;\n```\n\nafter';
    assert.equal(lastBlockEnd(fenced), fenced.length - 'after'.length);
    assert.equal(lastBlockEnd('~~~\n```\n\n~~~\n\nx'), '~~~\n```\n\n~~~\n\n'.length, 'only the same fence closes');
  });

  it('writes each block once it is complete, rendered, and the rest on flush', () => {
    const written: string[] = [];
    const stream = new MarkdownStream((text) => written.push(text), (markdown) => `<${markdown.trim()}>`);
    for (const delta of ['# Ti', 'tle\n', '\nSome **bo', 'ld** text', '\n\n- a\n- b']) stream.push(delta);
    assert.deepEqual(written, ['<# Title>', '<Some **bold** text>']);
    stream.flush();
    assert.deepEqual(written, ['<# Title>', '<Some **bold** text>', '<- a\n- b>']);
    stream.flush();
    assert.equal(written.length, 3, 'nothing is written twice');
  });

  it('renders emphasis in list items and code blocks without their markers', () => {
    const text = terminalMarkdown(80)('- **bold** item\n- `code`\n\n```js\nconst a = 1;\n```\n');
    const visible = text.replace(/\x1b\[[0-9;]*m/g, '');
    assert.doesNotMatch(visible, /\*\*|```/);
    assert.match(visible, /bold item/);
    assert.match(visible, /const a = 1;/);
  });
});

describe('diffs under a tool line', () => {
  it('leaves out the file headers, indents, and counts what is past the limit', () => {
    const diff = ['--- a/x.js', '+++ b/x.js', '@@ -1,3 +1,3 @@', ' keep', '-old', '+new', ...Array.from({ length: 5 }, (_, i) => `+more ${i}`)].join('\n');
    const lines = diffLines(`${diff}\n`, plain, 4);
    assert.deepEqual(lines, ['    @@ -1,3 +1,3 @@', '     keep', '    -old', '    +new', '    … +5 more lines']);
  });
});
