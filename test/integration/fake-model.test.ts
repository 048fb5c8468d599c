/**
 * `npm run fake-model`: a person with no key starts the fake model, copies
 * the lines it prints into another shell and runs the real crow binary
 * against it, until Ctrl-C.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const REPO = resolve(__dirname, '../..');

describe('npm run fake-model', function () {
  this.timeout(60_000);
  let home: string;
  let workspace: string;
  let model: ChildProcessWithoutNullStreams;
  let printed = '';
  let exited: Promise<number | null>;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'crow-fake-model-'));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'notes.txt'), 'the answer is 42\n');
    model = spawn(process.execPath, ['--import', 'tsx', 'scripts/fake-model.ts', '--port', '0'], { cwd: REPO, env: { PATH: process.env.PATH } });
    model.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    model.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    exited = new Promise((done) => model.on('close', (code) => done(code)));
    await until(() => printed.includes('Ctrl-C stops it.'), 'the fake model to print its environment lines', 30_000);
  });
  after(() => {
    model.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  /** The `export NAME=VALUE` lines it printed, as an environment. */
  const exported = (): Record<string, string> =>
    Object.fromEntries([...printed.matchAll(/^export (\w+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!]));

  it('prints the lines to paste, and crow run answers through it: a command on request, an echo otherwise', async () => {
    const lines = exported();
    assert.deepEqual(Object.keys(lines).sort(), ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CROW_MODEL', 'CROW_PROVIDER']);
    assert.match(lines.ANTHROPIC_BASE_URL!, /^http:\/\/127\.0\.0\.1:\d+$/);
    const env = isolatedEnv(home, lines);

    const command = await runCrow(['run', 'run echo made-by-the-shell', '--allow', 'execute'], env, workspace);
    assert.equal(command.code, 0, command.stderr);
    assert.match(command.stderr, /● Running echo made-by-the-shell/);
    assert.match(command.stdout, /The tool returned:[\s\S]*made-by-the-shell/);

    const echo = await runCrow(['run', 'hello there'], env, workspace);
    assert.equal(echo.code, 0, echo.stderr);
    assert.match(echo.stdout, /You said: hello there/);
    assert.match(echo.stdout, /run COMMAND/, 'the echo says what else it can do');
  });

  it('answers on the Chat Completions route with no key at all', async () => {
    const url = /OPENAI_BASE_URL=(\S+)/.exec(printed)?.[1];
    assert.ok(url, printed);
    const run = await runCrow(['run', 'read notes.txt'], isolatedEnv(home, { CROW_PROVIDER: 'openai', OPENAI_BASE_URL: url, CROW_MODEL: 'fake-model' }), workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /the answer is 42/);
  });

  it('keeps running until Ctrl-C, then says how many requests it answered and exits 0', async () => {
    assert.equal(model.exitCode, null, 'still running between runs');
    model.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.match(printed, /fake-model: stopped after 5 requests\./);
  });
});
