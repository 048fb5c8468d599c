import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { editFileTool } from '../../../src/tools/builtin/edit-file';
import { PermissionGate, type PermissionRequest } from '../../../src/tools/permissions';
import { tempWorkspace, toolContext } from './temp-workspace';

const APP = [
  'export class Counter {',
  '  private count = 0;',
  '',
  '  increment(step = 1) {',
  '    this.count += step;',
  '    return this.count;',
  '  }',
  '',
  '  reset() {',
  '    this.count = 0;',
  '  }',
  '}',
  '',
].join('\n');

describe('edit_file', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const edit = (args: unknown, ctx = toolContext(ws.workspace)) => editFileTool.run(JSON.stringify(args), ctx);
  const read = (name: string) => fs.readFileSync(path.join(ws.root, name), 'utf8');

  beforeEach(() => {
    ws = tempWorkspace({ 'src/app.ts': APP });
  });
  afterEach(() => ws.remove());

  it('replaces an exact match and returns the unified diff', async () => {
    const result = await edit({ path: 'src/app.ts', old_string: '    this.count = 0;', new_string: '    this.count = 0;\n    this.resets++;' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'Edited src/app.ts (+1 -0 lines).');
    assert.equal(read('src/app.ts'), APP.replace('    this.count = 0;\n', '    this.count = 0;\n    this.resets++;\n'));
    assert.deepEqual(result.metadata.filesModified, ['src/app.ts']);
    assert.deepEqual(result.metadata.extra, { matcher: 'exact', replacements: 1, linesAdded: 1, linesRemoved: 0 });
    assert.equal(
      result.metadata.diff,
      [
        '--- a/src/app.ts',
        '+++ b/src/app.ts',
        '@@ -8,5 +8,6 @@',
        ' ',
        '   reset() {',
        '     this.count = 0;',
        '+    this.resets++;',
        '   }',
        ' }',
        '',
      ].join('\n'),
    );
  });

  it('tolerates trailing whitespace and runs of spaces (whitespace-normalised)', async () => {
    const result = await edit({ path: 'src/app.ts', old_string: '    this.count  +=  step;   \n', new_string: '    this.count += step * 2;\n' });
    assert.equal(result.output, 'Edited src/app.ts (+1 -1 lines), matched with whitespace-normalised matching.');
    assert.match(read('src/app.ts'), /^ {4}this\.count \+= step \* 2;$/m);
  });

  it('re-indents new_string when only the indentation differs (indentation-flexible)', async () => {
    const result = await edit({
      path: 'src/app.ts',
      old_string: 'reset() {\n  this.count = 0;\n}',
      new_string: 'reset(to = 0) {\n  this.count = to;\n}',
    });
    assert.equal(result.output, 'Edited src/app.ts (+2 -2 lines), matched with indentation-flexible matching.');
    assert.equal(result.metadata.extra.matcher, 'indentation-flexible');
    assert.equal(read('src/app.ts'), APP.replace('  reset() {\n    this.count = 0;', '  reset(to = 0) {\n    this.count = to;'));
  });

  it('matches lines compared trimmed (line-trimmed)', async () => {
    const result = await edit({
      path: 'src/app.ts',
      old_string: 'increment(step = 1) {\nthis.count += step;\n    return this.count;',
      new_string: 'increment(step = 1) {\n  this.count += step * 2;\n  return this.count;',
    });
    assert.equal(result.output, 'Edited src/app.ts (+1 -1 lines), matched with line-trimmed matching.');
    assert.equal(read('src/app.ts'), APP.replace('step;', 'step * 2;'));
  });

  it('matches by first and last lines when a middle line is slightly off (block-anchor)', async () => {
    const result = await edit({
      path: 'src/app.ts',
      old_string: '  increment(step = 1) {\n    this.count += steps;\n    return this.count;\n  }',
      new_string: '  increment(step = 1) {\n    return (this.count += step);\n  }',
    });
    assert.match(result.output, /^Edited src\/app.ts \(\+1 -2 lines\), matched with block-anchor matching\.$/);
    assert.match(read('src/app.ts'), /increment\(step = 1\) \{\n {4}return \(this\.count \+= step\);\n {2}\}/);
  });

  it('refuses an ambiguous match, naming the lines, and leaves the file alone', async () => {
    const result = await edit({ path: 'src/app.ts', old_string: '  }\n', new_string: '  } // end\n' });
    assert.equal(result.status, 'error');
    assert.equal(
      result.error,
      'old_string matches 2 places in src/app.ts (lines 7, 11). ' +
        'Add surrounding lines to old_string so it matches once, or set replace_all to change every match.',
    );
    assert.equal(read('src/app.ts'), APP);
  });

  it('replaces every match with replace_all', async () => {
    const result = await edit({ path: 'src/app.ts', old_string: 'this.count', new_string: 'this.total', replace_all: true });
    assert.equal(result.output, 'Edited src/app.ts (+3 -3 lines), 3 replacements.');
    assert.equal(read('src/app.ts'), APP.replaceAll('this.count', 'this.total'));
    assert.equal(result.metadata.extra.replacements, 3);
  });

  it('shows the closest lines, numbered, when nothing matches', async () => {
    const result = await edit({ path: 'src/app.ts', old_string: 'reset() {\n  this.counter = null;\n}', new_string: 'x' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /^old_string was not found in src\/app.ts, not even with whitespace-normalised/);
    assert.match(result.error ?? '', /The closest lines in the file \(\d+% similar\) are:\n {5}9\t {2}reset\(\) \{\n {4}10\t {4}this\.count = 0;\n {4}11\t {2}\}\n/);
    assert.equal(read('src/app.ts'), APP);
  });

  it('keeps CRLF line endings and a missing final newline', async () => {
    fs.writeFileSync(path.join(ws.root, 'win.txt'), 'first\r\nsecond\r\nthird');
    const result = await edit({ path: 'win.txt', old_string: 'second\nthird\n', new_string: 'two\nthree\nfour\n' });
    assert.equal(result.status, 'success');
    assert.equal(read('win.txt'), 'first\r\ntwo\r\nthree\r\nfour');
    const exact = await edit({ path: 'win.txt', old_string: 'first\ntwo\n', new_string: 'one\n' });
    assert.equal(exact.metadata.extra.matcher, 'exact');
    assert.equal(read('win.txt'), 'one\r\nthree\r\nfour');
  });

  it('keeps a byte order mark', async () => {
    fs.writeFileSync(path.join(ws.root, 'bom.txt'), '\uFEFFalpha\nbeta\n');
    await edit({ path: 'bom.txt', old_string: 'beta', new_string: 'gamma' });
    assert.equal(read('bom.txt'), '\uFEFFalpha\ngamma\n');
  });

  it('points to write_file for missing files and empty old_string', async () => {
    const missing = await edit({ path: 'src/nope.ts', old_string: 'a', new_string: 'b' });
    assert.equal(missing.error, 'File not found: src/nope.ts. edit_file changes existing files; use write_file to create one.');
    const empty = await edit({ path: 'src/app.ts', old_string: '', new_string: 'b' });
    assert.match(empty.error ?? '', /old_string is empty\. Use write_file/);
  });

  it('refuses identical strings, binary files, invalid UTF-8 and no-op edits', async () => {
    const same = await edit({ path: 'src/app.ts', old_string: 'reset', new_string: 'reset' });
    assert.match(same.error ?? '', /old_string and new_string are the same/);
    fs.writeFileSync(path.join(ws.root, 'blob.bin'), Buffer.from([1, 0, 2]));
    const binary = await edit({ path: 'blob.bin', old_string: 'a', new_string: 'b' });
    assert.match(binary.error ?? '', /blob\.bin is a binary file/);
    fs.writeFileSync(path.join(ws.root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const latin1 = await edit({ path: 'latin1.txt', old_string: 'caf', new_string: 'tea' });
    assert.match(latin1.error ?? '', /latin1\.txt is not valid UTF-8/);
    const noop = await edit({ path: 'src/app.ts', old_string: '  reset()  {', new_string: '  reset() {' });
    assert.match(noop.error ?? '', /leaves src\/app\.ts unchanged/);
  });

  it('does not touch the file when the policy denies writes', async () => {
    const permissions = new PermissionGate({
      policy: { rules: { read: 'allow', write: 'deny', execute: 'deny', network: 'deny' }, allowCommands: [] },
    });
    const result = await edit(
      { path: 'src/app.ts', old_string: 'reset', new_string: 'clear' },
      toolContext(ws.workspace, undefined, { permissions }),
    );
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /Permission denied/);
    assert.equal(read('src/app.ts'), APP);
  });

  it('asks to "Edit PATH" and describes itself as an edit of its path', async () => {
    const asked: PermissionRequest[] = [];
    const permissions = new PermissionGate({
      policy: { rules: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' }, allowCommands: [] },
      ask: async (request) => {
        asked.push(request);
        return 'allow_once';
      },
    });
    await edit({ path: 'src/app.ts', old_string: 'reset', new_string: 'clear' }, toolContext(ws.workspace, undefined, { permissions }));
    assert.equal(asked[0]?.title, 'Edit src/app.ts');
    assert.deepEqual(asked[0]?.paths, ['src/app.ts']);
    assert.equal(editFileTool.kind, 'edit');
    assert.equal(editFileTool.permission, 'write');
    assert.equal(editFileTool.summarize({ path: 'a.ts', old_string: 'x', new_string: 'y' }), 'a.ts');
    assert.deepEqual(editFileTool.locations({ path: 'a.ts', old_string: 'x', new_string: 'y' }), [{ path: 'a.ts' }]);
  });
});
