/**
 * The sandbox confines whoever starts Crow. A scripted model's bash call,
 * run unasked because execute is allowed while the sandbox is on, runs
 * test/fixtures/sandbox-escape.py through the real binary: remount, unmount
 * the read-only .git, bind an outside folder in, a nested user namespace,
 * raw sockets, chroot, a kernel module, a device node, writes outside and
 * into .git/config, a sysctl, sysfs, the host's processes (through the
 * sandbox's /proc and through a second proc file system of the host), a
 * socket a host program listens on (as systemd's private socket would be
 * for root), and a host folder crow inherited as an open file descriptor.
 * Each must fail, and the host must be unchanged. As root (the machine and
 * CI are root), in crow run and in an ACP client's terminal, then as a
 * throw-away user made for the test and removed after it. And where bwrap
 * cannot drop privileges, commands are asked, never run unasked.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { findExecutable } from '../../src/tools/node-exec';
import { CROW } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed, hostFolderOutsideTmp, sandboxProbe } from '../support/sandbox';
import { skipBecause } from '../support/skip-reasons';
import { addAnotherUser, type AnotherUser, nodeAnyUserCanRun } from '../support/another-user';

const SCRIPT = resolve(__dirname, '../fixtures/sandbox-escape.py');
/**
 * The descriptor the outside folder is open on when crow starts. Node marks
 * the lowest inherited descriptors close-on-exec itself, not the higher ones
 * (a shell's `exec 40<dir`, an editor's pipes): those reach its children.
 */
const FOLDER_FD = 40;
/** Every try the script makes; each must come back HELD. */
const TRIES = [
  'capabilities', 'remount-root', 'umount-git', 'bind-outside', 'unshare-urm', 'raw-inet-socket', 'raw-packet-socket', 'chroot', 'load-module',
  'mknod', 'write-outside', 'write-git-config', 'write-through-pid1-root', 'sysctl', 'sysfs', 'host-proc', 'other-procfs', 'host-socket', 'inherited-fd',
];

/** acpx, an ACP client we did not write, whose terminals run the commands (CI installs it, see .ci/run). */
const ACPX = resolve(__dirname, '../../node_modules/.bin/acpx');

/** How the model's command reaches the sandbox: crow run's child process, or the terminal of a client driving crow acp. */
type Door = 'crow run' | 'acpx';

/** Who runs crow: root as it is, or a user by uid and gid (through setpriv). */
type Runner = { uid: number; gid: number } | undefined;

interface Fixture {
  base: string;
  home: string;
  workspace: string;
  outside: string;
  hostProc: string;
  /** A folder outside /tmp holding a socket a host program listens on, open to every user. */
  hostSockets: string;
  gitConfig: string;
}

function fixture(owner: Runner): Fixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-escape-')));
  const home = join(base, 'home');
  const workspace = join(base, 'ws');
  for (const folder of [home, workspace]) mkdirSync(folder);
  // Outside /tmp, which the sandbox replaces: where a chroot's /proc would be.
  const hostProc = hostFolderOutsideTmp();
  const hostSockets = hostFolderOutsideTmp();
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  copyFileSync(SCRIPT, join(workspace, 'sandbox-escape.py'));
  const outside = hostFolderOutsideTmp();
  if (owner) for (const path of [base, outside, hostProc]) execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, path]);
  execFileSync('chmod', ['755', hostSockets]);
  return { base, home, workspace, outside, hostProc, hostSockets, gitConfig: readFileSync(join(workspace, '.git/config'), 'utf8') };
}

function removeFixture(fx: Fixture): void {
  for (const folder of [fx.base, fx.outside, fx.hostProc, fx.hostSockets]) rmSync(folder, { recursive: true, force: true });
}

/** A host program listening on a Unix socket at `socket`, which any user may connect to; it greets whoever connects. */
async function listenOn(socket: string): Promise<Server> {
  const server = createServer((client) => client.end('host service here\n'));
  await new Promise<void>((done) => server.listen(socket, done));
  execFileSync('chmod', ['777', socket]);
  return server;
}

/** `command` as `runner`: setpriv drops to the user, with its groups, keeping the environment given. */
function as(runner: Runner, command: string[]): string[] {
  return runner ? ['setpriv', `--reuid=${runner.uid}`, `--regid=${runner.gid}`, '--clear-groups', '--', ...command] : command;
}

/** A process holding `secret` in its environment, as `runner`: what a command must not read. */
function sentinel(runner: Runner, secret: string): ChildProcess {
  const [file, ...args] = as(runner, ['sleep', '600']) as [string, ...string[]];
  return spawn(file, args, { stdio: 'ignore', env: { PATH: process.env.PATH, CROW_ESCAPE_SENTINEL: secret } });
}

/**
 * crow (run, or acp under acpx) in a mount namespace of its own where a
 * second proc file system is mounted (as a chroot's would be), as
 * `runner`, with the outside folder open on FOLDER_FD (inherited without
 * close-on-exec, as a parent's `exec 40<dir` leaves it).
 */
function crowRun(fx: Fixture, runner: Runner, door: Door, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const folder = openSync(fx.outside, 'r');
  // The runner's node: one it may execute (CI's Node 22 is unpacked under root's private home), first on
  // PATH for acpx's `#!/usr/bin/env node`.
  const node = runner ? nodeAnyUserCanRun() : process.execPath;
  if (runner) env = { ...env, PATH: `${dirname(node)}:${env.PATH ?? ''}` };
  const words =
    door === 'acpx'
      ? [ACPX, '--agent', `${node} ${CROW} acp`, '--cwd', fx.workspace, '--approve-all', 'exec', 'Get out']
      : [node, CROW, 'run', 'Get out', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'];
  const crow = as(runner, words);
  const child = spawn('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount -t proc proc "$0" && exec "$@"', fx.hostProc, ...crow], {
    stdio: ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(FOLDER_FD - 3).fill('ignore'), folder],
    env,
  });
  closeSync(folder);
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, ...output })));
}

/** Every text in what the model was sent after its tool call (the tool result among them). */
function told(llm: FakeLlmServer): string {
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const request of llm.requestsFor('anthropic').slice(1)) collect(request.body.messages.at(-1));
  return texts.join('\n');
}

/** The script's lines, from the tool result the model saw. */
function lines(text: string): string[] {
  return text.split('\n').flatMap((line) => /(?:HELD|ESCAPED|TRIED) .*/.exec(line)?.[0] ?? []);
}

function escapeSuite(who: string, runner: () => Runner, door: Door = 'crow run'): void {
  let llm: FakeLlmServer;
  let fx: Fixture;
  let guard: ChildProcess;
  let service: Server;
  const secret = `escape-secret-${process.pid}-${Date.now()}`;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(async () => {
    llm.reset();
    fx = fixture(runner());
    guard = sentinel(runner(), secret);
    service = await listenOn(join(fx.hostSockets, 'host.sock'));
  });
  afterEach(async () => {
    // Gone before the user is removed: userdel refuses a user that still runs a process.
    const ended = new Promise((done) => (guard.exitCode !== null || guard.signalCode !== null ? done(undefined) : guard.once('exit', done)));
    guard.kill('SIGKILL');
    await ended;
    service.close();
    removeFixture(fx);
  });

  it(`${who}, through ${door}: every way out fails, and the host is unchanged`, async function () {
    if (door === 'acpx' && !existsSync(ACPX)) skipBecause(this, 'no acpx (npm install --no-save acpx@0.19.1)');
    const args = [fx.workspace, fx.outside, String(guard.pid), secret, fx.hostProc, String(FOLDER_FD), join(fx.hostSockets, 'host.sock')];
    llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: `python3 sandbox-escape.py ${args.join(' ')}` } }] },
      { blocks: [{ type: 'text', text: 'Tried.' }] },
    );
    const env = isolatedEnv(fx.home, { ANTHROPIC_API_KEY: 'sk-ant-escape-0123456789', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const run = await crowRun(fx, runner(), door, env);
    assert.equal(run.code, 0, run.stderr);
    if (door === 'acpx') assert.match(run.stdout, /terminal\/create/, 'the command ran in the client\'s terminal');
    const said = lines(told(llm));
    assert.ok(said.includes('TRIED EVERYTHING'), `the script ran to its end, unasked:\n${said.join('\n')}\n${run.stderr}`);
    const escaped = said.filter((line) => line.startsWith('ESCAPED'));
    assert.deepEqual(escaped, [], `ways out:\n${said.join('\n')}`);
    for (const name of TRIES) assert.ok(said.some((line) => line.startsWith(`HELD ${name}:`)), `${name} was tried:\n${said.join('\n')}`);

    // Held for the reason the sandbox gives, not because a tool was missing.
    const held = (name: string) => said.find((line) => line.startsWith(`HELD ${name}:`)) ?? '';
    for (const name of ['remount-root', 'umount-git', 'bind-outside', 'raw-inet-socket', 'raw-packet-socket', 'chroot', 'mknod']) assert.match(held(name), /: EPERM$/);
    for (const name of ['write-outside', 'write-git-config', 'write-through-pid1-root']) assert.match(held(name), /: EROFS$/);
    assert.match(held('capabilities'), /every set empty, NoNewPrivs 1/);
    assert.match(held('sysctl'), /core_pattern (EROFS|EACCES)$/);
    assert.match(held('inherited-fd'), /is not the host folder; open beyond 0-2: none/);
    assert.match(held('other-procfs'), /ENOENT$/, 'the second proc file system is covered');
    assert.match(held('host-proc'), /no process here holds the secret; kill \d+: ESRCH/);
    assert.match(held('host-socket'), /: (ENOENT|ECONNREFUSED)$/, 'the socket is covered');
    if (sandboxProbe.available && sandboxProbe.forbidsUserNamespaces) assert.match(held('unshare-urm'), /^HELD unshare-urm: E/, 'no nested user namespace');

    assert.deepEqual(readdirSync(fx.outside), [], 'nothing was written outside');
    assert.equal(readFileSync(join(fx.workspace, '.git/config'), 'utf8'), fx.gitConfig, '.git/config is as it was');
    assert.ok(!existsSync(join(fx.workspace, 'raw-disk')));
    assert.deepEqual(readdirSync(join(fx.workspace, 'bound')), [], 'the outside folder was never bound in');
  });
}

/**
 * A stand-in bwrap that runs the real one without the user namespace and
 * without dropping capabilities: what Crow passed before, under which root
 * kept every capability inside.
 */
function leakyBwrap(folder: string): string {
  const file = join(folder, 'leaky-bwrap');
  const real = sandboxProbe.available ? sandboxProbe.bwrap : 'bwrap';
  const script = [
    '#!/bin/sh',
    'for arg in "$@"; do shift; case "$arg" in --unshare-user|--cap-drop|ALL|--disable-userns|--assert-userns-disabled) ;; *) set -- "$@" "$arg";; esac; done',
    `exec '${real}' "$@"`,
  ];
  writeFileSync(file, `${script.join('\n')}\n`, { mode: 0o755 });
  return file;
}

describeSandboxed('crow run as root with a bwrap that leaves capabilities', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let fx: Fixture;

  before(async function () {
    if (process.getuid?.() !== 0) skipBecause(this, 'only root keeps capabilities inside such a bwrap; run as root (CI does)');
    if (!findExecutable('python3', process.env.PATH)) skipBecause(this, 'python3 is not installed (Debian: apt install python3)');
    llm = await FakeLlmServer.start();
  });
  after(() => llm?.close());
  beforeEach(() => {
    llm.reset();
    fx = fixture(undefined);
  });
  afterEach(() => removeFixture(fx));

  const run = (config: string, extra: string[] = []) => {
    mkdirSync(join(fx.home, 'config/crow-agent'), { recursive: true });
    writeFileSync(join(fx.home, 'config/crow-agent/config.toml'), config);
    const env = isolatedEnv(fx.home, { CROW_BWRAP_PATH: leakyBwrap(fx.base), ANTHROPIC_API_KEY: 'sk-ant-escape-0123456789', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const child = spawn(process.execPath, [CROW, 'run', 'Get out', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => child.on('close', (code) => done({ code, ...output })));
  };
  /** The model's call: remount / writable (MS_BIND | MS_REMOUNT), then write outside. */
  const remount = () => ({
    blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command: `python3 -c "import ctypes; ctypes.CDLL(None).mount(None, b'/', None, 4096 | 32, None); open('${fx.outside}/remount.txt', 'w')"` } }],
  });

  it('counts the sandbox as unavailable, says why and what to do, and asks before running a command', async () => {
    llm.enqueue('anthropic', remount(), { blocks: [{ type: 'text', text: 'Asked.' }] });
    const result = await run('');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Commands run without the sandbox: .*leaky-bwrap left the sandboxed command privileges \(.*CapEff 0*[1-9a-f]/);
    assert.match(result.stderr, /Point CROW_BWRAP_PATH \(or PATH\) at bubblewrap itself/);
    assert.match(result.stderr, /Permission needed for Run: python3 .*pass --allow execute/);
    assert.deepEqual(readdirSync(fx.outside), [], 'the command did not run');
  });

  it('with sandbox = "required", runs nothing, even with --allow execute', async () => {
    llm.enqueue('anthropic', remount(), { blocks: [{ type: 'text', text: 'Refused.' }] });
    const result = await run('sandbox = "required"\n', ['--allow', 'execute']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Commands do not run: sandbox = "required", but .*leaky-bwrap left the sandboxed command privileges/);
    assert.match(told(llm), /Commands do not run: sandbox = "required"/);
    assert.deepEqual(readdirSync(fx.outside), [], 'the command did not run');
  });
});

describeSandboxed('the sandbox confines whoever starts crow', function () {
  this.timeout(120_000);

  before(function () {
    if (process.getuid?.() !== 0) skipBecause(this, 'these runs start crow as root and as a user made for them; run as root (CI does)');
    for (const tool of ['python3', 'unshare', 'setpriv', 'useradd']) {
      if (!findExecutable(tool, process.env.PATH)) skipBecause(this, `${tool} is not installed (Debian: apt install python3 util-linux passwd)`);
    }
  });

  describe('as root', () => escapeSuite('as root', () => undefined));
  describe('as root, in an ACP client\'s terminal', () => escapeSuite('as root', () => undefined, 'acpx'));

  describe('as a normal user', () => {
    let user: AnotherUser | undefined;
    before(() => (user = addAnotherUser()));
    after(() => user?.remove());
    escapeSuite('as a normal user', () => user);
  });
});
