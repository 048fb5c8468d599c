/**
 * The lifetime of ACP agent processes we start (external subagents, the
 * bridge's children): started leading their own process group, stopped
 * gently then firmly, and never left behind when we exit.
 */
import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../vocabulary/first-use';

/** How long a process gets after its input ends, and again after SIGTERM. */
const STOP_GRACE_MS = 1_000;

/** Agent processes started and not yet exited. */
const running = new Set<ChildProcess>();

/**
 * An ACP agent process, leading its own process group (on POSIX) so that
 * stopping it also stops whatever it started. Its stdin and stdout carry
 * the protocol; stderr is piped or inherited as asked. Should we exit while
 * it runs, its group gets SIGTERM on the way out.
 */
export function startAgentProcess(command: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; stderr: 'pipe' | 'inherit' }): ChildProcess {
  const child = childProcess().spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', options.stderr],
    detached: process.platform !== 'win32',
  });
  if (child.pid === undefined) return child;
  if (running.size === 0) process.on('exit', signalAllRunning);
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    if (running.size === 0) process.off('exit', signalAllRunning);
  });
  return child;
}

function signalAllRunning(): void {
  for (const child of running) signalGroup(child, 'SIGTERM');
}

/**
 * Ends the agent's input (an ACP agent exits when its client goes), then
 * sends its group SIGTERM and SIGKILL, each after STOP_GRACE_MS without an
 * exit; whatever it left running in its group is killed too. Resolves once
 * the process has exited.
 */
export async function stopAgentProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const alive = child.exitCode === null && child.signalCode === null;
  const exited = alive ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : Promise.resolve();
  child.stdin?.end();
  if (!(await settledBefore(exited, AbortSignal.timeout(STOP_GRACE_MS)))) {
    signalGroup(child, 'SIGTERM');
    if (!(await settledBefore(exited, AbortSignal.timeout(STOP_GRACE_MS)))) signalGroup(child, 'SIGKILL');
    await exited;
  }
  signalGroup(child, 'SIGKILL');
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid!, signal);
  } catch {
    // Already gone (ESRCH).
  }
}

/** Whether `promise` settles (either way) before `signal` aborts. */
export async function settledBefore(promise: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort = (): void => {};
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
