import assert from 'node:assert/strict';
import { editedArguments, MAX_EDITED_CHARS, notEditable, uniqueStretch } from '../../../../src/adapters/vscode/chat/edited-change';

/** The edited text, as edit_file makes it: the one occurrence of `before` replaced by `after`. */
function applied(current: string, { before, after }: { before: string; after: string }): string {
  const at = current.indexOf(before);
  return current.slice(0, at) + after + current.slice(at + before.length);
}

describe('a file change edited in the diff editor, back as the call\'s arguments', () => {
  it('finds the changed lines, widened until they occur once, for any edit', () => {
    const cases: [string, string][] = [
      ['a\nb\nc\n', 'a\nB\nc\n'],
      // The changed line repeats: widened to a neighbour that makes it unique.
      ['x\n}\ny\n}\nz\n', 'x\n}\ny\n};\nz\n'],
      ['}\n}\n}\n', '}\n}\n};\n'],
      // Pure insertions and deletions, at the start, middle and end, with and without a final line break.
      ['one\ntwo\n', 'zero\none\ntwo\n'],
      ['one\ntwo\n', 'one\ntwo\nthree\n'],
      ['one\ntwo', 'one\ntwo\n'],
      ['one\ntwo\nthree\n', 'one\nthree\n'],
      ['\n\n\n', '\n\nx\n\n'],
      ['\nabc', 'abc'],
      ['same\nsame\nsame\n', 'same\nsame\n'],
      ['a\r\nb\r\n', 'a\r\nB\r\n'],
      ['', 'new\n'],
    ];
    for (const [current, edited] of cases) {
      const stretch = uniqueStretch(current, edited);
      assert.equal(applied(current, stretch), edited, JSON.stringify([current, edited]));
      assert.equal(current.indexOf(stretch.before), current.lastIndexOf(stretch.before), `occurs once: ${JSON.stringify(stretch)}`);
    }
    assert.deepEqual(uniqueStretch('a\nb\nc\n', 'a\nB\nc\n'), { before: 'b\n', after: 'B\n' }, 'only the line that changed');
  });

  it('write_file gets the text as its content, edit_file a replacement that gives it; the path is always the approval\'s own', () => {
    const written = editedArguments('write_file', { path: 'a.txt', content: 'model\n' }, 'old\n', 'mine\n');
    assert.deepEqual(written, { value: { path: 'a.txt', content: 'mine\n' } });
    const edited = editedArguments('edit_file', { path: 'src/b.ts', old_string: 'x', new_string: 'y', replace_all: true }, 'let x = 1;\nlet z = 2;\n', 'let x = 1;\nlet z = 3;\n');
    assert.deepEqual(edited, { value: { path: 'src/b.ts', old_string: 'let z = 2;\n', new_string: 'let z = 3;\n' } }, 'replace_all dropped: the stretch occurs once');
  });

  it('refuses what cannot be applied, saying why', () => {
    const problem = (result: ReturnType<typeof editedArguments>): string => ('problem' in result ? result.problem : 'accepted');
    assert.match(problem(editedArguments('edit_file', { path: 'b.ts' }, 'same\n', 'same\n')), /leaves b\.ts as it is now/);
    assert.match(problem(editedArguments('edit_file', { path: 'b.ts' }, undefined, 'x')), /no longer exists/);
    assert.match(problem(editedArguments('write_file', { path: 'b.ts' }, 'a', 'a\0b')), /NUL/);
    assert.match(problem(editedArguments('write_file', { path: 'b.ts' }, 'a', 'x'.repeat(MAX_EDITED_CHARS + 1))), /too large/);
    assert.match(problem(editedArguments('bash', { command: 'ls' }, 'a', 'b')), /cannot be edited in the editor/);
    assert.match(problem(editedArguments('write_file', { path: 7 }, 'a', 'b')), /cannot be edited in the editor/);
    assert.match(notEditable('img.png', 'PNG\0\0', 'PNG\0\x01') ?? '', /img\.png is a binary file/);
    assert.match(notEditable('big.log', 'x'.repeat(MAX_EDITED_CHARS + 1), 'y') ?? '', /big\.log is too large to edit here/);
    assert.equal(notEditable('a.ts', undefined, 'new'), undefined);
  });
});
