import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { isSecretVariable, withoutSecrets } from '../config/secret-variables';
import { chooseShell, isExecutable } from './command-shell';
import { COMMAND_MARK, type CommandProcesses, killCommandNow, terminateCommand, terminateGroup } from './command-reaper';
import type { ExecResult } from './workspace';
import { childProcess } from '../vocabulary/first-use';

export { isSecretVariable, terminateGroup };

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
  /** The shell as the wrapper finds it (a container's own `bash`); default: chooseShell (bash from PATH, else sh; Git Bash on Windows). */
  shell?: string;
}

/**
 * Commands still running (or still being reaped). Should this process exit
 * before them (a second Ctrl-C, an uncaught error), they get SIGKILL on the
 * way out: no command outlives crow.
 */
const running = new Set<CommandProcesses>();

function killRunning(): void {
  for (const command of running) killCommandNow(command);
}

/** Counts `command` among those stopped with crow (see stopAllCommands); returns the function that forgets it once it is gone. */
export function trackCommand(command: CommandProcesses): () => void {
  if (running.size === 0) process.on('exit', killRunning);
  running.add(command);
  return () => {
    running.delete(command);
    if (running.size === 0) process.off('exit', killRunning);
  };
}

/**
 * Stops every command this process still runs (SIGTERM to each, SIGKILL
 * after `graceMs`) and resolves once they are gone: for front doors that
 * must stop at once, whatever their prompts are doing.
 */
export async function stopAllCommands(graceMs: number): Promise<void> {
  await Promise.all([...running].map((command) => terminateCommand(command, graceMs)));
}

/**
 * Runs `command` with `bash -c` (`sh -c` when bash is missing; Git Bash on
 * Windows, see command-shell.ts), under the
 * wrapper when one is given, in a process group of its own with a mark of
 * its own in the environment (see command-reaper.ts), stdin closed, stdout
 * and stderr interleaved. On timeout or abort the whole command gets
 * SIGTERM, then SIGKILL after the grace period, and the promise settles once
 * it is gone (a sandbox goes down whole with its bwrap). When the shell
 * ends, whatever it left running (background, nohup, setsid) is stopped the
 * same way. Rejects only when the shell or the wrapper cannot be started.
 */
export function runCommand(command: string, options: RunCommandOptions): Promise<ExecResult> {
  if (options.signal.aborted) {
    return Promise.resolve({ exitCode: null, output: '', omittedBytes: 0, timedOut: false, aborted: true });
  }
  // In the sandbox its PID namespace ends every process of the command; without it, the mark finds those that left the group.
  const mark = options.wrapper?.length ? '' : randomUUID();
  const env: NodeJS.ProcessEnv = { ...(options.env ?? commandEnvironment()), ...(mark ? { [COMMAND_MARK]: mark } : {}) };
  // Two pipes cannot keep the order of writes across them, so the shell
  // sends stderr into stdout first; on the same line, so line numbers in
  // the command's error messages stay right.
  const chosen = options.shell !== undefined ? { shell: options.shell } : chooseShell({ platform: process.platform, env, exists: isExecutable });
  if ('problem' in chosen) return Promise.reject(new Error(`Could not start the shell: ${chosen.problem}`));
  const shell = [chosen.shell, '-c', `exec 2>&1; ${command}`];
  const [file, ...args] = [...(options.wrapper ?? []), ...shell] as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const output = new HeadTailBuffer(options.maxOutputChars);
    const child = childProcess().spawn(file, args, {
      cwd: options.cwd,
      env,
      detached: true,
      windowsHide: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    let stopping: Promise<void> | undefined;
    const processes = child.pid !== undefined ? { pgid: child.pid, mark } : undefined;
    const untrack = processes ? trackCommand(processes) : () => undefined;

    const stop = () => {
      if (!processes || stopping) return;
      // Once the command is gone, only a process that emptied its environment
      // can still hold the pipes open; closing our ends lets 'close' fire regardless.
      stopping = terminateCommand(processes, options.killGraceMs).then(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
    };
    // The shell is done: what it left running goes too (its pipes then close), off the result's path.
    child.once('exit', () => {
      if (processes) void terminateCommand(processes, options.killGraceMs).finally(untrack);
    });
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
      untrack();
      reject(new Error(`Could not start ${options.wrapper?.length ? file : 'the shell'}: ${err.message}`));
    });
    child.on('close', (exitCode) => {
      cleanup();
      void (stopping ?? Promise.resolve()).then(() => resolve({ exitCode, ...output.result(), timedOut, aborted }));
    });
  });
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
