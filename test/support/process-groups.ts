import * as fs from 'node:fs';

/** Whether any process of the group still runs (zombies do not count), read from /proc. */
export function groupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return pgrp === String(pgid) && state !== 'Z';
      } catch {
        return false;
      }
    });
}
