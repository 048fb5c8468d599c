import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { nothingToUndo, planUndo } from '../../../src/journal/restore-plan';
import { SessionUndo } from '../../../src/journal/session-undo';
import type { UndoPoint } from '../../../src/journal/undo-point';
import { bashTool } from '../../../src/tools/builtin/bash';
import { readFileTool } from '../../../src/tools/builtin/read-file';
import { writeFileTool } from '../../../src/tools/builtin/write-file';
import { defineTool } from '../../../src/tools/define-tool';
import { ScriptedProvider } from '../../../src/llm/scripted';
import type { UndoRecorder } from '../../../src/tools/undo-recorder';
import { runTurn } from '../../support/engine';
import { GatedSnapshots } from '../../support/gated-snapshots';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('tools with undo on', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let data: string;
  let snapshots: GatedSnapshots;
  let undo: SessionUndo;
  let point: UndoPoint;
  const notices: string[] = [];
  const ctx = (signal?: AbortSignal) => toolContext(ws.workspace, signal, { undo });
  const read = (path: string): string => readFileSync(join(ws.root, path), 'utf8');
  const latest = async () => (await undo.log.latest('session-1'))!;

  beforeEach(() => {
    ws = tempWorkspace({ 'a.txt': 'one\n', 'b.txt': 'bee\n' });
    data = mkdtempSync(join(tmpdir(), 'crow-data-'));
    snapshots = new GatedSnapshots({ workspace: ws.root, dataHome: data });
    undo = new SessionUndo({ root: ws.root, dataHome: data, env: process.env, snapshots });
    notices.length = 0;
    point = undo.begin({ sessionId: 'session-1', prompt: 'Change things', notify: (_level, message) => notices.push(message) });
  });
  afterEach(async () => {
    await undo.close();
    ws.remove();
    rmSync(data, { recursive: true, force: true });
  });

  it('keeps just the file a write names, without waiting for the whole workspace', async () => {
    // The gate stays shut: a write that waited for the snapshot would never finish.
    const result = await writeFileTool.run(JSON.stringify({ path: 'a.txt', content: 'two\n' }), ctx());
    assert.equal(result.status, 'success');
    assert.match(result.metadata.diff!, /-one\n\+two/);
    const entry = await latest();
    assert.equal(entry.snapshot, undefined, 'the snapshot has not been needed');
    assert.deepEqual(entry.files.map((state) => state.path), ['a.txt']);

    await writeFileTool.run(JSON.stringify({ path: 'a.txt', content: 'three\n' }), ctx());
    await writeFileTool.run(JSON.stringify({ path: 'sub/new.txt', content: 'new\n' }), ctx());
    const plan = await planUndo(snapshots, await latest(), new AbortController().signal);
    assert.deepEqual(plan.changes.map(({ path, status }) => `${status} ${path}`).sort(), ['deleted sub/new.txt', 'modified a.txt']);
    await plan.apply(new AbortController().signal);
    assert.equal(read('a.txt'), 'one\n', 'the state before the first write of the prompt');
    assert.equal(existsSync(join(ws.root, 'sub')), false);
  });

  it('watches a command over the whole workspace once the snapshot is there, and lists what it changed', async () => {
    const running = bashTool.run(JSON.stringify({ command: 'echo hi > made.txt && rm a.txt' }), ctx());
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(existsSync(join(ws.root, 'made.txt')), false, 'the command waits for the snapshot');
    snapshots.open();
    const result = await running;
    assert.equal(result.status, 'success');
    assert.deepEqual([...result.metadata.filesModified].sort(), ['a.txt', 'made.txt']);
    assert.deepEqual((await latest()).commandPaths.sort(), ['a.txt', 'made.txt']);

    const plan = await planUndo(snapshots, await latest(), new AbortController().signal);
    await plan.apply(new AbortController().signal);
    assert.equal(read('a.txt'), 'one\n');
    assert.equal(existsSync(join(ws.root, 'made.txt')), false);
  });

  it('watches a write that names no files (an MCP tool) like a command', async () => {
    snapshots.open();
    const remote = defineTool({
      name: 'remote_write',
      description: 'Writes somewhere the call does not say.',
      kind: 'other',
      permission: 'write',
      parameters: z.object({}),
      execute: async () => {
        writeFileSync(join(ws.root, 'b.txt'), 'changed by the server\n');
        return { output: 'done' };
      },
    });
    const result = await remote.run('{}', ctx());
    assert.deepEqual(result.metadata.filesModified, ['b.txt']);
    assert.deepEqual((await latest()).commandPaths, ['b.txt']);
  });

  it('records what a command changed before it was cancelled', async () => {
    snapshots.open();
    const controller = new AbortController();
    const running = bashTool.run(JSON.stringify({ command: 'echo partial > half.txt; sleep 30' }), ctx(controller.signal));
    for (let i = 0; i < 200 && !existsSync(join(ws.root, 'half.txt')); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    controller.abort();
    const result = await running;
    assert.equal(result.status, 'cancelled');
    for (let i = 0; i < 200 && (await latest()).commandPaths.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.deepEqual((await latest()).commandPaths, ['half.txt']);
  });

  it('records nothing for reads, and a prompt that changed nothing has nothing to undo, even before its snapshot exists', async () => {
    // The gate stays shut: the run ends before its background snapshot was made (a quick answer), so there is no shadow repository yet.
    const result = await readFileTool.run(JSON.stringify({ path: 'a.txt' }), ctx());
    assert.equal(result.status, 'success');
    await point.started();
    const entry = await latest();
    assert.deepEqual([entry.files, entry.commandPaths], [[], []]);
    assert.ok(nothingToUndo(await planUndo(snapshots, entry, new AbortController().signal)));
  });
});

describe('the engine and undo', () => {
  it('tells undo a command is coming as soon as the model starts the call, before its arguments are in', async () => {
    const seen: string[] = [];
    const recorder: UndoRecorder = {
      beforeFileChanges: async (paths) => void seen.push(`files ${paths.join(',')}`),
      beforeCommand: async () => {
        seen.push('before command');
        return { changedFiles: async () => [] };
      },
      expectCommand: () => void seen.push('command expected'),
    };
    const ws = tempWorkspace({});
    try {
      const provider = new ScriptedProvider([
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }, { name: 'bash', arguments: { command: 'true' } }] },
        { text: 'Done.' },
      ]);
      const { result } = await runTurn(provider, [writeFileTool, bashTool], 'Go', { workspace: ws.workspace, undo: recorder });
      assert.equal(result.text, 'Done.');
      assert.deepEqual(seen, ['command expected', 'files a.txt', 'before command']);
    } finally {
      ws.remove();
    }
  });

  it('does not use a track started before a file changed: the command is blamed only for its own changes', async () => {
    const ws = tempWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const data = mkdtempSync(join(tmpdir(), 'crow-data-'));
    const undo = new SessionUndo({ root: ws.root, dataHome: data, env: process.env });
    try {
      await undo.begin({ sessionId: 's', prompt: 'p', notify: () => undefined }).settled();
      const ctx = toolContext(ws.workspace, undefined, { undo });
      undo.expectCommand();
      await writeFileTool.run(JSON.stringify({ path: 'a.txt', content: 'a2\n' }), ctx);
      const ran = await bashTool.run(JSON.stringify({ command: 'echo b2 > b.txt' }), ctx);
      assert.deepEqual(ran.metadata.filesModified, ['b.txt']);
    } finally {
      await undo.close();
      ws.remove();
      rmSync(data, { recursive: true, force: true });
    }
  });
});
