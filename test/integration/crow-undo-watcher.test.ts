/**
 * Undo with the session's file watcher, through the real binary: `crow run`
 * and `crow acp` whose commands were recorded from the watcher's paths
 * still exit by themselves (a live watch would keep Node running), `crow
 * undo` puts every command's files back, and nothing of Crow's is left in
 * the repository.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { startAcp, startCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

describe('crow run and crow undo with the undo watcher', function () {
  this.timeout(60_000);
  const suite = binarySuite('watch');

  beforeEach(() => {
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', ...args], { cwd: suite.root, encoding: 'utf8' });
    for (const name of ['a', 'b', 'c']) writeFileSync(join(suite.root, `${name}.txt`), `${name}1\n`);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
  });

  /** Runs the binary and fails if it has not exited by itself within 20 s. */
  async function crow(...args: string[]): Promise<{ code: number | null; stderr: string }> {
    const env = isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'off' });
    const run = startCrow([...args, '--cwd', suite.root], env, suite.root);
    run.child.stdin.end();
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
    const { code, signal } = await run.exited;
    clearTimeout(timer);
    assert.equal(signal, null, `crow ${args[0]} did not exit by itself: ${run.stderr()}`);
    return { code, stderr: run.stderr() };
  }

  const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });

  it('records three commands, exits by itself, and crow undo puts all their files back', async () => {
    suite.llm.enqueue(
      'anthropic',
      bash('echo a2 > a.txt'),
      bash('echo b2 > b.txt && mkdir -p gen && echo made > gen/new.txt'),
      bash('rm c.txt && echo a3 > a.txt'),
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const run = await crow('run', 'Change the files', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(suite.root, 'a.txt'), 'utf8'), 'a3\n');

    const undo = await crow('undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.deepEqual(
      ['a', 'b', 'c'].map((name) => readFileSync(join(suite.root, `${name}.txt`), 'utf8')),
      ['a1\n', 'b1\n', 'c1\n'],
    );
    assert.equal(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: suite.root, encoding: 'utf8' }), '');
    assert.deepEqual(readdirSync(join(suite.root, '.git')).filter((name) => name.includes('crow')), []);
  });

  it('crow acp exits when its client goes, after a prompt whose commands were recorded', async () => {
    suite.llm.enqueue('anthropic', bash('echo a2 > a.txt'), bash('echo b2 > b.txt'), { blocks: [{ type: 'text', text: 'Done.' }] });
    const agent = startAcp(suite.root, suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'off' }, { permission: () => 'allow_once' });
    const timer = setTimeout(() => agent.child.kill('SIGKILL'), 20_000);
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(suite.root);
      assert.equal((await agent.client.prompt(sessionId, 'Change the files')).stopReason, 'end_turn');
      assert.equal(await agent.stop(), 0, `crow acp did not exit by itself: ${agent.stderr()}`);
    } finally {
      clearTimeout(timer);
    }
    assert.equal(readFileSync(join(suite.root, 'b.txt'), 'utf8'), 'b2\n');
    const undo = await crow('undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.deepEqual(['a', 'b'].map((name) => readFileSync(join(suite.root, `${name}.txt`), 'utf8')), ['a1\n', 'b1\n']);
  });
});
