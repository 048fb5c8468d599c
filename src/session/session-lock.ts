/**
 * One writer per session. A process that attaches a session for writing
 * holds `writer.json` in its folder: its pid, host, start time and command.
 * The file is created complete and atomically (written aside, then linked
 * into place, which fails when it exists), so a second process either sees
 * a whole owner or none. An owner that is gone — its pid is dead, or now
 * belongs to a process started at another time (a kill -9 and pid reuse) —
 * left a stale lock, which the next writer takes over. Within one process
 * the lock is re-entrant: attaching twice is the front door's business.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../config/paths';

/** Who holds a session. */
export interface SessionOwner {
  pid: number;
  hostname: string;
  /** Date.now() when it took the session. */
  since: number;
  /** The process's start time as the kernel counts it (Linux: clock ticks after boot); absent where unknown. */
  started?: string;
  /** What the process is, e.g. "crow run" or "crow acp". */
  command?: string;
}

/** The session is held by another live process; the message names it and says what to do. */
export class SessionInUseError extends Error {
  override name = 'SessionInUseError';

  constructor(
    readonly sessionId: string,
    readonly owner: SessionOwner,
    readonly lockFile: string,
  ) {
    super(inUseMessage(sessionId, owner, lockFile));
  }
}

export const LOCK_FILE = 'writer.json';

/** Locks this process holds, by file, with how many times each was taken. */
const held = new Map<string, number>();

/**
 * Takes the session in `folder` (which exists) for this process; throws
 * SessionInUseError when another live process holds it. `release()` gives
 * it back (the last release of a re-entrant hold removes the file).
 */
export function acquireSessionLock(folder: string, sessionId: string): { release(): void } {
  const file = join(folder, LOCK_FILE);
  const me = ownerOfThisProcess();
  for (let attempt = 0; ; attempt++) {
    if (held.has(file) || tryCreate(file, me)) break;
    const found = readOwner(file);
    if (found && isLive(found)) throw new SessionInUseError(sessionId, found, file);
    // Stale (or unreadable and so left by a crash): take it over, unless another process got there first.
    if (attempt >= 3) throw new Error(`Could not take over the stale lock ${file}; remove it if no process uses session ${sessionId}.`);
    takeOver(file, found);
  }
  held.set(file, (held.get(file) ?? 0) + 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const count = (held.get(file) ?? 1) - 1;
      if (count > 0) return void held.set(file, count);
      held.delete(file);
      if (sameOwner(readOwner(file), me)) rmSync(file, { force: true });
    },
  };
}

/**
 * Throws SessionInUseError when another live process holds the session in
 * `folder`. A check before side effects (an undo point, say) that attach()
 * would make pointless; acquireSessionLock is what decides.
 */
export function checkSessionFree(folder: string, sessionId: string): void {
  const file = join(folder, LOCK_FILE);
  const found = readOwner(file);
  if (found && !sameOwner(found, ownerOfThisProcess()) && isLive(found)) throw new SessionInUseError(sessionId, found, file);
}

/** The live process holding the session in `folder`, if any (this one included). */
export function liveOwner(folder: string): SessionOwner | undefined {
  const found = readOwner(join(folder, LOCK_FILE));
  return found && isLive(found) ? found : undefined;
}

function tryCreate(file: string, owner: SessionOwner): boolean {
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(aside, JSON.stringify(owner), { mode: PRIVATE_FILE_MODE });
  try {
    linkSync(aside, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Moves the stale lock aside and removes it, if it is still the one found
 * stale; when another process replaced it meanwhile, puts that one back.
 */
function takeOver(file: string, stale: SessionOwner | undefined): void {
  const aside = `${file}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = readOwner(aside);
  if (stale !== undefined && moved !== undefined && !sameOwner(moved, stale)) {
    try {
      linkSync(aside, file);
    } catch {
      // Yet another process holds it now; the next attempt finds that one.
    }
  }
  rmSync(aside, { force: true });
}

function readOwner(file: string): SessionOwner | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<SessionOwner> | null;
    if (typeof value?.pid !== 'number' || typeof value.hostname !== 'string') return undefined;
    return value as SessionOwner;
  } catch {
    return undefined;
  }
}

/** Whether the owner's process still runs. One on another host cannot be checked and counts as live. */
function isLive(owner: SessionOwner): boolean {
  if (owner.hostname !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startTimeOf(owner.pid);
  return owner.started === undefined || started === undefined || started === owner.started;
}

function sameOwner(a: SessionOwner | undefined, b: SessionOwner): boolean {
  return a !== undefined && a.pid === b.pid && a.hostname === b.hostname && a.started === b.started;
}

function ownerOfThisProcess(): SessionOwner {
  const started = startTimeOf(process.pid);
  return {
    pid: process.pid,
    hostname: hostname(),
    since: Date.now(),
    ...(started !== undefined ? { started } : {}),
    command: commandOfThisProcess(),
  };
}

/** Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot. Undefined off Linux. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** "crow run", "crow acp", or the script and first argument of whatever else runs us. */
function commandOfThisProcess(): string {
  const script = process.argv[1] === undefined ? basename(process.argv0) : basename(process.argv[1]).replace(/\.[cm]?js$/, '');
  const first = process.argv[2];
  return first !== undefined && /^[a-z][a-z-]*$/.test(first) ? `${script} ${first}` : script;
}

function inUseMessage(sessionId: string, owner: SessionOwner, lockFile: string): string {
  const what = owner.command ?? 'another process';
  const where = owner.hostname === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on ${owner.hostname}`;
  const since = new Date(owner.since).toLocaleTimeString();
  return (
    `Session ${sessionId} is in use by ${what} (${where}, since ${since}); only one process may write to a session at a time. ` +
    `Wait for it to finish (or stop it), or start a new session. If no such process runs, delete ${lockFile}.`
  );
}
