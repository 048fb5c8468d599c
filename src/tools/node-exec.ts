import { spawn } from 'node:child_process';
import { accessSync, constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { isSecretVariable, withoutSecrets } from '../config/secret-variables';
import type { ExecResult } from './workspace';

export { isSecretVariable };

/**
 * The environment commands run with: `env` (the process's by default) minus
 * our secrets, those isSecretVariable knows and the `hidden` names (see
 * secretVariableNames).
 */
export function commandEnvironment(env: NodeJS.ProcessEnv = process.env, hidden: readonly string[] = []): NodeJS.ProcessEnv {
  return withoutSecrets(env, hidden);
}

export interface RunCommandOptions {
  /** Absolute working directory, already confined by the caller. */
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput?: (chunk: string) => void;
  /** Characters of output kept (half head, half tail). */
  maxOutputChars: number;
  /** Time between SIGTERM and SIGKILL when the command has to be stopped. */
  killGraceMs: number;
  /** The command's environment; default commandEnvironment(). */
  env?: NodeJS.ProcessEnv;
  /** Program and arguments the shell runs under (bwrap and its arguments); none by default. */
  wrapper?: readonly string[];
}

/**
 * Process groups of commands still running. Should this process exit
 * before them (a second Ctrl-C, an uncaught error), they get SIGKILL on the
 * way out: no command outlives crow.
 */
const runningGroups = new Set<number>();

function killRunningGroups(): void {
  for (const pgid of runningGroups) signalGroup(pgid, 'SIGKILL');
}

function trackGroup(pgid: number): () => void {
  if (runningGroups.size === 0) process.on('exit', killRunningGroups);
  runningGroups.add(pgid);
  return () => {
    runningGroups.delete(pgid);
    if (runningGroups.size === 0) process.off('exit', killRunningGroups);
  };
}

/**
 * Stops every command this process still runs (SIGTERM to each group,
 * SIGKILL after `graceMs`) and resolves once they are gone: for front doors
 * that must stop at once, whatever their prompts are doing.
 */
export async function stopAllCommands(graceMs: number): Promise<void> {
  await Promise.all([...runningGroups].map((pgid) => terminateGroup(pgid, graceMs)));
}

/** How long to wait for a process group to vanish after SIGKILL before giving up on it. */
const SIGKILL_WAIT_MS = 1_000;
const POLL_MS = 15;

/**
 * Runs `command` with `bash -c` (`sh -c` when bash is missing), under the
 * wrapper when one is given, in a process group of its own, stdin closed,
 * stdout and stderr interleaved. On timeout or abort the whole group gets
 * SIGTERM, then SIGKILL after the grace period, and the promise settles once
 * the group is gone (a sandbox goes down whole with its bwrap). Rejects only
 * when the shell or the wrapper cannot be started.
 */
export function runCommand(command: string, options: RunCommandOptions): Promise<ExecResult> {
  if (options.signal.aborted) {
    return Promise.resolve({ exitCode: null, output: '', omittedBytes: 0, timedOut: false, aborted: true });
  }
  const env = options.env ?? commandEnvironment();
  // Two pipes cannot keep the order of writes across them, so the shell
  // sends stderr into stdout first; on the same line, so line numbers in
  // the command's error messages stay right.
  const shell = [findShell(env.PATH), '-c', `exec 2>&1; ${command}`];
  const [file, ...args] = [...(options.wrapper ?? []), ...shell] as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const output = new HeadTailBuffer(options.maxOutputChars);
    const child = spawn(file, args, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    let stopping: Promise<void> | undefined;
    const untrack = child.pid !== undefined ? trackGroup(child.pid) : () => undefined;

    const stop = () => {
      const pid = child.pid;
      if (pid === undefined || stopping) return;
      // Once the group is gone, only a process that left it can still hold
      // the pipes open; closing our ends lets 'close' fire regardless.
      stopping = terminateGroup(pid, options.killGraceMs).then(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      untrack();
    };

    const collect = (text: string) => {
      if (text === '') return;
      output.push(text);
      options.onOutput?.(text);
    };
    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => collect(decoder.write(chunk)));
      stream.on('end', () => collect(decoder.end()));
    }

    child.on('error', (err) => {
      cleanup();
      reject(new Error(`Could not start ${options.wrapper?.length ? file : 'the shell'}: ${err.message}`));
    });
    child.on('close', (exitCode) => {
      cleanup();
      void (stopping ?? Promise.resolve()).then(() => resolve({ exitCode, ...output.result(), timedOut, aborted }));
    });
  });
}

function findShell(searchPath = ''): string {
  return findExecutable('bash', searchPath) ?? 'sh';
}

/** The first executable `name` in the folders of `searchPath` (a PATH value). */
export function findExecutable(name: string, searchPath = ''): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * Keeps the first and last characters of a growing text and counts the bytes
 * dropped between them. Every command route (child process, VS Code terminal)
 * caps output with it, so output reads alike whichever way a command ran.
 */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private omittedBytes = 0;
  private readonly headMax: number;
  private readonly tailMax: number;

  constructor(maxChars: number) {
    this.headMax = Math.floor(maxChars / 2);
    this.tailMax = maxChars - this.headMax;
  }

  push(text: string): void {
    const room = this.headMax - this.head.length;
    const rest = room > 0 ? text.slice(room) : text;
    if (room > 0) this.head += text.slice(0, room);
    if (rest === '') return;
    this.tail += rest;
    const excess = this.tail.length - this.tailMax;
    if (excess > 0) {
      this.omittedBytes += Buffer.byteLength(this.tail.slice(0, excess));
      this.tail = this.tail.slice(excess);
    }
  }

  result(): { output: string; omittedBytes: number } {
    if (this.omittedBytes === 0) return { output: this.head + this.tail, omittedBytes: 0 };
    return {
      output: `${this.head}\n[… ${this.omittedBytes} bytes of output omitted …]\n${this.tail}`,
      omittedBytes: this.omittedBytes,
    };
  }
}

/**
 * SIGTERM to the process group, SIGKILL when some of it is still there after
 * `graceMs`; settles once no process of the group runs (or gives up a second
 * after SIGKILL). Every command route stops a command this way.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  if (await waitForGroupExit(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitForGroupExit(pgid, SIGKILL_WAIT_MS);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone (ESRCH); nothing left to signal.
  }
}

/** Resolves true as soon as no process of the group runs, false when `withinMs` passes first. */
async function waitForGroupExit(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (await groupRuns(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * Whether any process of the group still runs. Zombies do not count: an
 * orphaned child can wait a long time for init to reap it, and kill(-pgid, 0)
 * still finds it meanwhile, so on Linux /proc settles the question.
 */
async function groupRuns(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
    const stats = await Promise.all(pids.map((pid) => fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')));
    return stats.some((stat) => isRunningMember(stat, pgid));
  } catch {
    return true;
  }
}

/** Reads a /proc/<pid>/stat line: `pid (comm) state ppid pgrp …`. */
function isRunningMember(stat: string, pgid: number): boolean {
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return pgrp === String(pgid) && state !== 'Z' && state !== 'X';
}
