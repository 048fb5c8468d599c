/**
 * `crow run --background` through the binary: the run detaches (the
 * command returns at once with the session id), `crow sessions list` shows
 * it running and then how it ended, `crow sessions show ID` its output,
 * `crow sessions stop ID` stops it (its command first); a pid file whose
 * process is gone, or whose pid another process has now, is not running;
 * background attempts apply nothing unless --apply-best, and their ranking
 * is in `crow sessions show ID`. What a person (or a script) gets wrong is
 * refused, saying what to do.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { isolatedEnv } from '../support/isolated-env';
import { runCrow } from '../support/crow-binary';
import { PROMPTLY_MS } from '../support/promptly';

const ID = /^[0-9a-f-]{36}$/;

function git(cwd: string, ...args: string[]): void {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  assert.equal(run.status, 0, run.stderr);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('crow run --background: detached runs, followed and stopped through crow sessions', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let home: string;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const crow = (...args: string[]) => runCrow(args, env, work);
  const listLine = async (id: string): Promise<string> => (await crow('sessions', 'list')).stdout.split('\n').find((line) => line.startsWith(id)) ?? '';

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-background-'));
    work = join(home, 'project');
    mkdirSync(work);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(async () => {
    // A test that failed half-way leaves its run going: stop it before its folder goes.
    const listed = JSON.parse((await crow('sessions', 'list', '--all', '--json')).stdout || '[]') as { background?: { state: string; pid: number } }[];
    for (const { background } of listed) if (background?.state === 'running') process.kill(background.pid, 'SIGTERM');
    rmSync(home, { recursive: true, force: true });
  });

  it('returns at once with the session id, shows it running, and then finished with its answer', async () => {
    server.respondWith('anthropic', (body): ScriptedReply => {
      const last = JSON.stringify((body['messages'] as unknown[]).at(-1));
      if (!last.includes('tool_result')) return { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'sleep 2; echo slept' } }] };
      return { blocks: [{ type: 'text', text: 'All done in the background.' }] };
    });
    const started = Date.now();
    const run = await crow('run', '--background', '--allow', 'execute', '--provider', 'anthropic', 'Take a nap');
    assert.equal(run.code, 0, run.stderr);
    assert.ok(Date.now() - started < 10_000);
    const id = run.stdout.trim();
    assert.match(id, ID);
    assert.match(run.stderr, new RegExp(`Follow it with: crow sessions show ${id}`));
    assert.match(run.stderr, new RegExp(`crow sessions stop ${id} stops it`));

    assert.match(await listLine(id), /\[running in the background \(pid \d+\)\]/);
    const line = await waitFor('the run to end', async () => {
      const text = await listLine(id);
      return /background run finished/.test(text) ? text : undefined;
    });
    assert.match(line, /Take a nap/);
    const shown = await crow('sessions', 'show', id.slice(0, 8));
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^Run in the background in .*: background run finished at /);
    assert.match(shown.stdout, /All done in the background\./);
  });

  it('stops a running background run with crow sessions stop: its command is stopped first, and it shows as stopped', async () => {
    // A number no other test sleeps (files run side by side: "sleep 43" would also find another test's "sleep 43.25").
    const marker = `sleep 64.${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const running = (): boolean => spawnSync('pgrep', ['-f', `^${marker.replace('.', '\\.')}$`]).status === 0;
    server.respondWith('anthropic', (): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: `${marker}; echo late > late.txt` } }] }));
    const run = await crow('run', '--background', '--allow', 'execute', '--provider', 'anthropic', 'Sleep long');
    const id = run.stdout.trim();
    await waitFor('the command to start', async () => (running() ? true : undefined));
    assert.match(await listLine(id), /running in the background/);

    const stop = await crow('sessions', 'stop', id);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, /Sent SIGTERM to the background run/);
    const line = await waitFor('the run to stop', async () => {
      const text = await listLine(id);
      return /background run stopped \(exit 143\)/.test(text) ? text : undefined;
    });
    assert.ok(line);
    // Gone with the run; in the sandbox the kernel tears down the command's PID namespace as bwrap goes, a moment after.
    await waitFor('the command to be gone with the run', async () => (running() ? undefined : true), PROMPTLY_MS);
    assert.ok(!existsSync(join(work, 'late.txt')));
    const again = await crow('sessions', 'stop', id);
    assert.match(again.stdout, /is not running: background run stopped \(exit 143\)/);
  });

  it('does not take a stale pid (its process gone, or the pid another process has now) for a running run', async () => {
    const folder = (id: string): string => join(home, 'data', 'crow-agent', 'background', id);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const gone = randomUUID();
    const reused = randomUUID();
    for (const [id, pid] of [
      [gone, Number(dead.stdout)],
      [reused, process.pid],
    ] as const) {
      mkdirSync(folder(id), { recursive: true });
      writeFileSync(join(folder(id), 'background.json'), JSON.stringify({ id, pid, cwd: work, prompt: `stale ${id}`, startedAt: Date.now() }));
    }
    const list = await crow('sessions', 'list');
    for (const id of [gone, reused]) {
      const line = list.stdout.split('\n').find((one) => one.startsWith(id));
      assert.match(line ?? '', /ended without saying how \(its process is gone/);
    }
    const stop = await crow('sessions', 'stop', reused);
    assert.equal(stop.code, 0);
    assert.match(stop.stdout, /is not running/);
    // The test runner itself (the pid "reused") is still here: it was sent nothing.
  });

  it('runs attempts in the background: nothing applied without --apply-best, the ranking in crow sessions show; with it, the best applied', async () => {
    git(work, 'init', '-q');
    writeFileSync(join(work, 'greet.js'), "module.exports = () => 'hi';\n");
    git(work, 'add', '.');
    git(work, 'commit', '-qm', 'start');
    server.respondWith('anthropic', (body): ScriptedReply | undefined => {
      const system = JSON.stringify(body['system']);
      if (system.includes('the judge of several attempts')) return { blocks: [{ type: 'text', text: '{"ranking": [{"attempt": 2, "reason": "Shorter."}, {"attempt": 1, "reason": "Longer."}]}' }] };
      const n = /crow-attempts\/[^/"\\]+\/(\d)/.exec(system)?.[1];
      if (n === undefined) return undefined;
      if (!JSON.stringify((body['messages'] as unknown[]).at(-1)).includes('tool_result')) {
        return { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'greet.js', content: `module.exports = () => 'hello ${n}';\n` } }] };
      }
      return { blocks: [{ type: 'text', text: `Attempt ${n} done.` }] };
    });
    const finished = async (id: string): Promise<string> =>
      waitFor('the attempts to end', async () => {
        const shown = await crow('sessions', 'show', id);
        return /background run (finished|failed)/.test(shown.stdout) ? shown.stdout : undefined;
      }, 60_000);

    const run = await crow('run', '--background', '--attempts', '2', '--provider', 'anthropic', 'Say hello');
    assert.equal(run.code, 0, run.stderr);
    const id = run.stdout.trim();
    assert.match(run.stderr, /2 attempts run in the background/);
    const shown = await finished(id);
    assert.match(shown, /^2 attempts in the background in .*: background run finished/);
    assert.match(shown, /Attempts, best first, ranked by the judge/);
    assert.match(shown, /Nothing applied/);
    assert.equal(readFileSync(join(work, 'greet.js'), 'utf8'), "module.exports = () => 'hi';\n");
    assert.match(await listLine(id), /2 attempts +Say hello +\[background run finished/);

    const best = await crow('run', '--background', '--attempts', '2', '--apply-best', '--provider', 'anthropic', 'Say hello');
    const bestId = best.stdout.trim();
    const bestShown = await finished(bestId);
    assert.match(bestShown, /Applied attempt 2: 1 file changed/);
    assert.equal(readFileSync(join(work, 'greet.js'), 'utf8'), "module.exports = () => 'hello 2';\n");
    const undo = await crow('undo', '--yes', '--session', bestId);
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(work, 'greet.js'), 'utf8'), "module.exports = () => 'hi';\n");
  });

  it('refuses what it cannot do in the background, and a hand-made --background-id, saying what to do', async () => {
    const stdin = await crow('run', '--background', '-');
    assert.equal(stdin.code, 2);
    assert.match(stdin.stderr, /takes the prompt as an argument, not on stdin/);
    const resumed = await crow('run', '--background', '--continue', 'x');
    assert.match(resumed.stderr, /--background starts a new session/);
    const both = await crow('run', '--background', '--background-id', randomUUID(), 'x');
    assert.match(both.stderr, /--background-id is for crow itself/);
    const plain = await crow('run', '--background', '--attempts', '2', 'x');
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /is not in a git repository: attempts run in git worktrees/);
    assert.ok(!existsSync(join(home, 'data', 'crow-agent', 'background')), 'nothing started');
    const escape = await crow('run', '--background-id', '../../escape', 'x');
    assert.equal(escape.code, 2);
    assert.match(escape.stderr, /is not a session id/);
    assert.ok(!existsSync(join(home, 'data', 'escape')));
    const unknown = await crow('sessions', 'stop', randomUUID());
    assert.equal(unknown.code, 2);
    assert.equal(server.requests.length, 0, 'no model was asked');
  });
});
