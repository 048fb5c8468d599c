import assert from 'node:assert/strict';
import { diffLines } from '../../../../src/adapters/cli/diff-lines';
import { columnsOf, MarkdownStream } from '../../../../src/adapters/cli/markdown-stream';
import { guessLanguage, terminalMarkdown } from '../../../../src/adapters/cli/terminal-markdown';
import { styleFor } from '../../../../src/adapters/cli/terminal-style';

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream, {});

const ERASE_LINE = '\r\x1b[J';

/** A stream rendering `<markdown>` per call, on a screen `columns` × `rows`, and what it wrote. */
function stream(screen: { columns: number; rows: number } | null = { columns: 80, rows: 24 }) {
  const written: string[] = [];
  const rendered: string[] = [];
  const render = (markdown: string): string => {
    rendered.push(markdown);
    return `<${markdown}>\n\n`;
  };
  const md = new MarkdownStream((text) => written.push(text), render, screen ? { columns: () => screen.columns, rows: () => screen.rows } : undefined);
  return { md, written, rendered, text: () => written.join('') };
}

describe('markdown for the terminal, line by line', () => {
  it('writes a line rendered as soon as it ends; the line still arriving shows raw, then is redrawn in its place', () => {
    const { md, written } = stream();
    md.push('# Ti');
    assert.deepEqual(written, ['# Ti'], 'the open line, raw, at once');
    md.push('tle\nSome **bo');
    assert.deepEqual(written, ['# Ti', ERASE_LINE, '<# Title>\n', 'Some **bo'], 'what ended in the same piece is not shown raw first');
    md.push('ld');
    md.push('** text\n');
    assert.deepEqual(written.slice(4), ['ld', ERASE_LINE, '<Some **bold** text>\n']);
    md.flush();
    assert.deepEqual(written.slice(7), ['\n'], 'only a blank line to set the text apart');
    md.flush();
    assert.equal(written.length, 8, 'nothing is written twice');
  });

  it('erases every screen row a wrapped open line took, counting wide characters twice', () => {
    const { md, written } = stream({ columns: 10, rows: 24 });
    md.push('x'.repeat(25));
    md.push('\n');
    assert.deepEqual(written.slice(1, 3), ['\r\x1b[2A\x1b[J', `<${'x'.repeat(25)}>\n`], 'three rows: two up from the cursor');
    assert.equal(columnsOf('日本語 ok'), 9);
    assert.equal(columnsOf('e\u0301'), 1, 'a combining accent takes no column');
  });

  it('keeps a line taller than the screen raw: what scrolled away cannot be redrawn', () => {
    const { md, written, rendered } = stream({ columns: 10, rows: 3 });
    md.push('a'.repeat(15));
    md.push('b'.repeat(15));
    md.push('c\nnext\n');
    assert.deepEqual(written, ['a'.repeat(15), 'b'.repeat(15), 'c', '\n', '<next>\n']);
    assert.deepEqual(rendered, ['next']);
  });

  it('leaves the raw line as it is once a line typed by the person moved the cursor under it', () => {
    const { md, written } = stream();
    md.push('half of it ');
    md.detach();
    md.push('and the rest\nnext\n');
    assert.deepEqual(written, ['half of it ', 'and the rest', '\n', '<next>\n'], 'never an erase that would hit the typed line');
  });

  it('without cursor moves, writes each line once it has ended, and what is left on flush', () => {
    const { md, written } = stream(null);
    md.push('one\ntw');
    assert.deepEqual(written, ['<one>\n']);
    md.flush();
    assert.deepEqual(written, ['<one>\n', '<tw>\n', '\n']);
  });

  it('renders a code block line by line, each line as code of its language, fences hidden, blank lines kept', () => {
    const { md, written, rendered } = stream(null);
    md.push('```ts\nconst a = 1;\n\nconst b = 2;\n```\nafter\n');
    assert.deepEqual(rendered, ['```ts\nconst a = 1;\n```', '```ts\nconst b = 2;\n```', 'after']);
    assert.deepEqual(written, ['<```ts\nconst a = 1;\n```>\n', '\n', '<```ts\nconst b = 2;\n```>\n', '<after>\n']);
  });

  it('guesses the language of a fence that names none from its first lines, then keeps it', () => {
    const written: string[] = [];
    const rendered: string[] = [];
    const samples: string[] = [];
    const render = Object.assign(
      (markdown: string) => {
        rendered.push(markdown);
        return `${markdown}\n`;
      },
      { language: (code: string) => (samples.push(code), code.includes('def ') ? 'python' : undefined) },
    );
    const md = new MarkdownStream((text) => written.push(text), render);
    md.push('```\nimport os\ndef f():\n    return 1\n```\n');
    assert.deepEqual(samples, ['import os', 'import os\ndef f():'], 'guessed until it could tell');
    assert.deepEqual(rendered, ['```plaintext\nimport os\n```', '```python\ndef f():\n```', '```python\n    return 1\n```']);
  });

  it('shows a table raw row by row, then draws it whole in place of the raw rows', () => {
    const { md, written, rendered } = stream();
    md.push('| a | b |\n|---|---|\n| 1 | 2 |\n');
    assert.deepEqual(written, ['| a | b |\n', '|---|---|\n', '| 1 | 2 |\n']);
    md.push('done\n');
    assert.deepEqual(written.slice(3), ['\r\x1b[3A\x1b[J', '<| a | b |\n|---|---|\n| 1 | 2 |>\n', '<done>\n']);
    assert.deepEqual(rendered, ['| a | b |\n|---|---|\n| 1 | 2 |', 'done']);
  });

  it('folds blank lines as markdown does, and keeps out control characters a model sends', () => {
    const { md, text } = stream(null);
    md.push('\n\none\n\n\n\ntwo \x1b[2Jwiped\r\n');
    assert.equal(text(), '<one>\n\n<two [2Jwiped>\n');
  });

  it('with the real renderer: emphasis rendered, an ordered item keeps its number, a nested item its indentation', () => {
    const written: string[] = [];
    const md = new MarkdownStream((text) => written.push(text), terminalMarkdown(80));
    md.push('- **bold** item\n2. second\n  - nested\n```js\nconst a = 1;\n```\n');
    md.flush();
    const visible = written.join('').replace(/\x1b\[[0-9;]*m/g, '');
    assert.doesNotMatch(visible, /\*\*|```/);
    assert.match(visible, /bold item/);
    assert.match(visible, /^ *2\. second$/m);
    assert.match(visible, /^ {4}\S+ nested$/m, 'two spaces of its own, then the list indentation');
    assert.match(visible, /const a = 1;/);
  });

  it('guesses a language only from code that reads clearly as one', () => {
    assert.equal(guessLanguage('def area(r):\n    return 3.14 * r * r'), 'python');
    assert.equal(guessLanguage('npm install'), undefined);
  });
});

describe('diffs under a tool line', () => {
  it('leaves out the file headers, indents, and counts what is past the limit', () => {
    const diff = ['--- a/x.js', '+++ b/x.js', '@@ -1,3 +1,3 @@', ' keep', '-old', '+new', ...Array.from({ length: 5 }, (_, i) => `+more ${i}`)].join('\n');
    const lines = diffLines(`${diff}\n`, plain, 4);
    assert.deepEqual(lines, ['    @@ -1,3 +1,3 @@', '     keep', '    -old', '    +new', '    … +5 more lines']);
  });
});
