import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../../../src/session/git-snapshots';
import { type TreeWatcher, type WatchMark, watchTree } from '../../../src/session/tree-watcher';
import { planUndo } from '../../../src/session/undo-plan';
import { SessionUndo } from '../../../src/session/undo-point';
import { bashTool } from '../../../src/tools/builtin/bash';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { toolContext } from '../tools/temp-workspace';

type Native = Parameters<typeof watchTree>[1] extends (() => infer N) | undefined ? N : never;
type Callback = (err: Error | null, events: Array<{ path: string; type: string }>) => void;

/** The real native watcher, with a hook on the event batches it delivers. */
function nativeWith(filter: (err: Error | null, events: Array<{ path: string; type: string }>, deliver: Callback) => void): () => Native {
  const real = require('@parcel/watcher') as Native;
  return () => ({ subscribe: (dir, callback, options) => real.subscribe(dir, (err, events) => filter(err, events, callback), options) });
}

/** Another process watching the work tree (a dev server): prints 'ready', then each changed path relative to the root. */
const OTHER_WATCHER = `
const root = process.argv[1];
require(${JSON.stringify(require.resolve('@parcel/watcher'))})
  .subscribe(root, (err, events) => { for (const e of events) process.stdout.write(require('path').relative(root, e.path) + '\\n'); }, { ignore: ['.git'] })
  .then(() => process.stdout.write('ready\\n'));
`;

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(done(), 'timed out waiting');
}

/** Tells what each advance answered. */
function recorded(start: () => Promise<TreeWatcher | undefined>, answers: Array<string[] | 'unknown'>): () => Promise<TreeWatcher | undefined> {
  return async () => {
    const watcher = await start();
    if (!watcher) return undefined;
    return {
      async advance(previous: WatchMark | undefined) {
        const answer = await watcher.advance(previous);
        answers.push(answer.changed);
        return answer;
      },
      close: () => watcher.close(),
    };
  };
}

describe('undo with a watcher on the workspace', () => {
  let base: string;
  let ws: string;
  let undo: SessionUndo;
  const signal = new AbortController().signal;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-undo-watch-')));
    ws = join(base, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    for (const name of ['a', 'b', 'c']) writeFileSync(join(ws, 'src', `${name}.js`), `${name}1\n`);
    // The top of a git work tree: its .git folder takes the watcher's sync files.
    execFileSync('git', ['init', '--quiet'], { cwd: ws });
  });
  afterEach(() => {
    undo?.close();
    rmSync(base, { recursive: true, force: true });
  });

  function start(watch: (root: string) => Promise<TreeWatcher | undefined>): void {
    const snapshots = new GitSnapshotManager({ workspace: ws, dataHome: join(base, 'data'), watch });
    undo = new SessionUndo({ root: ws, dataHome: join(base, 'data'), env: process.env, snapshots });
    undo.begin({ sessionId: 's', prompt: 'Run commands', notify: () => undefined });
  }
  const bash = async (command: string) => assert.equal((await bashTool.run(JSON.stringify({ command }), toolContext(new NodeWorkspace(ws), signal, { undo }))).status, 'success');
  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');
  async function undoAll(): Promise<void> {
    await (await planUndo(undo.snapshots, (await undo.log.latest('s'))!, signal)).apply(signal);
  }

  it('records later commands from the paths the watcher names, new folders and deletions included', async () => {
    const answers: Array<string[] | 'unknown'> = [];
    start(recorded(() => watchTree(ws), answers));
    await bash('echo a2 > src/a.js');
    await bash('echo b2 > src/b.js');
    await bash('mkdir -p gen/deep && echo made > gen/deep/new.js && rm src/c.js');
    await bash('echo a3 > src/a.js');
    // The watcher listens from the session's first snapshot on: only that one scans the tree, every later track asks git about the paths named.
    assert.equal(answers[0], 'unknown');
    assert.ok(answers.length >= 3 && answers.slice(1).every((answer) => Array.isArray(answer)), JSON.stringify(answers));
    const named = new Set(answers.slice(1).flat());
    assert.ok(['src/a.js', 'src/b.js', 'src/c.js', 'gen'].every((path) => named.has(path)), [...named].join());
    // The new folder may be named with what was made in it before its own watch began: nothing else.
    assert.deepEqual([...named].filter((path) => !/^(src\/[abc]\.js|gen(\/deep(\/new\.js)?)?)$/.test(path)), []);

    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
    assert.equal(existsSync(join(ws, 'gen/deep/new.js')), false);
  });

  it('scans when a .gitignore changed: files no event names may have come into view', async () => {
    writeFileSync(join(ws, '.gitignore'), 'build/\n');
    mkdirSync(join(ws, 'build'));
    writeFileSync(join(ws, 'build', 'out.txt'), 'built before the prompt\n');
    const answers: Array<string[] | 'unknown'> = [];
    start(recorded(() => watchTree(ws), answers));
    await bash('echo a2 > src/a.js');
    await bash('echo > .gitignore');
    await bash('echo b2 > src/b.js');
    assert.ok(Array.isArray(answers[1]), JSON.stringify(answers));
    assert.equal(answers[2], 'unknown', 'the track after the .gitignore change scans');
    assert.ok(Array.isArray(answers[3]), JSON.stringify(answers));
  });

  it('writes nothing a watcher of the work tree could see, and leaves no file in .git', async () => {
    // What a dev server or an editor does, in a process of its own: watch the work tree, .git left out.
    const other = spawn(process.execPath, ['-e', OTHER_WATCHER, ws], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    other.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until(() => out.startsWith('ready\n'));
      const answers: Array<string[] | 'unknown'> = [];
      start(recorded(() => watchTree(ws), answers));
      await bash('echo a2 > src/a.js');
      await bash('echo b2 > src/b.js');
      assert.ok(answers.slice(1).every((answer) => Array.isArray(answer)), JSON.stringify(answers));
      await until(() => out.includes('src/b.js'));
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      other.kill();
    }
    const seen = out.split('\n').slice(1).filter((line) => line !== '');
    assert.deepEqual([...new Set(seen)].sort(), ['src/a.js', 'src/b.js']);
    assert.deepEqual(readdirSync(join(ws, '.git')).filter((name) => name.includes('crow')), []);
  });

  it('scans where the workspace has no .git folder for the sync file', async () => {
    rmSync(join(ws, '.git'), { recursive: true });
    assert.equal(await watchTree(ws), undefined);
    start(() => watchTree(ws));
    await bash('echo a2 > src/a.js');
    await bash('rm src/b.js');
    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js')], ['a1\n', 'b1\n']);
  });

  it('still undoes a command whose file events were lost (the queue overflowed): the tree is scanned instead', async () => {
    const answers: Array<string[] | 'unknown'> = [];
    let dropping = false;
    const overflowing = nativeWith((err, events, deliver) => {
      const kept = events.filter((event) => !(dropping && event.path.endsWith('b.js')));
      // What a watcher says when its queue overflowed: events were dropped.
      deliver(kept.length < events.length ? new Error('Events were dropped: the queue overflowed') : err, kept);
    });
    start(recorded(() => watchTree(ws, overflowing), answers));
    await bash('echo a2 > src/a.js');
    await bash('echo a3 > src/a.js');
    dropping = true;
    await bash('echo b2 > src/b.js');
    await bash('echo c2 > src/c.js');
    assert.ok(answers.includes('unknown'));

    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
  });

  it('scans, and stops waiting, when the sync file never comes back through the watcher', async () => {
    const answers: Array<string[] | 'unknown'> = [];
    // A watch that says nothing of .git (another watch of this process on the same folder without it can do that).
    const syncFiles = new Set<string>();
    const blind = nativeWith((err, events, deliver) => {
      for (const event of events) if (event.path.includes('/.git/crow-undo-sync-')) syncFiles.add(event.path);
      deliver(err, events.filter((event) => !event.path.includes('/.git/')));
    });
    start(recorded(() => watchTree(ws, blind), answers));
    await bash('echo a2 > src/a.js');
    await bash('echo b2 > src/b.js');
    await bash('rm src/c.js');
    assert.deepEqual(answers, ['unknown', 'unknown', 'unknown', 'unknown']);
    assert.equal(syncFiles.size, 1, 'after one sync file that did not come back, none is written and waited for');
    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
  });

  it('scans where the native watcher is not installed (the VS Code extension ships no node_modules)', async () => {
    const missing = (): Native => {
      throw Object.assign(new Error("Cannot find module '@parcel/watcher'"), { code: 'MODULE_NOT_FOUND' });
    };
    assert.equal(await watchTree(ws, missing), undefined);
    const notices: string[] = [];
    const snapshots = new GitSnapshotManager({ workspace: ws, dataHome: join(base, 'data'), watch: (root) => watchTree(root, missing) });
    undo = new SessionUndo({ root: ws, dataHome: join(base, 'data'), env: process.env, snapshots });
    undo.begin({ sessionId: 's', prompt: 'Run commands', notify: (_level, message) => notices.push(message) });
    await bash('echo a2 > src/a.js');
    await bash('rm src/b.js');
    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js')], ['a1\n', 'b1\n']);
    assert.deepEqual(notices, [], 'no error is shown');
  });

  it('scans as before where no watcher can run', async () => {
    start(async () => undefined);
    await bash('echo a2 > src/a.js && echo b2 > src/b.js');
    await bash('rm src/c.js');
    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
  });
});
