import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, type FSWatcher, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../../../src/journal/git-snapshots';
import { type TreeWatcher, type WatchMark, type WatchTreeOptions, watchTree } from '../../../src/journal/tree-watcher';
import { planUndo } from '../../../src/journal/restore-plan';
import { SessionUndo } from '../../../src/journal/session-undo';
import { bashTool } from '../../../src/tools/builtin/bash';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { toolContext } from '../tools/temp-workspace';

type Listener = (name: string | null) => void;

/** Node's folder watches, as the workspace watcher starts them, with a hook on each event they deliver. */
function watchWith(filter: (folder: string, name: string | null, deliver: Listener, watch: FSWatcher) => void): WatchTreeOptions {
  return {
    watchFolder: (folder, listener) => {
      const watched: FSWatcher = watch(folder, { persistent: false }, (_event, name) => filter(folder, typeof name === 'string' ? name : null, listener, watched));
      return watched;
    },
  };
}

/** Another process watching the work tree (a dev server): prints 'ready', then each changed path relative to the root, .git left out. */
const OTHER_WATCHER = `
const { watch } = require('fs');
const root = process.argv[1];
for (const folder of ['', 'src']) watch(root + '/' + folder, (event, name) => { if (name !== '.git') process.stdout.write((folder ? folder + '/' : '') + name + '\\n'); });
process.stdout.write('ready\\n');
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
  afterEach(async () => {
    await undo?.close();
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

  it('still undoes a command whose file events were lost (a watch failed): the tree is scanned instead', async () => {
    const answers: Array<string[] | 'unknown'> = [];
    let dropping = false;
    const failing = watchWith((_folder, name, deliver, watched) => {
      // What Node does when a watch breaks: an error on it, and the event never arrives.
      if (dropping && name === 'b.js') watched.emit('error', new Error('the watch failed'));
      else deliver(name);
    });
    start(recorded(() => watchTree(ws, failing), answers));
    await bash('echo a2 > src/a.js');
    await bash('echo a3 > src/a.js');
    dropping = true;
    await bash('echo b2 > src/b.js');
    await bash('echo c2 > src/c.js');
    assert.ok(answers.includes('unknown'));
    assert.ok(Array.isArray(answers[1]) && Array.isArray(answers[2]), JSON.stringify(answers));

    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
  });

  it("still undoes a command whose event the kernel dropped (its queue overflowed, which Node is never told): the burst is seen and the tree scanned", async () => {
    const answers: Array<string[] | 'unknown'> = [];
    let overflowing = false;
    // A queue of 400 events: a command making 300 files queues at least 600 (a creation and a write each).
    const options: WatchTreeOptions = {
      maxQueuedEvents: 400,
      ...watchWith((_folder, name, deliver) => {
        // The kernel drops what comes once its queue is full, and libuv drops the overflow event: nothing arrives.
        if (!(overflowing && name === 'b.js')) deliver(name);
      }),
    };
    start(recorded(() => watchTree(ws, options), answers));
    await bash('echo a2 > src/a.js');
    overflowing = true;
    await bash('mkdir gen && for i in $(seq 1 300); do echo $i > gen/$i.txt; done; echo b2 > src/b.js');
    overflowing = false;
    await bash('echo c2 > src/c.js');
    await bash('echo a3 > src/a.js');
    // One answer per command (each starts from the tree the one before it ended with), after the first snapshot's scan.
    assert.deepEqual(answers[1], ['src/a.js'], 'before the burst');
    assert.equal(answers[2], 'unknown', 'the stretch of the burst is scanned');
    assert.equal(answers[3], 'unknown', 'and the one after it, which may hold the rest of a full queue');
    assert.deepEqual(answers[4], ['src/a.js'], 'after that the watcher answers again');

    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
    assert.equal(existsSync(join(ws, 'gen')), false);
  });

  it('scans a stretch where the system could not name a changed file', async () => {
    const answers: Array<string[] | 'unknown'> = [];
    let unnamed = false;
    start(recorded(() => watchTree(ws, watchWith((_folder, name, deliver) => deliver(unnamed && name === 'b.js' ? null : name))), answers));
    await bash('echo a2 > src/a.js');
    unnamed = true;
    await bash('echo b2 > src/b.js');
    assert.equal(answers.at(-1), 'unknown');
    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js')], ['a1\n', 'b1\n']);
  });

  it('scans, and stops waiting, when the sync file never comes back through the watcher', async () => {
    const answers: Array<string[] | 'unknown'> = [];
    // A watch on .git that says nothing.
    const syncFiles = new Set<string>();
    const blind = watchWith((folder, name, deliver) => {
      if (!folder.endsWith('/.git')) deliver(name);
      else if (name?.startsWith('crow-undo-sync-')) syncFiles.add(name);
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

  it("scans where the system's watch limit is reached, or the workspace has too many folders to watch", async () => {
    const limited: WatchTreeOptions = {
      watchFolder: () => {
        throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      },
    };
    assert.equal(await watchTree(ws, limited), undefined);
    assert.equal(await watchTree(ws, { maxFolders: 1 }), undefined);
    const notices: string[] = [];
    const snapshots = new GitSnapshotManager({ workspace: ws, dataHome: join(base, 'data'), watch: (root) => watchTree(root, limited) });
    undo = new SessionUndo({ root: ws, dataHome: join(base, 'data'), env: process.env, snapshots });
    // Only warnings count: on a loaded machine the scan may take long enough for the "Recording…" progress line (info).
    undo.begin({ sessionId: 's', prompt: 'Run commands', notify: (level, message) => void (level === 'warning' && notices.push(message)) });
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
