/**
 * The folder keepers (src/journal/keeper.ts) a test or the bench started,
 * found by their command line in /proc: `crow __keeper WORKSPACE DATA_HOME`.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the keepers whose workspace or data folder is under `folder`. */
export function keeperPids(folder: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const at = args.indexOf('__keeper');
        return at >= 0 && args.slice(at + 1).some((arg) => arg.startsWith(folder));
      } catch {
        return false;
      }
    })
    .map(Number);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the keepers under `folder` (SIGTERM, as at logout) and waits until they are gone. */
export async function stopKeepers(folder: string): Promise<void> {
  const pids = keeperPids(folder);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  while (pids.some(alive)) await new Promise((done) => setTimeout(done, 20));
}
