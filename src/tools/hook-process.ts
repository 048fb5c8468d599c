/**
 * One run of a hook's command, under the rules every child of Crow follows:
 * `/bin/sh -c COMMAND` in a process group of its own, marked so that what
 * leaves the group is found too (command-reaper.ts), the environment the
 * caller scrubbed of secrets, stopped with everything it started on timeout,
 * on cancel and when crow exits. The event goes in as JSON on stdin; stdout
 * and stderr come back apart, each capped.
 */
import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { existsSync } from 'node:fs';
import { COMMAND_MARK, terminateCommand } from './command-reaper';
import { chooseShell } from './command-shell';
import { HeadTailBuffer, trackCommand } from './node-exec';
import { childProcess } from '../vocabulary/first-use';

/** Characters kept of each of stdout and stderr. */
const MAX_STREAM_CHARS = 100_000;
/** Time between SIGTERM and SIGKILL when a hook has to be stopped. */
const KILL_GRACE_MS = 2_000;

export interface HookProcessOptions {
  /** The workspace root. */
  cwd: string;
  /** The hook's environment, already without secrets. */
  env: NodeJS.ProcessEnv;
  /** What the hook reads on stdin. */
  input: string;
  timeoutMs: number;
  signal: AbortSignal;
  killGraceMs?: number;
}

export interface HookProcessResult {
  /** Null when it did not exit by itself (stopped, or killed by a signal). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Why it could not be started, when it could not. */
  startError?: string;
}

export function runHookProcess(command: string, options: HookProcessOptions): Promise<HookProcessResult> {
  const none = { exitCode: null, stdout: '', stderr: '', timedOut: false };
  if (options.signal.aborted) return Promise.resolve({ ...none, aborted: true });
  const mark = randomUUID();
  const grace = options.killGraceMs ?? KILL_GRACE_MS;
  // Windows has no /bin/sh: hooks run in Git Bash there, as commands do (command-shell.ts).
  const chosen = process.platform === 'win32' ? chooseShell({ platform: 'win32', env: options.env, exists: existsSync }) : { shell: '/bin/sh' };
  if ('problem' in chosen) return Promise.resolve({ ...none, aborted: false, startError: chosen.problem });
  return new Promise((resolve) => {
    const child = childProcess().spawn(chosen.shell, ['-c', command], {
      cwd: options.cwd,
      env: { ...options.env, [COMMAND_MARK]: mark },
      detached: true,
      windowsHide: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout = new HeadTailBuffer(MAX_STREAM_CHARS);
    const stderr = new HeadTailBuffer(MAX_STREAM_CHARS);
    let timedOut = false;
    let aborted = false;
    let stopping: Promise<void> | undefined;
    const processes = child.pid !== undefined ? { pgid: child.pid, mark } : undefined;
    const untrack = processes ? trackCommand(processes) : () => undefined;
    const stop = (): void => {
      if (!processes || stopping) return;
      stopping = terminateCommand(processes, grace).then(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
    };
    // Once the shell is done, what it left running goes too (its pipes then close).
    child.once('exit', () => {
      if (processes) void terminateCommand(processes, grace).finally(untrack);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    };
    collect(child.stdout, stdout);
    collect(child.stderr, stderr);
    // A hook need not read its input: one that exits first closes the pipe under us.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
    child.on('error', (err) => {
      cleanup();
      untrack();
      resolve({ ...none, aborted, startError: `could not start ${chosen.shell}: ${err.message}` });
    });
    child.on('close', (exitCode) => {
      cleanup();
      void (stopping ?? Promise.resolve()).then(() =>
        resolve({ exitCode: timedOut || aborted ? null : exitCode, stdout: stdout.result().output, stderr: stderr.result().output, timedOut, aborted }),
      );
    });
  });
}

function collect(stream: NodeJS.ReadableStream, into: HeadTailBuffer): void {
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer) => into.push(decoder.write(chunk)));
  stream.on('end', () => into.push(decoder.end()));
}
