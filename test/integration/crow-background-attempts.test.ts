/**
 * Background attempts picked later, through the binary: `crow run
 * --background --attempts 3` keeps its ranking and each attempt's patch
 * beside its record; `crow sessions show ID` shows the ranking and how to
 * pick; `crow sessions apply ID N` applies attempt N through the folder's
 * session (so `crow undo` takes it back), once. Refused, saying what to
 * do: an attempt that changed nothing, one whose changes no longer fit the
 * files, a run of another folder; and what the run kept, when altered to
 * write outside the folder or into .git/, replaced by a symlink, or made
 * huge, applies nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { isolatedEnv } from '../support/isolated-env';
import { ORIGINAL, WRITES, git, greeterRepository, scriptAttempts } from '../support/attempts-fixture';
import { runCrow } from '../support/crow-binary';

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

describe('crow run --background --attempts: a finished run keeps its attempts, and crow sessions apply picks one later', function () {
  this.timeout(180_000);
  let server: FakeLlmServer;
  let home: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let id: string;
  const crow = (...args: string[]) => runCrow(args, env, repo);
  const folder = (): string => join(home, 'data', 'crow-agent', 'background', id);

  before(async () => {
    server = await FakeLlmServer.start();
    home = mkdtempSync(join(tmpdir(), 'crow-bg-attempts-'));
    repo = join(home, 'project');
    greeterRepository(repo);
    writeFileSync(join(repo, 'check.js'), "if (require('./greet.js')() !== 'hello') process.exit(1);\n");
    git(repo, 'add', 'check.js');
    git(repo, 'commit', '-qm', 'check');
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    scriptAttempts(server, '{"ranking": [{"attempt": 3, "reason": "Correct, and documented."}, {"attempt": 1, "reason": "Correct but bare."}, {"attempt": 2, "reason": "Wrong word."}]}');
    const run = await crow('run', '--background', '--attempts', '3', '--concurrency', '3', '--check', 'node check.js', '--provider', 'anthropic', 'Make greet.js say hello');
    assert.equal(run.code, 0, run.stderr);
    id = run.stdout.trim();
    await waitFor('the attempts to end', async () => {
      const shown = await crow('sessions', 'show', id);
      return /background run (finished|failed)/.test(shown.stdout) ? true : undefined;
    });
  });
  after(async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps the ranking and each patch (0600), shows how to pick, applies attempt 2 once, and crow undo takes it back', async () => {
    const shown = await crow('sessions', 'show', id);
    assert.match(shown.stdout, /Attempts, best first, ranked by the judge/);
    assert.match(shown.stdout, new RegExp(`Apply one with: crow sessions apply ${id} N \\(N: 3, 1, 2, best first\\)`));
    for (const name of ['attempts.json', 'attempt-1.patch', 'attempt-2.patch', 'attempt-3.patch']) assert.equal(statSync(join(folder(), name)).mode & 0o777, 0o600, name);
    const kept = JSON.parse(readFileSync(join(folder(), 'attempts.json'), 'utf8')) as { base: string; attempts: { n: number; check?: { passed: boolean } }[] };
    assert.match(kept.base, /^[0-9a-f]{40}$/);
    assert.equal(kept.attempts.find((one) => one.n === 2)?.check?.passed, false);
    // The worktrees are gone: the patches are what is left to pick from.
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length, 1);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);

    const applied = await crow('sessions', 'apply', id.slice(0, 8), '2');
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stderr, /Applied attempt 2: 1 file changed\. Undo with crow undo\./);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[2]);
    assert.match((await crow('sessions', 'show', id)).stdout, /Attempt 2 was applied \(crow undo takes it back\)/);

    const twice = await crow('sessions', 'apply', id, '1');
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /already applied \(attempt 2\): crow undo takes it back/);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[2]);

    const undo = await crow('undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
  });

  it('refuses an attempt that is not there, one that no longer fits the files, a run of another folder, and a run still running', async () => {
    rmSync(join(folder(), 'attempts-applied.json'), { force: true });
    const none = await crow('sessions', 'apply', id, '7');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /There is no attempt 7: the run had 1, 2, 3\. Attempts with changes: 3, 1, 2\./);
    const bad = await crow('sessions', 'apply', id, 'two');
    assert.match(bad.stderr, /"two" is not an attempt number/);

    writeFileSync(join(repo, 'greet.js'), "module.exports = () => 'hey there';\n");
    const moved = await crow('sessions', 'apply', id, '1');
    assert.equal(moved.code, 1);
    assert.match(moved.stderr, /Attempt 1 was not applied: The attempt's changes no longer apply to your files/);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), "module.exports = () => 'hey there';\n");
    assert.ok(!existsSync(join(folder(), 'attempts-applied.json')), 'a failed apply does not count as applied');
    writeFileSync(join(repo, 'greet.js'), ORIGINAL);

    const elsewhere = await runCrow(['sessions', 'apply', id, '1'], env, home);
    assert.equal(elsewhere.code, 2);
    assert.match(elsewhere.stderr, new RegExp(`ran in ${repo}: apply it there`));

    // A run still running (its process alive, its command line naming its id) is not picked from.
    const running = randomUUID();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', running], { stdio: 'ignore' });
    try {
      mkdirSync(join(home, 'data', 'crow-agent', 'background', running));
      writeFileSync(join(home, 'data', 'crow-agent', 'background', running, 'background.json'), JSON.stringify({ id: running, pid: child.pid, cwd: repo, prompt: 'Still going', attempts: 2, startedAt: Date.now() }));
      const early = await crow('sessions', 'apply', running, '1');
      assert.equal(early.code, 2);
      assert.match(early.stderr, new RegExp(`Run ${running} is still running: pick an attempt once it ends`));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('applies nothing from a kept patch altered to write outside the folder or into .git/, a symlinked one, or a huge one', async () => {
    const patch = join(folder(), 'attempt-1.patch');
    const original = readFileSync(patch, 'utf8');
    const outside = 'diff --git a/../escaped.js b/../escaped.js\nnew file mode 100644\n--- /dev/null\n+++ b/../escaped.js\n@@ -0,0 +1 @@\n+owned\n';
    const intoGit = 'diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+touch owned\n';
    for (const [what, text, expected] of [
      ['outside', outside, /"\.\.\/escaped\.js" is outside the workspace/],
      ['.git', intoGit, /\.git\/hooks\/pre-commit, a protected path/],
    ] as const) {
      writeFileSync(patch, text);
      const run = await crow('sessions', 'apply', id, '1');
      assert.notEqual(run.code, 0, what);
      assert.match(run.stderr, expected, what);
      assert.ok(!existsSync(join(home, 'escaped.js')) && !existsSync(join(repo, '.git', 'hooks', 'pre-commit')), what);
      assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL, what);
    }

    rmSync(patch);
    const elsewhere = join(home, 'planted.patch');
    writeFileSync(elsewhere, original);
    symlinkSync(elsewhere, patch);
    const linked = await crow('sessions', 'apply', id, '1');
    assert.equal(linked.code, 2);
    assert.match(linked.stderr, /Attempt 1's kept patch \(attempt-1\.patch\) is a symlink, so nothing was applied/);

    rmSync(patch);
    writeFileSync(patch, `${original}${'+'.repeat(17 * 1024 * 1024)}`);
    const huge = await crow('sessions', 'apply', id, '1');
    assert.equal(huge.code, 2);
    assert.match(huge.stderr, /Attempt 1's kept patch \(attempt-1\.patch\) is too large \(\d+ bytes; at most 16777216 are read\)/);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
    writeFileSync(patch, original);

    // The result itself: altered into something else, or replaced by a symlink.
    const result = join(folder(), 'attempts.json');
    const kept = readFileSync(result, 'utf8');
    writeFileSync(result, kept.replace(/"base":"[0-9a-f]+"/, '"base":"HEAD; rm -rf ~"'));
    const forged = await crow('sessions', 'apply', id, '1');
    assert.equal(forged.code, 2);
    assert.match(forged.stderr, /What run .* kept does not read: its attempts\.json has no base commit\. Nothing was applied\./);
    rmSync(result);
    writeFileSync(join(home, 'planted.json'), kept);
    symlinkSync(join(home, 'planted.json'), result);
    const linkedResult = await crow('sessions', 'apply', id, '1');
    assert.match(linkedResult.stderr, /its attempts\.json is a symlink/);
    assert.match((await crow('sessions', 'show', id)).stdout, /What the run kept does not read \(its attempts\.json is a symlink\): its attempts cannot be picked\./);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
  });
});
