import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow, startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { skipBecause } from '../support/skip-reasons';
import { NO_TMUX, Terminal } from '../support/terminal';

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
      // Output too long for the model: its whole is saved in the session's folder.
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'cat notes.txt; seq 1 40000' } }] },
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
    assert.equal(readdirSync(join(data, 'sessions', id, 'outputs')).length, 1, 'the whole output was saved');
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
      await until(() => /Ctrl-C stops/.test(serving.stderr()), `the whole notice; stderr:\n${serving.stderr()}`);
      assert.match(serving.stderr(), /served at\n {2}http:\/\/127\.0\.0\.1:\d+\/\?token=\S+\nOpen that URL in a browser\./);
      const url = new URL(/(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(serving.stderr())![1]!);
      for (const path of ['/spans', '/events', '/']) assert.equal((await fetch(`${url.origin}${path}`)).status, 401, path);
      const spans = await fetch(`${url.origin}/spans?token=${url.searchParams.get('token')}`);
      assert.equal(spans.status, 200);
      assert.ok((await spans.text()).split('\n').some((line) => line.includes('"spanId"')), 'the stored trace, one record a line');
    } finally {
      serving.child.kill('SIGINT');
      await serving.exited;
    }
  });

  it('crow trace --serve opens the browser with a one-time code: the token is in no process\'s arguments, nor a key in its environment', async function () {
    if (NO_TMUX) skipBecause(this, NO_TMUX);
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
    assert.equal((await runCrow(['run', 'Hello', '--provider', 'anthropic'], env, workspace)).code, 0);
    const [id] = readdirSync(join(home, 'data', 'crow-agent', 'sessions'));
    // The browser opener, as another local user sees it: its arguments (and, here, its environment).
    const bin = join(home, 'bin');
    const seen = join(home, 'opener');
    mkdirSync(bin);
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\n{ echo "ARGS $*"; env; } > '${seen}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const terminal = Terminal.start([process.execPath, CROW, 'trace', id!, '--serve'], { cwd: workspace, env: { ...env, PATH: `${bin}:${process.env.PATH}` } });
    try {
      const screen = await terminal.waitFor(/Opened it in your browser/);
      const printed = new URL(/(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(screen)![1]!);
      await until(() => existsSync(seen) && readFileSync(seen, 'utf8').includes('ARGS'), 'the opener');
      const opener = readFileSync(seen, 'utf8');
      const token = printed.searchParams.get('token')!;
      assert.ok(!opener.includes(token), 'the opener was given the token');
      assert.ok(!opener.includes('ANTHROPIC_API_KEY'), 'the opener got the key');
      const oneTime = /ARGS (\S+)/.exec(opener)![1]!;
      assert.match(oneTime, /^http:\/\/127\.0\.0\.1:\d+\/\?code=/);
      const first = await fetch(oneTime, { redirect: 'manual' });
      assert.equal(first.status, 303, 'the browser gets in once');
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      assert.equal((await fetch(`${printed.origin}/spans`, { headers: { cookie } })).status, 200, 'with the cookie it set');
      assert.equal((await fetch(oneTime, { redirect: 'manual' })).status, 401, 'whoever copies the code later gets nothing');
      assert.equal((await fetch(printed, { redirect: 'manual' })).status, 303, 'the printed URL still works');
    } finally {
      terminal.press('C-c');
      await terminal.waitForExit().catch(() => undefined);
      terminal.close();
    }
  });
});
