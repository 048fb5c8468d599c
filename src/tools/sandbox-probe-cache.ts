/**
 * The answer of a bwrap probe that succeeded, kept on disk so the next start
 * of crow on this machine does not run bwrap again (20-30 ms of every
 * `crow run`). Kept under a key that changes with anything that could
 * change the answer: the bwrap binary (real path, inode, size, times), the
 * user, the boot, the user and mount namespaces the process runs in, and
 * the sysctls that allow or forbid unprivileged user namespaces. Only a
 * success is kept: a bwrap that failed is probed again at every start, so
 * a machine never loses its sandbox to an old answer. An entry that is
 * stale anyway can only claim a sandbox that then fails to start loudly,
 * never run a command unsandboxed. Used only when the environment names a
 * home or cache folder (tests calling the probe with a bare environment
 * never touch the user's), and only from a folder and file of crow's own
 * (config/private-files.ts): another user's answer is never taken, and one
 * that fails the check is replaced by the next probe's.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheHome } from '../config/paths';
import { privateFolderProblem, readPrivateFile, writePrivateFile } from '../config/private-files';

/** What allows or forbids unprivileged user namespaces (Debian, Ubuntu's AppArmor, the global limit). */
const SYSCTLS = ['/proc/sys/kernel/unprivileged_userns_clone', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns', '/proc/sys/user/max_user_namespaces'];
/** Machines (keys) remembered; the oldest is dropped past this. */
const KEPT = 8;
/**
 * What a kept answer vouches for, part of the key: raised whenever the
 * probe checks more, so an answer an older probe gave never stands for the
 * newer sandbox. 2: commands run with every capability dropped in a user
 * namespace of their own, checked inside.
 */
const PROBE_VERSION = 2;

/** What the probe found out about a bwrap that works (see SandboxProbe). */
export interface KeptProbe {
  sizedTmp: boolean;
  forbidsUserNamespaces: boolean;
}

interface Entry extends KeptProbe {
  key: string;
}

/** The kept answer for `bwrap` here; undefined when none is kept (or no cache is used). */
export function keptProbe(bwrap: string, env: NodeJS.ProcessEnv): KeptProbe | undefined {
  const file = cacheFile(env);
  const key = file && machineKey(bwrap);
  if (!file || !key) return undefined;
  const found = readEntries(file).find((entry) => entry.key === key);
  return found ? { sizedTmp: found.sizedTmp, forbidsUserNamespaces: found.forbidsUserNamespaces } : undefined;
}

/** Keeps that `bwrap` works here (best effort: a cache that cannot be written changes nothing). */
export function keepProbe(bwrap: string, answer: KeptProbe, env: NodeJS.ProcessEnv): void {
  const file = cacheFile(env);
  const key = file && machineKey(bwrap);
  if (!file || !key) return;
  try {
    if (privateFolderProblem(dirname(file), { create: true, disposable: true }) !== undefined) return;
    const entries = [{ key, ...answer }, ...readEntries(file).filter((entry) => entry.key !== key)].slice(0, KEPT);
    writePrivateFile(file, JSON.stringify(entries));
  } catch {
    // Only slower next time.
  }
}

/** The cache file of the environment's own cache folder (not the process's home: a caller's environment may name another). */
function cacheFile(env: NodeJS.ProcessEnv): string | undefined {
  const folder = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, '.cache') : undefined);
  return folder ? join(cacheHome({ XDG_CACHE_HOME: folder }), 'sandbox-probe.json') : undefined;
}

/** The entries of crow's own cache file; none from a file or folder that is not its own. */
function readEntries(file: string): Entry[] {
  try {
    if (privateFolderProblem(dirname(file)) !== undefined) return [];
    const kept = readPrivateFile(file);
    if (!('bytes' in kept)) return [];
    const value = JSON.parse(kept.bytes.toString('utf8')) as unknown;
    return Array.isArray(value)
      ? value.filter((entry): entry is Entry => typeof entry?.key === 'string' && typeof entry.sizedTmp === 'boolean' && typeof entry.forbidsUserNamespaces === 'boolean')
      : [];
  } catch {
    return [];
  }
}

/** The key of this machine, user, namespaces and bwrap binary; undefined when any part cannot be read. */
function machineKey(bwrap: string): string | undefined {
  try {
    const real = realpathSync(bwrap);
    const binary = statSync(real);
    const parts = [
      PROBE_VERSION,
      real,
      binary.ino,
      binary.size,
      binary.mtimeMs,
      binary.ctimeMs,
      process.getuid?.(),
      readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      readlinkSync('/proc/self/ns/user'),
      readlinkSync('/proc/self/ns/mnt'),
      ...SYSCTLS.map(readIfThere),
    ];
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  } catch {
    return undefined;
  }
}

function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}
