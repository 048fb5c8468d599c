import { withoutSecrets } from '../config/secret-variables';
import { bwrapArguments } from './bwrap-args';
import { findExecutable } from './node-exec';
import { keepProbe, keptProbe } from './sandbox-probe-cache';
import { childProcess } from '../vocabulary/first-use';

/**
 * Whether commands can run in bubblewrap here, and if not why and what to
 * do. `sizedTmp`: this bwrap can cap the size of a tmpfs (--size, 0.8 and
 * later); `forbidsUserNamespaces`: it can keep a command from making user
 * namespaces (--disable-userns, 0.8 and later).
 */
export type SandboxProbe =
  | { available: true; bwrap: string; sizedTmp: boolean; forbidsUserNamespaces: boolean }
  | { available: false; reason: string };

/** How to get bubblewrap, for messages. */
export const INSTALL_BWRAP =
  'install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)';

/** What to do about a bwrap that does not confine what it runs. */
const USE_BWRAP_ITSELF =
  'Point CROW_BWRAP_PATH (or PATH) at bubblewrap itself, not a wrapper, in a version that honours --unshare-user and --cap-drop ALL: ' + INSTALL_BWRAP;
const PROBE_TIMEOUT_MS = 10_000;
/**
 * Why no sandbox can exist on `platform` (Crow's sandbox is bubblewrap, on
 * Linux only), or undefined on Linux, where it can (installed or not: a
 * person can install it, and the settings say what runs without it).
 */
export function platformWithoutSandbox(platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === 'linux') return undefined;
  return `the sandbox uses bubblewrap, which runs on Linux only (this is ${platform})`;
}

/** The lines of /proc/self/status that must read zero inside: every capability set. */
const CAPABILITY_SETS = ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'];
const probes = new Map<string, SandboxProbe>();

/**
 * Finds bwrap (CROW_BWRAP_PATH, else on PATH) and runs it once as commands
 * run, so "available" means a command would start confined, not only that
 * a binary exists: inside, every capability set is empty and no program
 * can gain privileges (read from the sandbox's own /proc/self/status), and
 * bwrap confirms that user namespaces are forbidden where it can forbid
 * them. A bwrap that starts but leaves a capability (a wrapper, or one run
 * without a user namespace as root) is unavailable, so commands are asked
 * rather than run as if confined. The answer is kept for the life of the
 * process, per binary, and a success across processes too (see
 * sandbox-probe-cache.ts).
 */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): SandboxProbe {
  const none = platformWithoutSandbox();
  if (none !== undefined) return { available: false, reason: none };
  const bwrap = env.CROW_BWRAP_PATH || findExecutable('bwrap', env.PATH);
  if (bwrap === undefined) return { available: false, reason: `bubblewrap (bwrap) is not installed: ${INSTALL_BWRAP}` };
  let probe = probes.get(bwrap);
  if (!probe) {
    const kept = keptProbe(bwrap, env);
    probe = kept ? { available: true, bwrap, ...kept } : tryBwrap(bwrap);
    if (probe.available && !kept) keepProbe(bwrap, { sizedTmp: probe.sizedTmp, forbidsUserNamespaces: probe.forbidsUserNamespaces }, env);
    probes.set(bwrap, probe);
  }
  return probe;
}

/**
 * bwrap with everything commands would get. When it fails, it runs again
 * without the option it says it does not know (an older bwrap), or else
 * without the next optional feature (one that knows --disable-userns where
 * the kernel will not let it forbid them), until none is left.
 */
function tryBwrap(bwrap: string): SandboxProbe {
  const features = { forbidsUserNamespaces: true, sizedTmp: true };
  for (;;) {
    const run = runBwrap(bwrap, features);
    if (run.error) return { available: false, reason: `${bwrap} could not be started (${run.error.message}): ${INSTALL_BWRAP}` };
    if (run.status === 0) return confined(bwrap, run.stdout) ?? { available: true, bwrap, ...features };
    const unknown = /Unknown option (--[\w-]+)/.exec(run.stderr)?.[1];
    if (unknown === '--size' && features.sizedTmp) features.sizedTmp = false;
    else if (features.forbidsUserNamespaces) features.forbidsUserNamespaces = false;
    else if (features.sizedTmp) features.sizedTmp = false;
    else return cannotCreateNamespaces(bwrap, run.stderr.trim().split('\n')[0] || `exit status ${run.status ?? run.signal}`);
  }
}

/** Undefined when the status read inside shows no capability and no way to gain one; otherwise why the sandbox is unavailable. */
function confined(bwrap: string, status: string): SandboxProbe | undefined {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status)?.[1];
  if (field('CapEff') === undefined) {
    return { available: false, reason: `${bwrap} ran, but what it sandboxed did not report its privileges (no /proc/self/status came back), so it cannot be trusted to confine commands. ${USE_BWRAP_ITSELF}` };
  }
  const held = CAPABILITY_SETS.filter((name) => !/^0+$/.test(field(name) ?? ''));
  const gains = field('NoNewPrivs') === '1' ? [] : ['NoNewPrivs'];
  if (held.length === 0 && gains.length === 0) return undefined;
  const found = [...held, ...gains].map((name) => `${name} ${field(name) ?? 'missing'}`).join(', ');
  return {
    available: false,
    reason: `${bwrap} left the sandboxed command privileges (${found} in its /proc/self/status), so a command could undo the sandbox (remount, unmount). ${USE_BWRAP_ITSELF}`,
  };
}

function cannotCreateNamespaces(bwrap: string, said: string): SandboxProbe {
  return {
    available: false,
    reason:
      `${bwrap} cannot create its namespaces here (${said}). Where unprivileged user namespaces are ` +
      'turned off (sysctl kernel.unprivileged_userns_clone, or AppArmor on Ubuntu 23.10+: kernel.apparmor_restrict_unprivileged_userns), ' +
      'or a container forbids them (Docker\'s default seccomp profile), allow them for bwrap, or run Crow where they are allowed',
  };
}

/** bwrap with the namespaces, capabilities and mounts commands get (and the features asked for), printing the status of what it runs. */
function runBwrap(bwrap: string, features: { sizedTmp: boolean; forbidsUserNamespaces: boolean }) {
  const layout = bwrapArguments({
    writable: [],
    readOnly: [],
    blocked: [],
    network: false,
    forbidUserNamespaces: features.forbidsUserNamespaces,
    sockets: [],
    otherProcMounts: [],
    cwd: '/',
    ...(features.sizedTmp ? { tmpSizeBytes: 1 << 20 } : {}),
  });
  // bwrap itself tries to make a user namespace inside and fails the run if it can.
  const check = features.forbidsUserNamespaces ? ['--assert-userns-disabled'] : [];
  const args = [...check, ...layout, 'cat', '/proc/self/status'];
  return childProcess().spawnSync(bwrap, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: PROBE_TIMEOUT_MS, encoding: 'utf8', env: withoutSecrets(process.env) });
}
