import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileState, treeOf } from '../../../src/journal/file-states';

/**
 * treeOf writes a prompt's small trees (its "N files changed", every undo
 * and restore plan) in this process. Each must be the very tree git's own
 * update-index and write-tree make of the same states, or a diff against a
 * tree git wrote would show changes that are none; and a state git would
 * refuse to put in an index is refused here too.
 */
describe('a tree built from recorded file states', () => {
  let gitDir: string;

  beforeEach(() => {
    gitDir = join(realpathSync(mkdtempSync(join(tmpdir(), 'crow-tree-of-'))), 'shadow.git');
    git(['init', '--quiet', '--bare', gitDir]);
  });
  afterEach(() => rmSync(join(gitDir, '..'), { recursive: true, force: true }));

  const git = (args: string[], input?: string, env: NodeJS.ProcessEnv = {}): string =>
    execFileSync('git', args, { input, env: { ...process.env, GIT_DIR: gitDir, ...env }, encoding: 'utf8', stdio: 'pipe' });
  const blob = (text: string): string => git(['hash-object', '-w', '--stdin'], text).trim();
  /** The tree git writes from the same states, through an index of its own. */
  const gitsTree = (states: FileState[]): string => {
    const index = join(gitDir, 'index.test');
    const lines = states.flatMap((state) => ('absent' in state ? [] : [`${state.mode} ${state.blob}\t${state.path}\0`])).join('');
    rmSync(index, { force: true });
    if (lines !== '') git(['update-index', '-z', '--add', '--index-info'], lines, { GIT_INDEX_FILE: index });
    return git(['write-tree'], undefined, { GIT_INDEX_FILE: index }).trim();
  };

  it('is the tree git writes, whatever the names, modes and nesting', async () => {
    const one = blob('one\n');
    const two = blob('two\n');
    const states: FileState[] = [
      // Names git orders by bytes, a folder's as if it ended in "/": "a-b" < "a.b" < "a/" < "a0".
      { path: 'a0', mode: '100644', blob: one },
      { path: 'a/b/c.txt', mode: '100644', blob: two },
      { path: 'a.b', mode: '100755', blob: one },
      { path: 'a-b', mode: '120000', blob: two },
      { path: 'a/z', mode: '100644', blob: one },
      { path: 'gone.txt', absent: true },
      { path: 'ünïcode name.md', mode: '100644', blob: two },
      { path: 'deep/er/and/deeper/x', mode: '100755', blob: two },
    ];
    const ours = await treeOf(gitDir, states);
    assert.equal(ours, gitsTree(states));
    // Every object it named is in the repository, as git wrote it (fsck finds nothing wrong).
    assert.equal(git(['cat-file', '-t', ours]).trim(), 'tree');
    git(['fsck', '--strict', '--no-dangling']);
  });

  it('is git\'s empty tree for states that are all absent', async () => {
    const ours = await treeOf(gitDir, [{ path: 'x', absent: true }]);
    assert.equal(ours, gitsTree([]));
  });

  it('refuses what git refuses to put in an index, and writes nothing for it', async () => {
    const id = blob('x\n');
    const objects = git(['count-objects']);
    const refused: { path: string; mode?: string; blob?: string }[] = [
      { path: '../outside' },
      { path: 'a/../b' },
      { path: './a' },
      { path: '/absolute' },
      { path: 'a//b' },
      { path: 'trailing/' },
      { path: '.git/hooks/pre-commit' },
      { path: 'sub/.GIT/config' },
      { path: 'sub/.git./config' },
      { path: 'GIT~1/config' },
      { path: '.git::$INDEX_ALLOCATION/config' },
      { path: 'fine', mode: '160000' },
      { path: 'fine', mode: '40000' },
      { path: 'fine', blob: 'not-an-id' },
    ];
    for (const { path, mode = '100644', blob: oid = id } of refused) {
      await assert.rejects(treeOf(gitDir, [{ path, mode, blob: oid }]), /cannot be put in a tree/, `${path} ${mode} ${oid}`);
    }
    // A file and a folder at one path, as update-index refuses without --replace.
    await assert.rejects(
      treeOf(gitDir, [
        { path: 'a', mode: '100644', blob: id },
        { path: 'a/b', mode: '100644', blob: id },
      ]),
      /"a" is recorded both as a file and as the folder of "a\/b"/,
    );
    assert.equal(git(['count-objects']), objects, 'a refused tree left an object behind');
  });
});
