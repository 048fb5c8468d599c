import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../src/testing/fake-llm-server';
import { runCrow, startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** Every file and folder under `root` (itself excluded) whose mode lets the group or others in, as "path mode". */
function shared(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) continue;
      if ((stats.mode & 0o077) !== 0) found.push(`${path.slice(root.length)} ${(stats.mode & 0o777).toString(8)}`);
      if (stats.isDirectory()) walk(path);
    }
  };
  walk(root);
  return found;
}

/** Another local user reading what crow stored: sessions, traces, undo snapshots, logs, exports. */
describe('crow keeps its data, state and logs private', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    llm = await FakeLlmServer.start();
  });
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-private-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-private-ws-'));
    writeFileSync(join(workspace, 'notes.txt'), 'secret plans\n');
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it('after crow run (with undo), crow acp and crow sessions export, nothing is readable by group or others', async () => {
    const exports = join(home, 'exports');
    llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'plan.md', content: '# Plan\n' } }] },
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'cat notes.txt' } }] },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const run = await runCrow(['run', 'Write the plan', '--allow', 'write,execute', '--provider', 'anthropic'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    const acp = await runCrow(['acp'], env, workspace);
    assert.equal(acp.code, 0, acp.stderr);
    const list = await runCrow(['sessions', 'list', '--cwd', workspace], env, workspace);
    const id = /^(\S+)/.exec(list.stdout.trim().split('\n').at(-1)!)![1]!;
    const exported = await runCrow(['sessions', 'export', id, '--out', exports], env, workspace);
    assert.equal(exported.code, 0, exported.stderr);

    const data = join(home, 'data', 'crow-agent');
    assert.ok(readdirSync(join(data, 'sessions')).length === 1, 'the session was stored');
    assert.ok(readdirSync(join(data, 'snapshots')).length === 1, 'the workspace was recorded for undo');
    assert.ok(readdirSync(join(data, 'undo')).length === 1, 'the undo log was written');
    assert.ok(readdirSync(join(home, 'state', 'crow-agent', 'logs')).length === 1, 'crow acp logged');
    assert.deepEqual(shared(join(home, 'data')), []);
    assert.deepEqual(shared(join(home, 'state')), []);
    assert.deepEqual(shared(exports), []);
  });
  it('crow trace --serve prints a URL with a token, and answers nothing to a local process without it', async () => {
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
    assert.equal((await runCrow(['run', 'Hello', '--provider', 'anthropic'], env, workspace)).code, 0);
    const [id] = readdirSync(join(home, 'data', 'crow-agent', 'sessions'));
    const serving = startCrow(['trace', id!, '--serve'], env, workspace);
    try {
      await until(() => /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.test(serving.stderr()), `the URL; stderr:\n${serving.stderr()}`);
      assert.match(serving.stderr(), /Open that URL in a browser/);
      const url = new URL(/(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(serving.stderr())![1]!);
      for (const path of ['/spans', '/events', '/']) assert.equal((await fetch(`${url.origin}${path}`)).status, 401, path);
      const spans = await fetch(`${url.origin}/spans?token=${url.searchParams.get('token')}`);
      assert.equal(spans.status, 200);
      assert.ok(((await spans.json()) as unknown[]).length > 0);
    } finally {
      serving.child.kill('SIGINT');
      await serving.exited;
    }
  });
});
