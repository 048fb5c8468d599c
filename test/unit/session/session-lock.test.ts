import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE, SessionInUseError, acquireSessionLock, checkSessionFree, liveOwner } from '../../../src/session/session-lock';

/** A pid that ran and is gone. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('session lock', () => {
  let folder: string;
  const lockFile = () => join(folder, LOCK_FILE);
  const owner = () => JSON.parse(readFileSync(lockFile(), 'utf8')) as Record<string, unknown>;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'crow-lock-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('names this process while held, re-entrantly, and is gone after the last release', () => {
    const first = acquireSessionLock(folder, 's1');
    const second = acquireSessionLock(folder, 's1');
    assert.equal(owner().pid, process.pid);
    assert.equal(owner().hostname, hostname());
    assert.deepEqual(readdirSync(folder), [LOCK_FILE], 'nothing left aside');
    first.release();
    assert.ok(existsSync(lockFile()), 'still held once');
    second.release();
    assert.equal(existsSync(lockFile()), false);
  });

  it('refuses while another live process holds it, naming that process and what to do', async () => {
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    try {
      const started = readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
      writeFileSync(lockFile(), JSON.stringify({ pid: other.pid, hostname: hostname(), since: Date.now(), started, command: 'crow run' }));
      assert.throws(
        () => acquireSessionLock(folder, 's1'),
        (err: unknown) =>
          err instanceof SessionInUseError &&
          err.message.startsWith(`Session s1 is in use by crow run (pid ${other.pid}, since `) &&
          err.message.includes('only one process may write to a session at a time') &&
          err.message.includes(`If no such process runs, delete ${lockFile()}.`),
      );
      assert.throws(() => checkSessionFree(folder, 's1'), SessionInUseError);
      assert.equal(liveOwner(folder)?.pid, other.pid);
      assert.equal(owner().pid, other.pid, 'the lock is untouched');
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that died (kill -9)', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: deadPid(), hostname: hostname(), since: 0, command: 'crow run' }));
    assert.equal(liveOwner(folder), undefined);
    checkSessionFree(folder, 's1');
    const lock = acquireSessionLock(folder, 's1');
    assert.equal(owner().pid, process.pid);
    assert.deepEqual(readdirSync(folder), [LOCK_FILE]);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to a process started at another time', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, hostname: hostname(), since: 0, started: '1' }));
    const lock = acquireSessionLock(folder, 's1');
    assert.notEqual(owner().started, '1');
    lock.release();
  });

  it('counts a holder on another host as live: it cannot be checked from here', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: 1, hostname: 'elsewhere.example', since: 0 }));
    assert.throws(() => acquireSessionLock(folder, 's1'), /pid 1 on elsewhere\.example/);
  });
});
