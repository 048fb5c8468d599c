import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../../../src/journal/git-snapshots';
import { type TreeWatcher, watchTree } from '../../../src/journal/tree-watcher';

/**
 * A track the watcher answers edits the last tree at the named paths,
 * without git's index. Whatever changed, it must write the very tree a
 * track that scans the whole workspace writes, and list the files
 * `git diff-tree` lists between the two trees.
 */
describe('a track from the paths a watcher names', () => {
  let base: string;
  let ws: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-tree-edit-')));
    ws = join(base, 'ws');
    mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
    mkdirSync(join(ws, 'docs'));
    write('src/a.js', 'a1\n');
    write('src/b.js', 'b1\n');
    write('src/lib/deep.js', 'deep\n');
    write('docs/readme.md', '# docs\n');
    write('run.sh', '#!/bin/sh\n');
    write('.gitignore', 'build/\n*.log\n');
    write('tracked.log', 'tracked though ignored\n');
    execFileSync('git', ['init', '--quiet'], { cwd: ws });
    execFileSync('git', ['add', '-A'], { cwd: ws });
    execFileSync('git', ['add', '-f', 'tracked.log'], { cwd: ws });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const write = (path: string, text: string | Buffer): void => writeFileSync(join(ws, path), text);
  const sh = (script: string): void => void execFileSync('sh', ['-c', script], { cwd: ws });

  /**
   * Runs `body` with a manager that watches the workspace (each answer its watcher gave pushed to
   * `answers`; `watch` may stand between), closed afterwards.
   */
  async function withWatched(
    body: (watched: GitSnapshotManager, answers: Answers) => Promise<void>,
    { maxFileBytes, watch = (recording) => recording }: { maxFileBytes?: number; watch?: (recording: Watch) => Watch } = {},
  ): Promise<void> {
    const answers: Answers = [];
    const watched = new GitSnapshotManager({ workspace: ws, dataHome: join(base, 'watched'), ...(maxFileBytes ? { maxFileBytes } : {}), watch: watch(recorded(answers)) });
    try {
      await body(watched, answers);
    } finally {
      await watched.close();
    }
  }

  /** The tree a scan of the workspace records now. */
  const scannedTree = (maxFileBytes?: number): Promise<string> =>
    new GitSnapshotManager({ workspace: ws, dataHome: join(base, 'scanned'), ...(maxFileBytes ? { maxFileBytes } : {}) }).track();

  const changesOfKind: Array<[string, () => void]> = [
    ['a file changed', () => write('src/a.js', 'a2\n')],
    ['a file deleted', () => rmSync(join(ws, 'src/b.js'))],
    ['a file added in new nested folders', () => sh('mkdir -p gen/x/y && echo new > gen/x/y/new.js && echo top > gen/top.js')],
    ['a new file git ignores, and one in an ignored folder', () => sh('echo noise > debug.log && mkdir -p build/out && echo bin > build/out/app.js')],
    ['a tracked file that git ignores, changed', () => write('tracked.log', 'changed\n')],
    ['the executable bit set and cleared', () => (chmodSync(join(ws, 'src/a.js'), 0o755), chmodSync(join(ws, 'run.sh'), 0o644))],
    ['a symlink added, and one re-pointed', () => (symlinkSync('src/a.js', join(ws, 'link')), symlinkSync('nowhere', join(ws, 'src/dangling')))],
    ['a file replaced by a folder', () => sh('rm src/b.js && mkdir src/b.js && echo inner > src/b.js/inner.js')],
    ['a folder replaced by a file', () => sh('rm -r src/lib && echo flat > src/lib')],
    ['a folder renamed', () => renameSync(join(ws, 'src'), join(ws, 'source'))],
    ['a folder deleted whole', () => rmSync(join(ws, 'docs'), { recursive: true })],
    ['an empty folder made (git keeps none)', () => mkdirSync(join(ws, 'empty', 'deeper'), { recursive: true })],
    ['a file grown past the size cap', () => write('src/a.js', Buffer.alloc(3000, 'x'))],
    ['a nested repository made, with files in it', () => sh('mkdir -p vendor/lib && git -C vendor/lib init --quiet && echo v > vendor/lib/v.js')],
    ['a path beyond a symlink to a folder', () => sh('ln -s src alias && echo via > alias/via.js')],
    ['names with spaces, quotes, a tab and non-ASCII letters', () => sh("mkdir 'dir with space' && echo q > 'dir with space/it'\"'\"'s \"q\".js' && printf t > \"$(printf 'tab\\there')\" && echo u > 'ünï cödé.md'")],
    ['a folder with a file beside a folder of a similar name (git sorts folders as name/)', () => sh('mkdir -p sort/a && echo 1 > sort/a/x && echo 2 > sort/a.b && echo 3 > sort/a-b')],
  ];

  for (const [label, change] of changesOfKind) {
    it(`writes the tree a scan writes: ${label}`, () =>
      withWatched(async (watched, answers) => {
        await watched.track();
        const before = await watched.track();
        const index = statSync(join(watched.gitDir, 'index'));
        change();
        const after = await watched.track();
        assert.ok(Array.isArray(answers.at(-1)), `the watcher answered: ${JSON.stringify(answers)}`);
        const untouched = statSync(join(watched.gitDir, 'index'));
        assert.deepEqual([untouched.mtimeMs, untouched.ino], [index.mtimeMs, index.ino], 'the tree was written without the index');
        assert.equal(after, await scannedTree(2048), 'the same tree id as a scan');
        const listed = await watched.changes(before, after);
        const diffTree = execFileSync('git', ['--git-dir', watched.gitDir, 'diff-tree', '-r', '-z', '--name-status', '--no-renames', before, after])
          .toString()
          .split('\0')
          .filter((part) => part !== '');
        const expected: Array<{ path: string; status: string }> = [];
        for (let i = 0; i < diffTree.length; i += 2) {
          expected.push({ path: diffTree[i + 1]!, status: { A: 'added', D: 'deleted', M: 'modified', T: 'modified' }[diffTree[i]!]! });
        }
        assert.deepEqual(sorted(listed), sorted(expected));
      }, { maxFileBytes: 2048 }));
  }

  it("records a name with a line break (which git's line protocol cannot carry) through the index, as a scan does", () =>
    withWatched(async (watched, answers) => {
      await watched.track();
      const index = statSync(join(watched.gitDir, 'index'));
      write('src/two\nlines.js', 'hostile name\n');
      write('src/a.js', 'a2\n');
      const after = await watched.track();
      assert.ok(Array.isArray(answers.at(-1)) && answers.at(-1)!.includes('src/two\nlines.js'), JSON.stringify(answers));
      assert.notEqual(statSync(join(watched.gitDir, 'index')).mtimeMs, index.mtimeMs, 'the index recorded it, not an edit');
      assert.equal(after, await scannedTree());
    }));

  it('never takes a tree git cannot find for an empty folder: the track falls back and keeps every file', () =>
    withWatched(async (watched) => {
      const first = await watched.track();
      // The tree of src/ lost from the shadow's object store (a disk error, a hand-pruned repository).
      const src = execFileSync('git', ['--git-dir', watched.gitDir, 'rev-parse', `${first}:src`]).toString().trim();
      rmSync(join(watched.gitDir, 'objects', src.slice(0, 2), src.slice(2)), { force: true });
      write('src/a.js', 'a2\n');
      const after = await watched.track();
      assert.equal(after, await scannedTree());
    }));

  it('keeps recording correctly when a scan follows edited tracks (the index is behind the tree)', async () => {
    let lose = false;
    // From `lose` on, the watcher's answers are lost (an overflow): the track scans.
    const losing = (recording: Watch): Watch => async (root) => {
      const watcher = await recording(root);
      return watcher && { advance: async (previous) => (lose ? { ...(await watcher.advance(previous)), changed: 'unknown' } : watcher.advance(previous)), close: () => watcher.close() };
    };
    await withWatched(async (watched) => {
      await watched.track();
      write('src/a.js', 'a2\n');
      sh('mkdir -p gen && echo new > gen/n.js && rm src/b.js');
      await watched.track();
      lose = true;
      write('docs/readme.md', '# changed\n');
      const after = await watched.track();
      assert.equal(after, await scannedTree());
    }, { watch: losing });
  });
});

type Answers = Array<string[] | 'unknown'>;
type Watch = (root: string) => Promise<TreeWatcher | undefined>;

function recorded(answers: Answers): Watch {
  return async (root) => {
    const watcher = await watchTree(root);
    if (!watcher) return undefined;
    return {
      async advance(previous) {
        const answer = await watcher.advance(previous);
        answers.push(answer.changed);
        return answer;
      },
      close: () => watcher.close(),
    };
  };
}

function sorted<T extends { path: string }>(changes: T[]): T[] {
  return [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
