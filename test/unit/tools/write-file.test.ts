import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileTool } from '../../../src/tools/builtin/write-file';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('write_file', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const write = (args: unknown) => writeFileTool.run(JSON.stringify(args), toolContext(ws.workspace));

  beforeEach(() => {
    ws = tempWorkspace({ 'notes.md': 'one\ntwo\nthree\n' });
  });
  afterEach(() => ws.remove());

  it('creates a file and its parent folders', async () => {
    const result = await write({ path: 'src/deep/new.ts', content: 'a\nb\n' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'Created src/deep/new.ts (+2 lines).');
    assert.equal(fs.readFileSync(path.join(ws.root, 'src/deep/new.ts'), 'utf8'), 'a\nb\n');
    assert.deepEqual(result.metadata.filesModified, ['src/deep/new.ts']);
    assert.deepEqual(result.metadata.extra, { created: true, linesAdded: 2, linesRemoved: 0 });
  });

  it('overwrites a file and counts lines added and removed', async () => {
    const result = await write({ path: path.join(ws.root, 'notes.md'), content: 'one\nTWO\nthree\nfour\n' });
    assert.equal(result.output, 'Overwrote notes.md (+2 -1 lines).');
    assert.deepEqual(result.metadata.filesModified, ['notes.md']);
    assert.deepEqual(result.metadata.extra, { created: false, linesAdded: 2, linesRemoved: 1 });
    assert.equal(fs.readFileSync(path.join(ws.root, 'notes.md'), 'utf8'), 'one\nTWO\nthree\nfour\n');
  });

  it('refuses to write over a directory', async () => {
    fs.mkdirSync(path.join(ws.root, 'folder'));
    const result = await write({ path: 'folder', content: 'x' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /folder is a directory/);
  });

  it('refuses paths outside the workspace', async () => {
    const result = await write({ path: '../escaped.txt', content: 'x' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /must stay inside the workspace root/);
    assert.equal(fs.existsSync(path.join(ws.root, '..', 'escaped.txt')), false);
  });

  it('rejects invalid arguments naming the field', async () => {
    const result = await write({ path: 'x.txt', content: 7 });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /Invalid arguments for write_file: content: .*expected string/);
    const missing = await write({ content: 'x' });
    assert.match(missing.error ?? '', /path:/);
  });

  it('returns the unified diff and counts lines from it', async () => {
    const result = await write({ path: 'notes.md', content: 'three\none\ntwo\n' });
    assert.equal(result.output, 'Overwrote notes.md (+1 -1 lines).');
    assert.equal(result.metadata.diff, '--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n+three\n one\n two\n-three\n');
    const created = await write({ path: 'new.txt', content: 'x' });
    assert.equal(created.metadata.diff, '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n');
  });

  it('is an edit tool located at its path', () => {
    assert.equal(writeFileTool.kind, 'edit');
    assert.equal(writeFileTool.summarize({ path: 'a.ts', content: '' }), 'a.ts');
    assert.deepEqual(writeFileTool.locations({ path: 'a.ts', content: '' }), [{ path: 'a.ts' }]);
  });
});
