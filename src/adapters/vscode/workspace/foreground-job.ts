import { readFile } from 'node:fs/promises';

/**
 * The process group of the job running in a terminal's foreground, so a
 * command typed into the terminal can be stopped whole (background
 * children included), as the child-process route stops its group. Read
 * from /proc, so Linux only: elsewhere undefined, and the caller falls
 * back to Ctrl+C.
 */
export async function foregroundJob(shellPid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${shellPid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined ? undefined : jobGroupFromStat(stat);
}

/**
 * Reads `pid (comm) state ppid pgrp session tty_nr tpgid …`: the terminal's
 * foreground group (tpgid) when it is not the shell's own group, i.e. while
 * a command runs.
 */
export function jobGroupFromStat(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgrp = Number(fields[2]);
  const tpgid = Number(fields[5]);
  if (!Number.isInteger(tpgid) || tpgid <= 0 || tpgid === pgrp) return undefined;
  return tpgid;
}

/** Stops a process group as the child-process route does. */
export { terminateGroup as stopGroup } from '../../../tools/node-exec';
