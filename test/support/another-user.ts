/**
 * Another local user, for tests of what one user can do to another through
 * crow's files and processes: a throw-away account made with useradd (the
 * tests run as root, as CI does) and removed with userdel afterwards.
 */
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { skipBecause } from './skip-reasons';

/** Why no other user can be had here, or undefined when one can. */
export const NO_OTHER_USER: string | undefined =
  process.getuid?.() !== 0
    ? 'needs root to make a throw-away local user (useradd); CI runs as root'
    : !['/usr/sbin/useradd', '/usr/bin/useradd', '/sbin/useradd'].some(existsSync)
      ? 'needs useradd to make a throw-away local user (apt-get install passwd)'
      : undefined;

let copiedNode: string | undefined;

/**
 * A node binary any local user may run: this process's own when every folder on its way is open to
 * others, else a copy in a fresh folder under the temporary directory (removed when this process
 * ends). CI's Node 22 pass runs a node unpacked under root's private home, which another user's
 * exec is refused with EACCES.
 */
export function nodeAnyUserCanRun(): string {
  if (openToOthers(process.execPath)) return process.execPath;
  if (copiedNode === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'crow-node-'));
    chmodSync(folder, 0o755);
    const copy = join(folder, 'node');
    copyFileSync(process.execPath, copy);
    chmodSync(copy, 0o755);
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    copiedNode = copy;
  }
  return copiedNode;
}

/** Whether others may execute the file and search every folder above it. */
function openToOthers(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    if ((statSync(file).mode & 0o001) === 0) return false;
    for (let folder = dirname(file); ; folder = dirname(folder)) {
      if ((statSync(folder).mode & 0o001) === 0) return false;
      if (dirname(folder) === folder) return true;
    }
  } catch {
    return false;
  }
}

export interface AnotherUser {
  name: string;
  uid: number;
  gid: number;
  /** Runs a program as this user to its end (no supplementary groups), with exactly `env`. */
  run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string };
  /** Starts a program as this user; its stdout and its end. */
  start(file: string, args: readonly string[], env: NodeJS.ProcessEnv): { stdout(): string; exited: Promise<number | null> };
  /** Removes the account (its files stay where the test put them, for the test to remove). */
  remove(): void;
}

/** Makes a new local user with no home, no login shell and a group of its own. */
export function addAnotherUser(): AnotherUser {
  const name = `crow-t-${randomBytes(4).toString('hex')}`;
  const made = spawnSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', name], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`useradd ${name} failed: ${made.stderr}`);
  const id = (flag: string): number => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  const as = (env: NodeJS.ProcessEnv): SpawnOptions => ({ uid, gid, env, cwd: '/' });
  return {
    name,
    uid,
    gid,
    run(file, args, env) {
      const result = spawnSync(file, [...args], { ...as(env), encoding: 'utf8', timeout: 60_000 });
      return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') };
    },
    start(file, args, env) {
      const child = spawn(file, [...args], { ...as(env), stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      return { stdout: () => stdout, exited: new Promise((done) => child.on('close', (code) => done(code))) };
    },
    remove() {
      spawnSync('userdel', [name]);
    },
  };
}

/**
 * A throw-away user for the suite it is called in: made before its tests,
 * removed after them; the suite is skipped, saying why, where none can be
 * had. Read `user` inside tests.
 */
export function anotherUserSuite(): { readonly user: AnotherUser } {
  const held = {} as { user: AnotherUser };
  before(function () {
    if (NO_OTHER_USER) skipBecause(this, NO_OTHER_USER);
    held.user = addAnotherUser();
  });
  after(() => held.user?.remove());
  return held;
}
