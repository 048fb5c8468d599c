import { withoutSecrets } from '../config/secret-variables';
import { findExecutable } from './node-exec';
import { keepProbe, keptProbe } from './sandbox-probe-cache';
import { childProcess } from '../vocabulary/first-use';

/**
 * Whether commands can run in bubblewrap here, and if not why and what to
 * do; `sizedTmp`: this bwrap can cap the size of a tmpfs (--size, 0.8 and later).
 */
export type SandboxProbe = { available: true; bwrap: string; sizedTmp: boolean } | { available: false; reason: string };

/** How to get bubblewrap, for messages. */
export const INSTALL_BWRAP =
  'install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)';

const PROBE_TIMEOUT_MS = 10_000;
const probes = new Map<string, SandboxProbe>();

/**
 * Finds bwrap (CROW_BWRAP_PATH, else on PATH) and runs it once with the
 * namespaces commands get, so "available" means a command would start
 * (user namespaces allowed, /proc mountable), not only that a binary
 * exists. The answer is kept for the life of the process, per binary, and
 * a success across processes too (see sandbox-probe-cache.ts).
 */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): SandboxProbe {
  if (process.platform !== 'linux') {
    return { available: false, reason: `the sandbox uses bubblewrap, which runs on Linux only (this is ${process.platform})` };
  }
  const bwrap = env.CROW_BWRAP_PATH || findExecutable('bwrap', env.PATH);
  if (bwrap === undefined) return { available: false, reason: `bubblewrap (bwrap) is not installed: ${INSTALL_BWRAP}` };
  let probe = probes.get(bwrap);
  if (!probe) {
    const kept = keptProbe(bwrap, env);
    probe = kept ? { available: true, bwrap, sizedTmp: kept.sizedTmp } : tryBwrap(bwrap);
    if (probe.available && !kept) keepProbe(bwrap, probe.sizedTmp, env);
    probes.set(bwrap, probe);
  }
  return probe;
}

function tryBwrap(bwrap: string): SandboxProbe {
  const run = runBwrap(bwrap, ['--size', String(1 << 20)]);
  if (run.status === 0) return { available: true, bwrap, sizedTmp: true };
  return unsized(bwrap);
}

/** The probe again without --size: an older bwrap that cannot cap its /tmp still sandboxes. */
function unsized(bwrap: string): SandboxProbe {
  const run = runBwrap(bwrap, []);
  if (run.error) return { available: false, reason: `${bwrap} could not be started (${run.error.message}): ${INSTALL_BWRAP}` };
  if (run.status === 0) return { available: true, bwrap, sizedTmp: false };
  const said = run.stderr.trim().split('\n')[0] || `exit status ${run.status ?? run.signal}`;
  return {
    available: false,
    reason:
      `${bwrap} cannot create its namespaces here (${said}). Where unprivileged user namespaces are ` +
      'turned off (sysctl kernel.unprivileged_userns_clone, or AppArmor on Ubuntu 23.10+: kernel.apparmor_restrict_unprivileged_userns), ' +
      'allow them for bwrap, or run Crow where they are allowed',
  };
}

/** bwrap with the namespaces commands get, `tmpOptions` before its /tmp, running `true`. */
function runBwrap(bwrap: string, tmpOptions: string[]) {
  const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-net'];
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...tmpOptions, '--tmpfs', '/tmp', '--', 'true');
  return childProcess().spawnSync(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS, encoding: 'utf8', env: withoutSecrets(process.env) });
}
