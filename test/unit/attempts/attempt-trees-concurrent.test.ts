/**
 * Attempts start side by side, so their worktrees are added at once: git
 * refuses now and then when two `git worktree add` run together in one
 * repository. Eight at once, ten times, must all be made.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AttemptTrees } from '../../../src/attempts/attempt-trees';

function git(cwd: string, ...args: string[]): void {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  assert.equal(run.status, 0, run.stderr);
}

describe('attempt worktrees added at once', function () {
  this.timeout(120_000);
  let repo: string;
  beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), 'crow-trees-')));
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'start');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('makes every one of eight worktrees started together, ten times over', async () => {
    for (let round = 0; round < 10; round++) {
      const trees = await AttemptTrees.prepare(repo, process.env, `round-${round}`);
      const added = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7, 8].map((n) => trees.add(n)));
      const refused = added.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
      assert.deepEqual(refused, [], `round ${round}`);
      for (const result of added) assert.ok(result.status === 'fulfilled' && existsSync(join(result.value, 'a.txt')));
      assert.deepEqual(await trees.removeAll(), []);
    }
  });
});
