import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launch, readiedPid, readyLaunch, retire } from '../../../src/tools/prestarted-launch';
import { readyRipgrep, runRipgrep } from '../../../src/tools/run-ripgrep';
import { tempWorkspace } from './temp-workspace';
import { until } from '../../support/crow-binary';

/** A program printing, as JSON, the arguments it got, its folder and one variable of its environment. */
const REPORTER = 'process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), marker: process.env.CROW_LAUNCH_MARKER ?? null }))';

/** What the child printed and how it ended. */
function finished(child: ChildProcess): Promise<{ stdout: string; stderr: string; code: number | null; signal: NodeJS.Signals | null }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ stdout, stderr, code, signal }));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Arguments a model could write into a search, each of which a shell would read as something else. */
const HOSTILE = [
  '$(touch pwned-substitution)',
  '`touch pwned-backtick`',
  '; touch pwned-semicolon',
  '| touch pwned-pipe',
  '&& touch pwned-and',
  '> pwned-redirect',
  '"double quoted"',
  "'single quoted'",
  'back\\slash\\n',
  '  spaces around  ',
  '',
  '*',
  '-n',
  '--',
  '$HOME ${PATH} $1 $@',
  'tab\there',
  'ünïcödé ✓',
  '\r',
];

describe('programs launched from a readied shell (prestarted-launch)', function () {
  if (process.platform !== 'linux') return;
  let folder: string;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, CROW_LAUNCH_MARKER: 'from the launch' });

  beforeEach(() => {
    folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-launch-')));
  });
  afterEach(() => {
    retire();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs the program in the readied process, in the folder, with every argument exactly as given and none read by the shell', async () => {
    const environment = env();
    readyLaunch(environment);
    const readied = readiedPid();
    assert.ok(readied !== undefined, 'a shell waits');
    const { child, prestarted } = launch(process.execPath, ['-e', REPORTER, ...HOSTILE], { cwd: folder, env: environment });
    assert.equal(prestarted, true);
    assert.equal(child.pid, readied, 'the program took the readied process');
    assert.equal(readiedPid(), undefined, 'a readied shell serves one launch');
    const run = await finished(child);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { argv: HOSTILE, cwd: folder, marker: 'from the launch' });
    assert.deepEqual(fs.readdirSync(folder), [], 'nothing the arguments spelled ran');
  });

  it('passes the exit code and the output of the program on unchanged', async () => {
    readyLaunch(env());
    const { child, prestarted } = launch(process.execPath, ['-e', 'process.stdout.write("a\\0b\\n"); process.stderr.write("warned"); process.exit(3)'], { cwd: folder, env: env() });
    assert.equal(prestarted, true);
    assert.deepEqual(await finished(child), { stdout: 'a\0b\n', stderr: 'warned', code: 3, signal: null });
  });

  it('spawns directly, leaving the shell ready, when a word holds a line break', async () => {
    readyLaunch(env());
    const readied = readiedPid();
    const words = ['first\nsecond', 'plain'];
    const { child, prestarted } = launch(process.execPath, ['-e', REPORTER, ...words], { cwd: folder, env: env() });
    assert.equal(prestarted, false);
    assert.notEqual(child.pid, readied);
    assert.equal(readiedPid(), readied, 'still waiting for a launch it can carry');
    assert.deepEqual(JSON.parse((await finished(child)).stdout).argv, words);
  });

  it('spawns directly when the environment changed since the shell was readied', async () => {
    readyLaunch(env());
    const changed = { ...env(), CROW_LAUNCH_MARKER: 'changed' };
    const { child, prestarted } = launch(process.execPath, ['-e', REPORTER], { cwd: folder, env: changed });
    assert.equal(prestarted, false);
    assert.equal(JSON.parse((await finished(child)).stdout).marker, 'changed');
  });

  it('readies a new shell for a new environment and lets the old one go', async () => {
    readyLaunch(env());
    const first = readiedPid()!;
    readyLaunch(env());
    assert.equal(readiedPid(), first, 'readying again for the same environment keeps the waiting shell');
    readyLaunch({ ...env(), CROW_LAUNCH_MARKER: 'other' });
    assert.notEqual(readiedPid(), first);
    await until(() => !alive(first), 'the first shell exited');
  });

  it('does not hand out a shell that died while it waited', async () => {
    readyLaunch(env());
    const readied = readiedPid()!;
    process.kill(readied, 'SIGKILL');
    await until(() => readiedPid() === undefined, 'the death of the waiting shell was noticed');
    const { child, prestarted } = launch(process.execPath, ['-e', REPORTER], { cwd: folder, env: env() });
    assert.equal(prestarted, false);
    assert.equal((await finished(child)).code, 0);
  });

  it('says the program never started: 127 for a missing program, 126 for a missing folder', async () => {
    readyLaunch(env());
    const missing = await finished(launch(path.join(folder, 'no-such-program'), [], { cwd: folder, env: env() }).child);
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /no-such-program/);
    readyLaunch(env());
    const gone = await finished(launch(process.execPath, ['-e', REPORTER], { cwd: path.join(folder, 'gone'), env: env() }).child);
    assert.equal(gone.code, 126);
    assert.equal(gone.stdout, '');
  });

  it('lets a shell nobody used go after its idle time', async () => {
    readyLaunch(env(), 50);
    const readied = readiedPid()!;
    await until(() => !alive(readied), 'the idle shell exited');
    assert.equal(readiedPid(), undefined);
  });

  it('never keeps this process alive, and its shell ends with it', () => {
    const module = path.resolve(__dirname, '../../../src/tools/prestarted-launch.ts');
    const script = `const { readyLaunch, readiedPid } = require(${JSON.stringify(module)}); readyLaunch(process.env); process.stdout.write(String(readiedPid()));`;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(Date.now() - started < 30_000, 'the process ended by itself');
    const shell = Number(run.stdout);
    assert.ok(shell > 0, run.stdout);
    return until(() => !alive(shell), 'the readied shell exited with its process');
  });
});

describe('ripgrep from a readied shell (run-ripgrep)', function () {
  if (process.platform !== 'linux') return;
  let dir: string;
  const before = process.env.CROW_RG_PATH;
  const search = (records: string[] = []) =>
    runRipgrep(['--files'], { separator: '\n', cwd: dir, signal: new AbortController().signal, onRecord: (record) => (records.push(record), true) });

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-launch-rg-')));
  });
  afterEach(() => {
    retire();
    if (before === undefined) delete process.env.CROW_RG_PATH;
    else process.env.CROW_RG_PATH = before;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the same files whether rg came from a readied shell or a spawn', async () => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a');
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'b.txt'), 'b');
    const spawned: string[] = [];
    await search(spawned);
    readyRipgrep();
    assert.ok(readiedPid() !== undefined);
    const readied: string[] = [];
    const run = await search(readied);
    assert.equal(readiedPid(), undefined, 'the search used the readied shell');
    assert.equal(run.exitCode, 0);
    assert.deepEqual(readied.sort(), spawned.sort());
    assert.deepEqual(readied, ['a.txt', 'sub/b.txt']);
  });

  it('a workspace readies its search, and its next findFiles and grep each take a readied process', async () => {
    const ws = tempWorkspace({ 'src/app.ts': 'needle\n', 'notes.md': 'needle\n' });
    try {
      const signal = new AbortController().signal;
      ws.workspace.prepareSearch!();
      assert.ok(readiedPid() !== undefined);
      assert.deepEqual((await ws.workspace.findFiles({ globs: ['**/*.ts'], limit: 10, signal })).files, ['src/app.ts']);
      assert.equal(readiedPid(), undefined, 'findFiles used it');
      ws.workspace.prepareSearch!();
      assert.deepEqual((await ws.workspace.grep({ pattern: 'needle', maxMatches: 10, signal })).matches.map((match) => match.path), ['notes.md', 'src/app.ts']);
      assert.equal(readiedPid(), undefined, 'grep used it');
    } finally {
      ws.remove();
    }
  });

  it('gives rg the environment as it is at each search, without keys or a ripgrep config, readied or not', async () => {
    const fake = path.join(dir, 'rg');
    fs.writeFileSync(fake, '#!/bin/sh\nprintf "%s|%s|%s\\n" "$CROW_SEARCH_MARK" "${ANTHROPIC_API_KEY-none}" "${RIPGREP_CONFIG_PATH-none}"\n', { mode: 0o755 });
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { CROW_RG_PATH: fake, CROW_SEARCH_MARK: 'one', ANTHROPIC_API_KEY: 'sk-ant-hidden', RIPGREP_CONFIG_PATH: path.join(dir, 'rgrc') });
      const seen: string[] = [];
      await search(seen);
      readyRipgrep();
      await search(seen);
      process.env.CROW_SEARCH_MARK = 'two';
      await search(seen);
      readyRipgrep();
      process.env.CROW_SEARCH_MARK = 'three';
      await search(seen);
      assert.deepEqual(seen, ['one|none|none', 'one|none|none', 'two|none|none', 'three|none|none']);
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it('says ripgrep could not start when the readied shell cannot run it', async () => {
    process.env.CROW_RG_PATH = path.join(dir, 'missing-rg');
    readyRipgrep();
    await assert.rejects(search(), /Could not start ripgrep \(.*missing-rg\): .*missing-rg.*Install ripgrep, or set CROW_RG_PATH/);
  });

  it('fails, rather than answering with part of the list, when rg is killed by someone else', async () => {
    const fake = path.join(dir, 'rg');
    fs.writeFileSync(fake, '#!/bin/sh\nprintf "one.txt\\n"\nkill -9 $$\n', { mode: 0o755 });
    process.env.CROW_RG_PATH = fake;
    await assert.rejects(search(), /ripgrep was stopped by SIGKILL before it finished; search again/);
  });
});
