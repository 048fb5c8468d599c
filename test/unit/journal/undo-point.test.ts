import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../../../src/journal/git-snapshots';
import { planUndo, type UndoPlan } from '../../../src/journal/restore-plan';
import { SessionUndo } from '../../../src/journal/session-undo';
import type { UndoPoint } from '../../../src/journal/undo-point';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { bashTool } from '../../../src/tools/builtin/bash';
import { writeFileTool } from '../../../src/tools/builtin/write-file';
import { GatedSnapshots } from '../../support/gated-snapshots';
import { toolContext } from '../tools/temp-workspace';

describe('undo points', () => {
  let base: string;
  let ws: string;
  let data: string;
  let notices: string[];
  let undo: SessionUndo;
  let point: UndoPoint;
  const signal = new AbortController().signal;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-undo-point-')));
    ws = join(base, 'ws');
    data = join(base, 'data');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src/a.js'), 'a1\n');
    writeFileSync(join(ws, 'src/b.js'), 'b1\n');
    writeFileSync(join(ws, 'notes.md'), 'mine\n');
    notices = [];
  });
  afterEach(async () => {
    await undo?.close();
    rmSync(base, { recursive: true, force: true });
  });

  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');
  const write = (path: string, text: string): void => writeFileSync(join(ws, path), text);
  const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd: ws, encoding: 'utf8' });

  function start(options: { snapshots?: GitSnapshotManager; trackTimeoutMs?: number } = {}): void {
    undo = new SessionUndo({ root: ws, dataHome: data, env: process.env, ...(options.snapshots ? { snapshots: options.snapshots } : {}) });
    point = undo.begin({
      sessionId: 's',
      prompt: 'Do the work',
      ...(options.trackTimeoutMs !== undefined ? { trackTimeoutMs: options.trackTimeoutMs } : {}),
      notify: (_level, message) => notices.push(message),
    });
  }
  const tools = () => toolContext(new NodeWorkspace(ws), signal, { undo });
  const writeFile = (path: string, content: string) => writeFileTool.run(JSON.stringify({ path, content }), tools());
  const bash = (command: string) => bashTool.run(JSON.stringify({ command }), tools());
  async function plan(): Promise<UndoPlan> {
    return planUndo(undo.snapshots, (await undo.log.latest('s'))!, signal);
  }
  const listed = (undoPlan: UndoPlan): string[] => undoPlan.changes.map(({ path, status }) => `${status} ${path}`).sort();

  it('puts back what the prompt changed and nothing else: your edits during the prompt stay', async () => {
    start();
    await writeFile('src/a.js', 'a2\n');
    await bash('echo b2 > src/b.js && echo gen > src/gen.js');
    write('notes.md', 'mine, edited while the agent worked\n');
    write('scratch.txt', 'made by me\n');

    const undoPlan = await plan();
    assert.deepEqual(listed(undoPlan), ['deleted src/gen.js', 'modified src/a.js', 'modified src/b.js']);
    await undoPlan.apply(signal);
    assert.deepEqual([read('src/a.js'), read('src/b.js'), existsSync(join(ws, 'src/gen.js'))], ['a1\n', 'b1\n', false]);
    assert.equal(read('notes.md'), 'mine, edited while the agent worked\n');
    assert.equal(read('scratch.txt'), 'made by me\n');
  });

  it('takes each file from its first change in the prompt: a write first, then a command', async () => {
    start();
    await writeFile('src/a.js', 'a2\n');
    await bash('echo a3 > src/a.js');
    await (await plan()).apply(signal);
    assert.equal(read('src/a.js'), 'a1\n');
  });

  it('takes each file from its first change in the prompt: a command first, then a write', async () => {
    start();
    await bash('echo a2 > src/a.js');
    await writeFile('src/a.js', 'a3\n');
    const entry = (await undo.log.latest('s'))!;
    assert.deepEqual(entry.files, [], 'the write found the file already recorded');
    await (await plan()).apply(signal);
    assert.equal(read('src/a.js'), 'a1\n');
  });

  it('lets commands run unrecorded when the workspace cannot be recorded in time, says so once, and still undoes file edits', async () => {
    const snapshots = new GatedSnapshots({ workspace: ws, dataHome: data });
    start({ snapshots, trackTimeoutMs: 200 });
    await writeFile('src/a.js', 'a2\n');
    const first = await bash('echo b2 > src/b.js');
    const second = await bash('echo c > src/c.js');
    assert.deepEqual([first.status, second.status], ['success', 'success']);
    const warnings = notices.filter((notice) => notice.startsWith('Undo:'));
    assert.equal(warnings.length, 1, notices.join('\n'));
    assert.match(warnings[0]!, /too large to record in 200 ms, so what commands change in this prompt cannot be undone; file edits still can\. Raise \[undo\] track_timeout_ms/);

    snapshots.open();
    await point.settled();
    const undoPlan = await plan();
    assert.deepEqual(undoPlan.gaps, ['commands were not recorded: this folder is too large to record in 200 ms']);
    assert.equal((await undo.log.latest('s'))!.snapshot, undefined, 'a snapshot finished after commands ran is not the state before the prompt');
    await undoPlan.apply(signal);
    assert.equal(read('src/a.js'), 'a1\n');
    assert.equal(read('src/b.js'), 'b2\n', 'not recorded, so not touched');
  });

  it("puts back the user's git index after the agent's git add", async () => {
    git('init', '--quiet');
    git('add', 'src');
    git('commit', '--quiet', '-m', 'start');
    write('notes.md', 'staged by me\n');
    git('add', 'notes.md');
    const staged = git('diff', '--cached', '--name-only');
    start();
    await bash('echo a2 > src/a.js && git add -A');
    assert.notEqual(git('diff', '--cached', '--name-only'), staged);

    const undoPlan = await plan();
    assert.equal(undoPlan.userIndex, join(ws, '.git', 'index'));
    await undoPlan.apply(signal);
    assert.equal(git('diff', '--cached', '--name-only'), staged, 'what the user had staged, and only that');
    assert.equal(read('src/a.js'), 'a1\n');
    assert.equal(git('status', '--porcelain'), 'A  notes.md\n');
  });

  it("keeps the user's index without touching its mode, and says so rather than putting back a wrong one when a command rewrote it in place", async () => {
    git('init', '--quiet');
    git('add', 'src');
    git('commit', '--quiet', '-m', 'start');
    const index = join(ws, '.git', 'index');
    const before = statSync(index);
    start();
    // git writes a new index and renames it over the old; this command writes over the old file's own bytes (as isomorphic-git does).
    writeFileSync(join(base, 'rewrite.sh'), 'GIT_INDEX_FILE=.git/other git read-tree HEAD && GIT_INDEX_FILE=.git/other git add notes.md && cat .git/other > .git/index && rm .git/other\n');
    const ran = await bash(`sh ${join(base, 'rewrite.sh')}`);
    assert.equal(ran.status, 'success', JSON.stringify(ran));
    assert.equal(statSync(index).ino, before.ino, 'written in place');
    assert.equal(statSync(index).mode, before.mode, "the index's mode is still the user's own");
    assert.equal(git('diff', '--cached', '--name-only'), 'notes.md\n');

    const undoPlan = await plan();
    assert.equal(undoPlan.userIndex, undefined, 'no index is put back: what was kept is no longer the index before the command');
    assert.ok(undoPlan.gaps.some((gap) => /git index was rewritten in place/.test(gap)), `the plan says why: ${JSON.stringify(undoPlan.gaps)}`);
  });

  it("puts back the user's git index as their git can trust it: a file changed in the second of their git add still shows as changed", async () => {
    // git compares times in whole seconds and re-reads a file matching its entry only when the entry is as new as the index file.
    const second = (): number => Math.floor(Date.now() / 1000);
    const nextSecond = async (after: number): Promise<void> => {
      while (second() === after) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    git('init', '--quiet');
    while (Date.now() % 1000 > 400) await new Promise((resolve) => setTimeout(resolve, 20));
    const added = second();
    write('same.txt', 'x1\n');
    git('add', 'same.txt');
    write('same.txt', 'x2\n');
    assert.equal(second(), added, 'the add and the change fell in one second');
    assert.equal(git('diff', '--name-only'), 'same.txt\n');
    await nextSecond(added);
    start();
    await bash('git add -A');
    assert.equal(git('diff', '--name-only'), '');
    await nextSecond(second());
    await (await plan()).apply(signal);
    assert.equal(git('diff', '--name-only'), 'same.txt\n', 'the change git add had not staged is seen again');
  });

  it('starts the shadow index from the repository, so a file git is told to skip is still recorded', async () => {
    git('init', '--quiet');
    git('add', '.');
    git('commit', '--quiet', '-m', 'start');
    git('update-index', '--assume-unchanged', 'src/a.js');
    start();
    await point.settled();
    assert.ok(existsSync(join(undo.snapshots.gitDir, 'objects', 'info', 'alternates')), 'blobs come from the repository');
    await bash('echo a2 > src/a.js');
    assert.deepEqual((await undo.log.latest('s'))!.commandPaths, ['src/a.js']);
    await (await plan()).apply(signal);
    assert.equal(read('src/a.js'), 'a1\n');
  });

  it("closing waits for the snapshot's git to be gone, so nothing writes in crow's data after the session closed", async () => {
    const bin = join(base, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho $$ > "${join(base, 'git.pid')}"\nexec sleep 30\n`, { mode: 0o755 });
    undo = new SessionUndo({ root: ws, dataHome: data, env: { PATH: `${bin}:/usr/bin:/bin` } });
    undo.begin({ sessionId: 's', prompt: 'p', notify: () => undefined });
    // The snapshot before the prompt starts beside the model's first call, and is still running when the session closes.
    undo.beforeModelCall();
    const deadline = Date.now() + 10_000;
    while (!existsSync(join(base, 'git.pid')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const pid = Number(readFileSync(join(base, 'git.pid'), 'utf8'));
    await undo.close();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'git is gone once close() resolved');
  });

  it('tells once when undo cannot work at all, and the tools still run', async () => {
    undo = new SessionUndo({ root: ws, dataHome: data, env: { PATH: join(base, 'no-git-here') } });
    point = undo.begin({ sessionId: 's', prompt: 'p', notify: (_level, message) => notices.push(message) });
    const wrote = await writeFile('src/a.js', 'a2\n');
    const ran = await bash('echo b2 > src/b.js');
    assert.deepEqual([wrote.status, ran.status], ['success', 'success']);
    assert.equal(read('src/a.js'), 'a2\n');
    assert.match(String(wrote.metadata.extra.undoError), /git was not found/);
    assert.ok(notices.some((notice) => /Undo: file changes could not be recorded \(git was not found/.test(notice)), notices.join('\n'));
    assert.ok(notices.some((notice) => /Undo: the workspace could not be recorded \(git was not found/.test(notice)), notices.join('\n'));
  });
});
