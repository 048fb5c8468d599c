import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../../../src/session/git-snapshots';
import { bashTool } from '../../../src/tools/builtin/bash';
import { readFileTool } from '../../../src/tools/builtin/read-file';
import { writeFileTool } from '../../../src/tools/builtin/write-file';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('tools with undo snapshots on', () => {
  const ws = tempWorkspace({ 'a.txt': 'one\n' });
  const data = mkdtempSync(join(tmpdir(), 'crow-data-'));
  const snapshots = new GitSnapshotManager({ workspace: ws.root, dataHome: data });
  const ctx = () => toolContext(ws.workspace, undefined, { snapshots });
  after(() => {
    ws.remove();
    rmSync(data, { recursive: true, force: true });
  });

  it('snapshots before a write, so the change can be diffed and restored', async () => {
    const result = await writeFileTool.run(JSON.stringify({ path: 'a.txt', content: 'two\n' }), ctx());
    const before = result.metadata.snapshotBefore;
    assert.ok(before, 'snapshot_before is recorded');
    assert.match(result.metadata.diff!, /-one\n\+two/);
    assert.deepEqual(await snapshots.changes(before), [{ path: 'a.txt', status: 'modified' }]);
    await snapshots.restore(before);
    assert.equal(readFileSync(join(ws.root, 'a.txt'), 'utf8'), 'one\n');
  });

  it('learns which files a command changed', async () => {
    const result = await bashTool.run(JSON.stringify({ command: 'echo hi > made.txt && rm a.txt' }), ctx());
    assert.equal(result.status, 'success');
    assert.deepEqual([...result.metadata.filesModified].sort(), ['a.txt', 'made.txt']);
  });

  it('takes no snapshot for reads', async () => {
    const result = await readFileTool.run(JSON.stringify({ path: 'made.txt' }), ctx());
    assert.equal(result.metadata.snapshotBefore, undefined);
  });
});
