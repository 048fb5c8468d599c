/**
 * What of the host a sandboxed command could still reach through the
 * read-only root, found as it is now, for the sandbox to cover: the host's
 * sockets (read-only does not stop a connect; as root, systemd's private
 * socket alone runs anything on the host) and other proc file systems (each
 * lists the host's processes and their command lines).
 */
import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { HiddenPath } from './bwrap-args';
import { POSIX_PATHS } from '../vocabulary/path-semantics';
import { isWithin } from '../vocabulary/real-paths';

/** Where programs that reach beyond the sandbox listen: container engines, D-Bus, per-user runtime folders. */
const HOST_SOCKETS = ['/run/user', '/run/dbus', '/run/docker.sock', '/run/docker', '/run/containerd', '/run/podman', '/var/run/docker.sock'];
/** Folders the sandbox replaces with its own: nothing of the host's is there to hide. */
const REPLACED = ['/tmp', '/dev', '/proc'];

/**
 * The host's sockets to hide while the network is off (symlinks resolved):
 * the folders above, the session's agent and bus sockets, and every socket
 * bound to a path on the host (/proc/net/unix), wherever it is.
 */
export function hostSockets(env: NodeJS.ProcessEnv): HiddenPath[] {
  const candidates = [...HOST_SOCKETS, env.XDG_RUNTIME_DIR, env.SSH_AUTH_SOCK, /unix:path=([^,;]+)/.exec(env.DBUS_SESSION_BUS_ADDRESS ?? '')?.[1], ...boundSockets()];
  const seen = new Map<string, HiddenPath>();
  for (const candidate of candidates) {
    if (!candidate || !path.isAbsolute(candidate)) continue;
    try {
      const real = realpathSync(candidate);
      if (real === '/' || [...seen.keys(), ...REPLACED].some((other) => isInside(other, real))) continue;
      seen.set(real, { path: real, directory: statSync(real).isDirectory() });
    } catch {
      // not here
    }
  }
  return [...seen.values()];
}

/** Paths of the sockets bound in this network namespace that are still sockets on disk. */
function boundSockets(): string[] {
  let table = '';
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const found = new Set<string>();
  // "Num RefCount Protocol Flags Type St Inode Path": the path (possibly with spaces) is the rest of the line.
  for (const line of table.split('\n').slice(1)) {
    const socket = line.trim().split(/\s+/).slice(7).join(' ');
    if (!socket.startsWith('/') || found.has(socket)) continue;
    try {
      if (lstatSync(socket).isSocket()) found.add(socket);
    } catch {
      // unlinked since
    }
  }
  return [...found];
}

/** Mount points of proc file systems other than /proc itself and what is under it, from the mount table (octal escapes undone). */
export function otherProcMounts(): string[] {
  let table = '';
  try {
    table = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const line of table.split('\n')) {
    // "id parent major:minor root mount-point options [optional fields] - type source super-options"
    const [before, after] = line.split(' - ');
    const mountPoint = before?.split(' ')[4];
    if (after?.split(' ')[0] !== 'proc' || mountPoint === undefined) continue;
    const target = mountPoint.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    if (!isInside('/proc', target)) found.add(target);
  }
  return [...found];
}

/** Whether `target` is `root` or inside it: the sandbox is bubblewrap's, so paths are Linux paths. */
function isInside(root: string, target: string): boolean {
  return isWithin(root, target, POSIX_PATHS);
}
