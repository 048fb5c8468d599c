import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planUndo } from '../../../src/journal/restore-plan';
import { SessionUndo } from '../../../src/journal/session-undo';
import { editFileTool } from '../../../src/tools/builtin/edit-file';
import { writeFileTool } from '../../../src/tools/builtin/write-file';
import { bashTool } from '../../../src/tools/builtin/bash';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { GatedSnapshots } from '../../support/gated-snapshots';
import { toolContext } from '../tools/temp-workspace';

/** Counts the whole-workspace tracks it is asked for. */
class CountingSnapshots extends GatedSnapshots {
  tracks = 0;
  override track(signal?: AbortSignal): Promise<string> {
    this.tracks++;
    return super.track(signal);
  }
}

describe('undo of file tools without work on the whole tree', () => {
  let base: string;
  let ws: string;
  let snapshots: CountingSnapshots;
  let undo: SessionUndo;
  const signal = new AbortController().signal;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-undo-files-')));
    ws = join(base, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src/a.js'), 'a1\n');
    writeFileSync(join(ws, 'src/b.js'), 'b1\n');
    snapshots = new CountingSnapshots({ workspace: ws, dataHome: join(base, 'data') });
    undo = new SessionUndo({ root: ws, dataHome: join(base, 'data'), env: process.env, snapshots });
    undo.begin({ sessionId: 's', prompt: 'Edit two files', notify: () => undefined });
  });
  afterEach(async () => {
    await undo.close();
    rmSync(base, { recursive: true, force: true });
  });

  const tools = () => toolContext(new NodeWorkspace(ws), signal, { undo });
  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');

  it('records and undoes write_file and edit_file while a snapshot of the tree could never finish, and starts none', async () => {
    const wrote = await writeFileTool.run(JSON.stringify({ path: 'src/a.js', content: 'a2\n' }), tools());
    const edited = await editFileTool.run(JSON.stringify({ path: 'src/b.js', old_string: 'b1', new_string: 'b2' }), tools());
    const created = await writeFileTool.run(JSON.stringify({ path: 'src/new.js', content: 'new\n' }), tools());
    assert.deepEqual([wrote.status, edited.status, created.status], ['success', 'success', 'success']);
    assert.equal(snapshots.tracks, 0, 'no snapshot of the whole tree was asked for');

    const entry = (await undo.log.latest('s'))!;
    await (await planUndo(undo.snapshots, entry, signal)).apply(signal);
    assert.deepEqual([read('src/a.js'), read('src/b.js')], ['a1\n', 'b1\n']);
    assert.throws(() => read('src/new.js'), /ENOENT/);
  });

  it('undoes edits of large files to their exact bytes: CRLF beyond ASCII without a final break, and with a byte order mark', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => (i % 5 === 0 ? `  café(${i}); // €` : `  line(${i});`));
    const originals = { 'src/win.ts': Buffer.from(lines.join('\r\n')), 'src/bom.ts': Buffer.from(`\uFEFF${lines.join('\r\n')}`) };
    for (const [path, bytes] of Object.entries(originals)) writeFileSync(join(ws, path), bytes);
    const edits = [
      { path: 'src/win.ts', old_string: '  line(1);\n', new_string: '' },
      { path: 'src/win.ts', old_string: '  café(15000); // €\n  line(15001);', new_string: '  tea(15000);' },
      { path: 'src/bom.ts', old_string: '  line(29999);', new_string: '  last();\n' },
    ];
    for (const args of edits) assert.equal((await editFileTool.run(JSON.stringify(args), tools())).status, 'success');
    assert.ok(!readFileSync(join(ws, 'src/win.ts')).equals(originals['src/win.ts']));

    const entry = (await undo.log.latest('s'))!;
    await (await planUndo(undo.snapshots, entry, signal)).apply(signal);
    for (const [path, bytes] of Object.entries(originals)) assert.ok(readFileSync(join(ws, path)).equals(bytes), `${path} as it was, byte for byte`);
  });

  it('records the tree for the first command, after file tools, and undoes both', async () => {
    snapshots.open();
    await writeFileTool.run(JSON.stringify({ path: 'src/a.js', content: 'a2\n' }), tools());
    assert.equal(snapshots.tracks, 0);
    await bashTool.run(JSON.stringify({ command: 'echo b2 > src/b.js && echo a3 > src/a.js' }), tools());
    assert.ok(snapshots.tracks > 0, 'the command was tracked');

    const entry = (await undo.log.latest('s'))!;
    await (await planUndo(undo.snapshots, entry, signal)).apply(signal);
    assert.deepEqual([read('src/a.js'), read('src/b.js')], ['a1\n', 'b1\n']);
  });
});
