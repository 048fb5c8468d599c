/**
 * Ending every process a command started, sandbox or not. A command runs in
 * a process group of its own, and every process it starts inherits a mark
 * in its environment (COMMAND_MARK); `setsid`, `nohup`, `disown` and
 * daemons leave the group, but on Linux /proc/PID/environ still shows the
 * mark, so they are found and stopped with the group. A process that empties
 * its own environment before leaving the group escapes this; the sandbox,
 * a PID namespace of its own, does not need it. Elsewhere (macOS) only the
 * process group is stopped.
 */
import { promises as fs, readdirSync, readFileSync } from 'node:fs';

/** The variable that marks every process of one command; its value is the command's own id. */
export const COMMAND_MARK = 'CROW_COMMAND_ID';

/** How long to wait for processes to vanish after SIGKILL before giving up on them. */
const SIGKILL_WAIT_MS = 1_000;
const POLL_MS = 15;
const PROC = '/proc';

/** One running command: its process group (led by its first process) and its mark ('' for none). */
export interface CommandProcesses {
  pgid: number;
  mark: string;
}

/**
 * SIGTERM to the command's group and to every process carrying its mark,
 * SIGKILL to what is left after `graceMs`; settles once none runs (or gives
 * up a second after SIGKILL). Every command route stops a command this way.
 */
export async function terminateCommand(command: CommandProcesses, graceMs: number): Promise<void> {
  if (!(await runs(command))) return;
  await signalCommand(command, 'SIGTERM');
  if (await waitForExit(command, graceMs)) return;
  await signalCommand(command, 'SIGKILL');
  await waitForExit(command, SIGKILL_WAIT_MS);
}

/** terminateCommand for a bare process group (a terminal's foreground job, which carries no mark of ours). */
export function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  return terminateCommand({ pgid, mark: '' }, graceMs);
}

/** SIGKILL to the command's group and marked processes at once, synchronously: for the way out of a process that is exiting. */
export function killCommandNow(command: CommandProcesses): void {
  signal(-command.pgid, 'SIGKILL');
  for (const pid of markedNow(command.mark)) signal(pid, 'SIGKILL');
}

async function signalCommand(command: CommandProcesses, name: NodeJS.Signals): Promise<void> {
  signal(-command.pgid, name);
  for (const pid of await marked(command)) signal(pid, name);
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // Already gone (ESRCH); nothing left to signal.
  }
}

/** Resolves true as soon as no process of the command runs, false when `withinMs` passes first. */
async function waitForExit(command: CommandProcesses, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (await runs(command)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * Whether any process of the command still runs. Zombies do not count: an
 * orphaned child can wait a long time for init to reap it, and kill(-pgid, 0)
 * still finds it meanwhile, so on Linux /proc settles the question.
 */
async function runs(command: CommandProcesses): Promise<boolean> {
  let groupThere = true;
  try {
    process.kill(-command.pgid, 0);
  } catch {
    groupThere = false;
  }
  if (process.platform !== 'linux') return groupThere;
  if (groupThere) {
    try {
      const stats = await Promise.all((await processIds()).map((pid) => fs.readFile(`${PROC}/${pid}/stat`, 'utf8').catch(() => '')));
      if (stats.some((stat) => isRunningMember(stat, command.pgid))) return true;
    } catch {
      return true;
    }
  }
  return (await marked(command)).length > 0;
}

/** Reads a /proc/<pid>/stat line: `pid (comm) state ppid pgrp …`. */
function isRunningMember(stat: string, pgid: number): boolean {
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return pgrp === String(pgid) && state !== 'Z' && state !== 'X';
}

function isRunning(stat: string): boolean {
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return stat !== '' && state !== 'Z' && state !== 'X';
}

async function processIds(): Promise<string[]> {
  return (await fs.readdir(PROC)).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
}

/**
 * The running processes whose environment carries the command's mark (none
 * off Linux, or without a mark). Only processes started since the command
 * can carry it: those whose pid comes after its own, up to the last pid the
 * kernel handed out (/proc/loadavg), counting round a wrap of pid_max.
 */
async function marked(command: CommandProcesses): Promise<number[]> {
  if (command.mark === '' || process.platform !== 'linux') return [];
  const needle = `\0${COMMAND_MARK}=${command.mark}\0`;
  const last = Number((await fs.readFile(`${PROC}/loadavg`, 'utf8').catch(() => '')).trim().split(/\s+/)[4]);
  const since = command.pgid;
  const recent = (pid: number): boolean => !Number.isInteger(last) || (last >= since ? pid >= since && pid <= last : pid >= since || pid <= last);
  const found: number[] = [];
  await Promise.all(
    (await processIds().catch(() => []))
      .filter((pid) => recent(Number(pid)))
      .map(async (pid) => {
        const environ = await fs.readFile(`${PROC}/${pid}/environ`, 'latin1').catch(() => '');
        if (!`\0${environ}`.includes(needle)) return;
        if (isRunning(await fs.readFile(`${PROC}/${pid}/stat`, 'utf8').catch(() => ''))) found.push(Number(pid));
      }),
  );
  return found;
}

function markedNow(mark: string): number[] {
  if (mark === '' || process.platform !== 'linux') return [];
  const needle = `\0${COMMAND_MARK}=${mark}\0`;
  let pids: string[] = [];
  try {
    pids = readdirSync(PROC).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return [];
  }
  return pids.filter((pid) => {
    try {
      return `\0${readFileSync(`${PROC}/${pid}/environ`, 'latin1')}`.includes(needle);
    } catch {
      return false;
    }
  }).map(Number);
}
