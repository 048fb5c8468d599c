/**
 * "N files changed" at a run's end is a view of the prompt's journal,
 * through the real binary: a file a command changed counts, a file the
 * agent wrote and then put back does not, and `crow run`'s end line and
 * `crow acp`'s name exactly the files `crow undo` would put back.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { startAcp, startCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

describe('what a prompt changed, at the end of every run', function () {
  this.timeout(60_000);
  const suite = binarySuite('changes');
  const keys = (): Record<string, string> => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'off' });

  beforeEach(() => {
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', ...args], { cwd: suite.root, encoding: 'utf8' });
    for (const name of ['a', 'b']) writeFileSync(join(suite.root, `${name}.txt`), `${name}1\n`);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
  });

  async function crow(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const run = startCrow([...args, '--cwd', suite.root], isolatedEnv(suite.home, keys()), suite.root);
    run.child.stdin.end();
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
    const { code } = await run.exited;
    clearTimeout(timer);
    return { code, stdout: run.stdout(), stderr: run.stderr() };
  }

  const call = (name: string, args: Record<string, unknown>) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
  /** The agent writes a.txt and puts it back, a command changes b.txt, and the agent makes n.txt. */
  const work = () => [
    call('write_file', { path: 'a.txt', content: 'a2\n' }),
    call('write_file', { path: 'a.txt', content: 'a1\n' }),
    call('bash', { command: 'echo b2 > b.txt' }),
    call('write_file', { path: 'n.txt', content: 'new\nfile\n' }),
    { blocks: [{ type: 'text' as const, text: 'Done.' }] },
  ];

  it('crow run ends with the files the journal says changed, the same crow undo would put back', async () => {
    suite.llm.enqueue('anthropic', ...work());
    const run = await crow('run', 'Change the files', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /2 files changed \(\+3 −1\): b\.txt \+1 −1, n\.txt \+2 −0/);
    assert.doesNotMatch(run.stderr, /changed[^\n]*a\.txt/, 'a file written and put back is not changed');

    // crow undo's preview (no terminal to ask): exactly those files.
    const undo = await crow('undo');
    assert.equal(undo.code, 2, undo.stderr);
    const planned = [...undo.stdout.matchAll(/^\s*(restore|delete|recreate)\s+(\S+)/gm)].map((match) => match[2]).sort();
    assert.deepEqual(planned, ['b.txt', 'n.txt']);
  });

  it('crow run --json ends with run_complete carrying the journal\'s changes', async () => {
    suite.llm.enqueue('anthropic', ...work());
    const run = await crow('run', 'Change the files', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all', '--json');
    assert.equal(run.code, 0, run.stderr);
    const end = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; changes?: unknown }).find((line) => line.type === 'run_complete');
    assert.deepEqual(end?.changes, [
      { path: 'b.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'n.txt', status: 'added', added: 2, removed: 0 },
    ]);
  });

  it('crow acp tells the same count at the run\'s end', async () => {
    suite.llm.enqueue('anthropic', ...work());
    const agent = startAcp(suite.root, suite.home, keys(), { permission: () => 'allow_once' });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(suite.root);
      assert.equal((await agent.client.prompt(sessionId, 'Change the files')).stopReason, 'end_turn');
      const said = JSON.stringify(agent.client.updates(sessionId));
      assert.match(said, /2 files changed \(\+3 −1\): b\.txt \+1 −1, n\.txt \+2 −0/);
    } finally {
      await agent.stop();
    }
    assert.equal(readFileSync(join(suite.root, 'a.txt'), 'utf8'), 'a1\n');
  });
});
