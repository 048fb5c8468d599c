import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { probeSandbox } from '../../src/tools/sandbox-probe';
import { describeUnless } from './skip-reasons';

/** Whether bubblewrap can run on this machine (it can in CI: .ci/run installs it). */
export const sandboxProbe = probeSandbox();

/** `describe`, or, where bwrap cannot run, `describe.skip` with the reason in its title. */
export function describeSandboxed(title: string, body: (this: Mocha.Suite) => void): void {
  describeUnless(sandboxProbe.available ? undefined : `the sandbox cannot run here: ${sandboxProbe.reason}`, title, body);
}

/** Host pids of processes whose command line contains `marker` (for processes started inside a PID namespace). */
export function processesWith(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (/^\S+ \(.*\) [ZX]/.test(stat)) return false;
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Resolves once no process has `marker` in its command line; rejects after `withinMs`. */
export async function noProcessesWith(marker: string, withinMs = 5_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = processesWith(marker);
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes still running with "${marker}": ${left.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A new writable host folder outside /tmp (which the sandbox replaces):
 * under test/artifacts/, or under /var/tmp when the checkout itself lies in
 * the temporary directory (a clone in /tmp).
 */
export function hostFolderOutsideTmp(): string {
  const artifacts = path.resolve(__dirname, '../artifacts');
  const tmp = fs.realpathSync(os.tmpdir());
  const parent = `${fs.realpathSync(path.resolve(__dirname, '..'))}${path.sep}`.startsWith(`${tmp}${path.sep}`) ? '/var/tmp' : artifacts;
  fs.mkdirSync(parent, { recursive: true });
  return fs.mkdtempSync(path.join(parent, 'crow-sandbox-outside-'));
}
