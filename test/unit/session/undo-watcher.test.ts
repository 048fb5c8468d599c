import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
    assert.ok(answers.some((answer) => Array.isArray(answer)), `the watcher answered at least once: ${JSON.stringify(answers)}`);
    assert.ok(!answers.some((answer) => Array.isArray(answer) && answer.some((path) => path.startsWith('.crow-undo-sync-'))));

    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
    assert.equal(existsSync(join(ws, 'gen/deep/new.js')), false);
    assert.equal(existsSync(join(ws, '.crow-undo-sync-')), false);
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

  it('scans as before where no watcher can run', async () => {
    start(async () => undefined);
    await bash('echo a2 > src/a.js && echo b2 > src/b.js');
    await bash('rm src/c.js');
    await undoAll();
    assert.deepEqual([read('src/a.js'), read('src/b.js'), read('src/c.js')], ['a1\n', 'b1\n', 'c1\n']);
  });
});
