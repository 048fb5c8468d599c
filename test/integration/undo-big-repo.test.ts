import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planUndo } from '../../src/journal/restore-plan';
import { SessionUndo } from '../../src/journal/session-undo';
import { bashTool } from '../../src/tools/builtin/bash';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import { NodeWorkspace } from '../../src/tools/node-workspace';
import { createBigRepository } from '../support/big-repo';
import { toolContext } from '../unit/tools/temp-workspace';

describe('undo on a 100,000-file repository', function () {
  this.timeout(180_000);
  let base: string;
  let ws: string;

  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-undo-big-')));
    ws = join(base, 'ws');
    createBigRepository(ws, { folders: 400, filesPerFolder: 250 });
    writeFileSync(join(ws, '.gitignore'), 'build/\n');
    mkdirSync(join(ws, 'build'));
    writeFileSync(join(ws, 'build/out.bin'), 'ignored build output\n');
    writeFileSync(join(ws, 'draft.txt'), 'an untracked file of mine\n');
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');
  const status = (): string => execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--ignored'], { cwd: ws, encoding: 'utf8' });

  it('puts back exactly what the agent changed; ignored, untracked and your own files survive', async () => {
    const before = status();
    const signal = new AbortController().signal;
    const undo = new SessionUndo({ root: ws, dataHome: join(base, 'data'), env: process.env });
    try {
      const point = undo.begin({ sessionId: 's', prompt: 'Change a few files', notify: () => undefined });
      const tools = toolContext(new NodeWorkspace(ws), signal, { undo });
      const wrote = await writeFileTool.run(JSON.stringify({ path: 'd010/f010.js', content: 'agent\n' }), tools);
      const ran = await bashTool.run(JSON.stringify({ command: 'echo agent > d020/f020.js && echo new > d030/new.js && rm d040/f040.js' }), tools);
      assert.deepEqual([wrote.status, ran.status], ['success', 'success']);
      assert.deepEqual([...ran.metadata.filesModified].sort(), ['d020/f020.js', 'd030/new.js', 'd040/f040.js']);
      writeFileSync(join(ws, 'd050/f050.js'), 'my own edit during the prompt\n');
      await point.settled();
      assert.ok(existsSync(join(undo.snapshots.gitDir, 'objects', 'info', 'alternates')), 'the shadow started from the repository');

      const plan = await planUndo(undo.snapshots, (await undo.log.latest('s'))!, signal);
      const listed = plan.changes.map(({ path, status: change }) => `${change} ${path}`).sort();
      assert.deepEqual(listed, ['added d040/f040.js', 'deleted d030/new.js', 'modified d010/f010.js', 'modified d020/f020.js']);
      await plan.apply(signal);
    } finally {
      await undo.close();
    }
    assert.equal(read('d010/f010.js'), 'export const value = 2510;\n');
    assert.equal(read('d020/f020.js'), 'export const value = 5020;\n');
    assert.equal(read('d040/f040.js'), 'export const value = 10040;\n');
    assert.equal(existsSync(join(ws, 'd030/new.js')), false);
    assert.equal(read('build/out.bin'), 'ignored build output\n');
    assert.equal(read('draft.txt'), 'an untracked file of mine\n');
    assert.equal(read('d050/f050.js'), 'my own edit during the prompt\n');
    const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');
    assert.deepEqual(lines(status()).filter((line) => line !== ' M d050/f050.js'), lines(before), 'git sees only your edit');
  });
});
