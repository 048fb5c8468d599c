#!/usr/bin/env node
// The first step of `npm run demo` and `npm test`, so that a fresh clone needs no
// separate `npm ci`: installs the npm packages from package-lock.json when
// node_modules is missing or differs from it. With --system (the test command)
// it also sees to the Debian packages the whole suite needs (tmux, bubblewrap,
// Chromium): installed when it can do so without asking (root, or passwordless
// sudo), else named with the exact command; the suites that need them skip,
// and the test summary says so. It also adds acpx, the ACP client we did not
// write that drives `crow acp` in the tests (it cannot be in the lock file: its
// platform packages are not all on the registry, which breaks npm ci), and
// builds the eval container image where podman can build it. Plain Node with
// no dependencies: it runs before there are any.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const say = (line) => process.stderr.write(`preflight: ${line}\n`);

/** The Debian packages the suite needs, by the program each one provides. */
export const SYSTEM_PACKAGES = [
  { program: 'tmux', pkg: 'tmux', needs: 'the terminal tests of the crow CLI' },
  { program: 'bwrap', pkg: 'bubblewrap', needs: 'the sandbox tests' },
  { program: 'chromium', pkg: 'chromium', needs: 'the trace viewer, chat view and browser tests' },
];

/** The ACP client the tests drive `crow acp` with, at the version they were written against. */
export const ACPX = 'acpx@0.19.1';
/** The image the real-container eval tests run (test/integration/eval-container.test.ts), and how it is built. */
const EVAL_IMAGE = 'localhost/crow-eval-debian:bookworm';
const BUILD_IMAGE = ['bash', 'eval/container/build-image.sh', 'podman', EVAL_IMAGE];

function main() {
  const problem = npmPackagesProblem(root);
  if (problem !== undefined) {
    say(`${problem}: installing the npm packages from package-lock.json (npm ci)…`);
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (npm.status !== 0) {
      say(`npm ci failed${npm.error ? ` (${npm.error.message})` : ''}. Check your network or npm registry settings, then run npm ci yourself.`);
      return 1;
    }
  }
  if (process.argv.includes('--system')) {
    systemPackages();
    testClient();
    evalImage();
  }
  return 0;
}

/** acpx in node_modules, added without saving (as CI adds it); the tests that need it skip, saying so, when it cannot be had. */
function testClient() {
  if (existsSync(join(root, 'node_modules', '.bin', 'acpx'))) return;
  say(`adding ${ACPX}, the ACP client the tests drive crow acp with (npm install --no-save)…`);
  const npm = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', ACPX], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (npm.status !== 0) say(`could not add ${ACPX}; the tests driving crow acp through it skip. To run them: npm install --no-save ${ACPX}`);
}

/**
 * The eval image, built once (about 3 minutes, from Debian's packages by
 * debootstrap) where podman and debootstrap are here and the image is not;
 * elsewhere its tests skip, naming what is missing.
 */
function evalImage() {
  if (!onPath('podman')) return;
  if (spawnSync('podman', ['image', 'exists', EVAL_IMAGE], { stdio: 'ignore' }).status === 0) return;
  if (!onPath('debootstrap') || process.getuid?.() !== 0) {
    say(`the eval image ${EVAL_IMAGE} is missing and is built as root with debootstrap; its tests skip. To build it: sudo ${BUILD_IMAGE.join(' ')}`);
    return;
  }
  say(`building the eval image ${EVAL_IMAGE} for the real-container tests (once, about 3 minutes): ${BUILD_IMAGE.join(' ')}`);
  const build = spawnSync(BUILD_IMAGE[0], BUILD_IMAGE.slice(1), { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) say(`the image build failed; the real-container tests skip. To retry: ${BUILD_IMAGE.join(' ')}`);
}

/**
 * Why node_modules does not match package-lock.json, or undefined when it does.
 * npm keeps what it installed in node_modules/.package-lock.json; every package
 * the lock names must be there at its version (optional ones may be missing:
 * they are for other platforms). Extra packages are fine (CI adds acpx).
 */
export function npmPackagesProblem(dir) {
  if (!existsSync(join(dir, 'node_modules'))) return 'node_modules is missing';
  const installedFile = join(dir, 'node_modules', '.package-lock.json');
  if (!existsSync(installedFile)) return 'node_modules was not installed by npm 7 or later';
  let wanted;
  let installed;
  try {
    wanted = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages ?? {};
    installed = JSON.parse(readFileSync(installedFile, 'utf8')).packages ?? {};
  } catch (err) {
    return `a lock file cannot be read (${err.message})`;
  }
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === '' || !path.startsWith('node_modules/') || entry.link) continue;
    const have = installed[path];
    if (have === undefined) {
      if (entry.optional) continue;
      return `${path.slice('node_modules/'.length)} is not installed`;
    }
    if (entry.version !== undefined && have.version !== entry.version) {
      return `${path.slice('node_modules/'.length)} is ${have.version}, package-lock.json wants ${entry.version}`;
    }
  }
  return undefined;
}

function onPath(program) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

function systemPackages() {
  const missing = SYSTEM_PACKAGES.filter(({ program }) => !onPath(program));
  if (missing.length === 0) return;
  const names = missing.map(({ pkg }) => pkg);
  const command = `apt-get install -y --no-install-recommends ${names.join(' ')}`;
  const skipped = () => missing.map(({ program, needs }) => `${needs} (no ${program})`).join('; ');
  const how = installer();
  if (how === undefined || process.env.CROW_NO_SYSTEM_INSTALL === '1') {
    const why = process.env.CROW_NO_SYSTEM_INSTALL === '1' ? 'CROW_NO_SYSTEM_INSTALL=1' : onPath('apt-get') ? 'not root, and sudo asks for a password' : 'no apt-get here';
    say(`not installing ${names.join(', ')} (${why}); these skip: ${skipped()}.`);
    say(onPath('apt-get') ? `To run them: sudo apt-get update && sudo ${command}` : `To run them, install ${names.join(', ')} with your package manager.`);
    return;
  }
  say(`installing ${names.join(', ')} for ${missing.map(({ needs }) => needs).join(', ')}: ${how.join(' ')} ${command}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // sudo clears the environment, so the variable goes on its command line through env(1).
  const run = (args) => {
    const [program, ...rest] = how.length > 0 ? [...how, 'env', 'DEBIAN_FRONTEND=noninteractive', ...args] : args;
    return spawnSync(program, rest, { env, stdio: ['ignore', 'inherit', 'inherit'] });
  };
  const update = run(['apt-get', 'update']);
  const install = update.status === 0 ? run(command.split(' ')) : update;
  if (install.status !== 0) say(`the install failed; these skip: ${skipped()}. To run them: sudo apt-get update && sudo ${command}`);
}

/** How to run apt-get without asking anyone: [] as root, ['sudo', '-n'] with passwordless sudo, undefined otherwise. */
function installer() {
  if (!onPath('apt-get')) return undefined;
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return undefined;
}

if (resolve(process.argv[1] ?? '') === import.meta.filename) process.exitCode = main();
