/**
 * The first hour in a fresh clone: `npm test` and `npm run demo` install what
 * they need themselves (scripts/preflight.mjs), so no `npm ci` step can be
 * missed. npm and apt-get are stand-ins that write down how they were called:
 * nothing is downloaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');

/** How the preflight adds acpx, the ACP client of the tests, as the npm stand-in logs it. */
const ADD_ACPX = 'npm install --no-save --no-audit --no-fund acpx@0.19.1 []';

/** The user the "not root" tests run as, when the tests run as root. */
const NOBODY = 65534;

/**
 * A node binary every user can run, for the programs these tests start
 * (some as nobody): this one, or a copy of it when it sits in a folder only
 * its owner may enter (CI's Node 22 lives under /root/.cache). Made once.
 */
let sharedNode: { path: string; copy?: string } | undefined;
function runnableNode(): string {
  if (sharedNode) return sharedNode.path;
  const asNobody = process.getuid?.() === 0 ? spawnSync(process.execPath, ['-e', ''], { uid: NOBODY }).status : 0;
  if (asNobody === 0) return (sharedNode = { path: process.execPath }).path;
  const copy = mkdtempSync(join(tmpdir(), 'crow-node-'));
  chmodSync(copy, 0o755);
  copyFileSync(process.execPath, join(copy, 'node'));
  chmodSync(join(copy, 'node'), 0o755);
  return (sharedNode = { path: join(copy, 'node'), copy }).path;
}

/** A clone-shaped folder: package-lock.json and the preflight script, with no node_modules. */
function clone(dir: string, packages: Record<string, { version: string; optional?: boolean }>): void {
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  copyFileSync(join(REPO, 'scripts', 'preflight.mjs'), join(dir, 'scripts', 'preflight.mjs'));
  const lock = { name: 'x', lockfileVersion: 3, packages: { '': { name: 'x' }, ...prefixed(packages) } };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock));
}

const prefixed = (packages: Record<string, object>): Record<string, object> =>
  Object.fromEntries(Object.entries(packages).map(([name, entry]) => [`node_modules/${name}`, entry]));

/** A program on PATH that appends its arguments (and DEBIAN_FRONTEND) to `log`; `npm ci` also installs what the lock says. */
function standIn(bin: string, name: string, log: string): void {
  const file = join(bin, name);
  writeFileSync(
    file,
    `#!${runnableNode()}
const fs = require('node:fs');
const args = process.argv.slice(2);
if (${JSON.stringify(name)} === 'sudo' && args.join(' ') === '-n true') process.exit(0);
if (${JSON.stringify(name)} === 'sudo') {
  // As sudo does: a clean environment; 'env NAME=VALUE … command' sets what the command gets.
  let rest = args[0] === '-n' ? args.slice(1) : args;
  const env = { PATH: process.env.PATH };
  if (rest[0] === 'env') {
    rest = rest.slice(1);
    while (rest[0] && rest[0].includes('=')) { const [key, value] = rest.shift().split('='); env[key] = value; }
  }
  const run = require('node:child_process').spawnSync(rest[0], rest.slice(1), { stdio: 'inherit', env });
  process.exit(run.status ?? 1);
}
fs.appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(name)} + ' ' + args.join(' ') + ' [' + (process.env.DEBIAN_FRONTEND ?? '') + ']\\n');
if (${JSON.stringify(name)} === 'npm' && args[0] === 'ci') {
  const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
  for (const key of Object.keys(lock.packages)) if (lock.packages[key].optional) delete lock.packages[key];
  fs.mkdirSync('node_modules', { recursive: true });
  fs.writeFileSync('node_modules/.package-lock.json', JSON.stringify(lock));
}
`,
  );
  chmodSync(file, 0o755);
}

describe('the first hour: two commands do all the set-up', function () {
  let dir: string;
  let bin: string;
  let log: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crow-preflight-'));
    bin = join(dir, 'bin');
    log = join(dir, 'calls.log');
    mkdirSync(bin);
    for (const name of ['npm', 'apt-get', 'sudo']) standIn(bin, name, log);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  after(() => {
    if (sharedNode?.copy) rmSync(sharedNode.copy, { recursive: true, force: true });
  });

  const preflight = (args: string[] = [], env: Record<string, string> = {}, uid?: number) =>
    spawnSync(runnableNode(), [join(dir, 'repo', 'scripts', 'preflight.mjs'), ...args], {
      cwd: join(dir, 'repo'),
      env: { PATH: bin, ...env },
      encoding: 'utf8',
      ...(uid !== undefined ? { uid } : {}),
    });
  const calls = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

  it('npm test and npm run demo start with the preflight, which runs npm ci in a fresh clone and not again once it matches the lock', () => {
    const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.match(scripts.test!, /^node scripts\/preflight\.mjs --system && /);
    assert.match(scripts.demo!, /^node scripts\/preflight\.mjs && /);

    clone(join(dir, 'repo'), { a: { version: '1.0.0' }, 'for-another-os': { version: '2.0.0', optional: true } });
    const first = preflight();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /node_modules is missing: installing the npm packages from package-lock\.json \(npm ci\)/);
    assert.deepEqual(calls(), ['npm ci --no-audit --no-fund []']);

    const second = preflight();
    assert.equal(second.status, 0);
    assert.equal(second.stderr, '', 'nothing to say when node_modules matches the lock');
    assert.equal(calls().length, 1);
  });

  it('installs again when package-lock.json moved on since the last install (after a git pull), naming what differs', () => {
    clone(join(dir, 'repo'), { a: { version: '1.0.0' } });
    preflight();
    const lockFile = join(dir, 'repo', 'package-lock.json');
    writeFileSync(lockFile, readFileSync(lockFile, 'utf8').replace('1.0.0', '1.1.0'));
    const run = preflight();
    assert.match(run.stderr, /a is 1\.0\.0, package-lock\.json wants 1\.1\.0: installing/);
    assert.deepEqual(calls(), ['npm ci --no-audit --no-fund []', 'npm ci --no-audit --no-fund []']);
  });

  it('says what to do when npm ci fails, and fails', () => {
    clone(join(dir, 'repo'), { a: { version: '1.0.0' } });
    writeFileSync(join(bin, 'npm'), `#!${runnableNode()}\nprocess.exit(1);\n`);
    const run = preflight();
    assert.equal(run.status, 1);
    assert.match(run.stderr, /npm ci failed\. Check your network or npm registry settings, then run npm ci yourself\./);
  });

  it('npm test installs the Debian packages the suite needs (tmux, bubblewrap, chromium) when it can without asking', () => {
    clone(join(dir, 'repo'), {});
    mkdirSync(join(dir, 'repo', 'node_modules'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.package-lock.json'), '{"packages": {}}');
    const run = preflight(['--system']);
    assert.equal(run.status, 0, run.stderr);
    // As root apt-get runs directly, otherwise through passwordless sudo (the stand-in allows it).
    assert.deepEqual(calls(), ['apt-get update [noninteractive]', 'apt-get install -y --no-install-recommends tmux bubblewrap chromium [noninteractive]', ADD_ACPX]);
    assert.match(run.stderr, /installing tmux, bubblewrap, chromium for the terminal tests of the crow CLI, the sandbox tests, the trace viewer/);
  });

  it('not being root, it installs them through passwordless sudo, passing DEBIAN_FRONTEND past the environment sudo clears', () => {
    clone(join(dir, 'repo'), {});
    mkdirSync(join(dir, 'repo', 'node_modules'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.package-lock.json'), '{"packages": {}}');
    // Run as nobody when the tests run as root; everything it reads or writes is open to it.
    for (const path of [dir, join(dir, 'repo'), join(dir, 'repo', 'scripts'), join(dir, 'repo', 'node_modules')]) chmodSync(path, 0o777);
    const run = preflight(['--system'], {}, process.getuid?.() === 0 ? NOBODY : undefined);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /: sudo -n apt-get install -y --no-install-recommends tmux bubblewrap chromium/);
    assert.deepEqual(calls(), ['apt-get update [noninteractive]', 'apt-get install -y --no-install-recommends tmux bubblewrap chromium [noninteractive]', ADD_ACPX]);
  });

  it('not being root, with a sudo that asks for a password, it asks nobody and names the command to run', () => {
    clone(join(dir, 'repo'), {});
    mkdirSync(join(dir, 'repo', 'node_modules'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.package-lock.json'), '{"packages": {}}');
    for (const path of [dir, join(dir, 'repo'), join(dir, 'repo', 'scripts'), join(dir, 'repo', 'node_modules')]) chmodSync(path, 0o777);
    writeFileSync(join(bin, 'sudo'), `#!${runnableNode()}\nprocess.stderr.write('sudo: a password is required\\n');\nprocess.exit(1);\n`);
    const run = preflight(['--system'], {}, process.getuid?.() === 0 ? NOBODY : undefined);
    assert.equal(run.status, 0);
    assert.deepEqual(calls(), [ADD_ACPX]);
    assert.match(run.stderr, /not installing tmux, bubblewrap, chromium \(not root, and sudo asks for a password\)/);
    assert.match(run.stderr, /To run them: sudo apt-get update && sudo apt-get install -y --no-install-recommends tmux bubblewrap chromium/);
  });

  it('where it may not install them, names the exact command and the suites that will skip', () => {
    clone(join(dir, 'repo'), {});
    mkdirSync(join(dir, 'repo', 'node_modules'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.package-lock.json'), '{"packages": {}}');
    const run = preflight(['--system'], { CROW_NO_SYSTEM_INSTALL: '1' });
    assert.equal(run.status, 0);
    assert.deepEqual(calls(), [ADD_ACPX]);
    assert.match(run.stderr, /these skip: the terminal tests of the crow CLI \(no tmux\); the sandbox tests \(no bwrap\); the trace viewer, chat view and browser tests \(no chromium\)/);
    assert.match(run.stderr, /To run them: sudo apt-get update && sudo apt-get install -y --no-install-recommends tmux bubblewrap chromium/);
  });
  /** A clone whose node_modules matches its (empty) lock, with every Debian program the suite needs on PATH. */
  const settledClone = (): void => {
    clone(join(dir, 'repo'), {});
    mkdirSync(join(dir, 'repo', 'node_modules'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.package-lock.json'), '{"packages": {}}');
    for (const program of ['tmux', 'bwrap', 'chromium']) standIn(bin, program, log);
  };

  it('npm test adds acpx once, and says which tests skip when it cannot', () => {
    settledClone();
    assert.equal(preflight(['--system']).status, 0);
    assert.deepEqual(calls(), [ADD_ACPX]);
    mkdirSync(join(dir, 'repo', 'node_modules', '.bin'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.bin', 'acpx'), '');
    assert.equal(preflight(['--system']).status, 0);
    assert.deepEqual(calls(), [ADD_ACPX], 'not added again once it is there');

    rmSync(join(dir, 'repo', 'node_modules', '.bin', 'acpx'));
    writeFileSync(join(bin, 'npm'), `#!${runnableNode()}\nprocess.exit(1);\n`);
    const failed = preflight(['--system']);
    assert.equal(failed.status, 0, 'the suite still runs, without those tests');
    assert.match(failed.stderr, /could not add acpx@0\.19\.1; the tests driving crow acp through it skip\. To run them: npm install --no-save acpx@0\.19\.1/);
  });

  it('npm test builds the eval image where podman is and the image is not, once, as root with debootstrap; elsewhere it names the command', () => {
    settledClone();
    for (const program of ['bash', 'debootstrap']) standIn(bin, program, log);
    mkdirSync(join(dir, 'repo', 'node_modules', '.bin'));
    writeFileSync(join(dir, 'repo', 'node_modules', '.bin', 'acpx'), '');
    // A podman whose image appears once the build ran.
    writeFileSync(
      join(bin, 'podman'),
      `#!${runnableNode()}\nconst fs = require('node:fs');\nfs.appendFileSync(${JSON.stringify(log)}, 'podman ' + process.argv.slice(2).join(' ') + '\\n');\n` +
        `process.exit(fs.readFileSync(${JSON.stringify(log)}, 'utf8').includes('bash eval/container/build-image.sh') ? 0 : 1);\n`,
    );
    chmodSync(join(bin, 'podman'), 0o755);
    const asRoot = process.getuid?.() === 0;
    const run = preflight(['--system']);
    assert.equal(run.status, 0, run.stderr);
    if (asRoot) {
      assert.deepEqual(calls(), [
        'podman image exists localhost/crow-eval-debian:bookworm',
        'bash eval/container/build-image.sh podman localhost/crow-eval-debian:bookworm []',
      ]);
      assert.match(run.stderr, /building the eval image localhost\/crow-eval-debian:bookworm for the real-container tests \(once, about 3 minutes\)/);
      assert.equal(preflight(['--system']).status, 0);
      assert.equal(calls().filter((call) => call.startsWith('bash ')).length, 1, 'built once');
    }
    rmSync(log, { force: true });
    rmSync(join(bin, 'debootstrap'));
    const without = preflight(['--system']);
    assert.equal(without.status, 0);
    assert.deepEqual(calls(), ['podman image exists localhost/crow-eval-debian:bookworm']);
    assert.match(without.stderr, /the eval image localhost\/crow-eval-debian:bookworm is missing and is built as root with debootstrap; its tests skip\. To build it: sudo bash eval\/container\/build-image\.sh podman localhost\/crow-eval-debian:bookworm/);
  });
});
