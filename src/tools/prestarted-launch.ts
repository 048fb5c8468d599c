/**
 * Programs started without forking this process at the moment they are
 * wanted. Node's spawn forks, and on Linux a fork copies the page tables of
 * every page this process has written to: about 3 ms on the main thread
 * for the CLI (45 MB of its own memory), more for an editor's extension
 * host, paid at every search while the person waits. So a small POSIX
 * shell is started ahead of need (when the model begins to stream a search
 * call: Tool.prepare), and waits on its stdin. Told a folder and a program
 * with its arguments, it goes to the folder and execs the program in its
 * own place: the fork was paid before anybody waited, and the program gets
 * the shell's process, pipes and environment, as a spawn would have given
 * it (the same idea as a fork server, such as Python's multiprocessing
 * "forkserver").
 *
 * The words travel one per line and the shell only ever passes them on as
 * "$@", so none is read as shell text; a word holding a line break or a
 * NUL (which no program argument can hold) is spawned directly instead,
 * as is every launch where no shell was readied or the environment changed
 * since. Only on Linux, where it was measured: libuv starts processes on
 * macOS with posix_spawn, which copies no page tables, and Windows has no
 * fork.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { childProcess, onFirstUse } from '../vocabulary/first-use';

/** The shell that waits. */
const SHELL = '/bin/sh';
/** How long a readied shell waits for a launch before it is let go. */
const SPARE_IDLE_MS = 60_000;
/**
 * Reads the folder, the number of words, then the words (the program
 * first), one per line; then runs the program there in the shell's place.
 * Ends quietly when its stdin closes first (this process went away). Exits
 * 126 when the folder cannot be entered, and (as every POSIX shell) 126 or
 * 127 when the program cannot be run.
 */
const SCRIPT = [
  'IFS= read -r dir || exit 0',
  'IFS= read -r count || exit 0',
  'set --',
  'while [ "$#" -lt "$count" ]; do IFS= read -r word || exit 0; set -- "$@" "$word"; done',
  'cd "$dir" || exit 126',
  'exec "$@" </dev/null',
].join('\n');

/** Exit codes the shell gives when the program never started; a program that started decides its own. */
export const NOT_STARTED_CODES: ReadonlySet<number> = new Set([126, 127]);

export interface LaunchOptions {
  /** Absolute folder the program runs in. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface Launched {
  /** The program's process: stdin closed (/dev/null), stdout and stderr piped. */
  child: ChildProcess;
  /** It came from a readied shell: exit codes in NOT_STARTED_CODES before any output mean it never ran. */
  prestarted: boolean;
}

interface Spare {
  child: ChildProcess;
  env: NodeJS.ProcessEnv;
  idle: NodeJS.Timeout;
}

let spare: Spare | undefined;

const shellAvailable = onFirstUse(() => process.platform === 'linux' && existsSync(SHELL));

/**
 * Starts a shell to launch the next program with, unless one is waiting
 * (for the same environment) or this is not Linux. Cheap when one is
 * ready; otherwise costs one fork now, meant for a moment nobody waits on.
 */
export function readyLaunch(env: NodeJS.ProcessEnv, idleMs = SPARE_IDLE_MS): void {
  if (spare && sameEnvironment(spare.env, env)) return;
  retire();
  if (!shellAvailable()) return;
  const child = childProcess().spawn(SHELL, ['-c', SCRIPT], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // Never a reason to stay alive: when this process ends, the shell reads the end of its stdin and exits.
  held(child, false);
  child.stdin!.on('error', () => {}); // a shell gone before its words arrive shows in the program's exit
  const forget = (): void => {
    if (spare?.child === child) retire();
  };
  child.on('error', forget);
  child.once('exit', forget);
  const idle = setTimeout(forget, idleMs);
  idle.unref();
  spare = { child, env, idle };
}

/**
 * Runs `command` with `args` in `options.cwd`: through the readied shell
 * when one waits for this environment and every word can travel, else by
 * a spawn. Errors starting the program come as the child's 'error' event
 * (a spawn) or as an exit code in NOT_STARTED_CODES (a readied shell).
 */
export function launch(command: string, args: readonly string[], options: LaunchOptions): Launched {
  const words = [command, ...args];
  const ready = spare;
  if (ready && ready.child.exitCode === null && ready.child.signalCode === null && sameEnvironment(ready.env, options.env) && [options.cwd, ...words].every(travels)) {
    spare = undefined;
    clearTimeout(ready.idle);
    held(ready.child, true);
    ready.child.stdin!.end(`${[options.cwd, String(words.length), ...words].join('\n')}\n`);
    return { child: ready.child, prestarted: true };
  }
  const child = childProcess().spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, prestarted: false };
}

/** Lets the waiting shell go (it reads the end of its stdin and exits); for tests and changed environments. */
export function retire(): void {
  const gone = spare;
  spare = undefined;
  if (!gone) return;
  clearTimeout(gone.idle);
  gone.child.stdin!.end();
}

/** The waiting shell's process id, if one waits: for tests. */
export function readiedPid(): number | undefined {
  return spare?.child.pid;
}

/** Whether the child and its pipes keep this process's event loop alive. */
function held(child: ChildProcess, keep: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as (ChildProcess | Readable | Writable | null)[]) {
    const refable = handle as { ref?: () => void; unref?: () => void } | null;
    if (keep) refable?.ref?.();
    else refable?.unref?.();
  }
}

/** A word the shell can read back whole from one line. */
function travels(word: string): boolean {
  return !word.includes('\n') && !word.includes('\0');
}

/** Whether two environments hold the same variables with the same values. */
export function sameEnvironment(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}
