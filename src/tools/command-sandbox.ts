/**
 * Commands in a sandbox: what one command of a workspace may touch, and the
 * words that start it that way. Every command route (child process, VS Code
 * terminal, ACP client terminal) asks a CommandSandbox how to launch, so the
 * guarantees are the same whichever way a command runs.
 */
import type { Dirent, Stats } from 'node:fs';
import { existsSync, lstatSync, readdirSync, realpathSync, rmdirSync } from 'node:fs';
import * as path from 'node:path';
import { hiddenVariablesOf, withoutSecrets } from '../config/secret-variables';
import { bwrapArguments, type SandboxLayout } from './bwrap-args';
import { hostSockets, otherProcMounts } from './hidden-host-paths';
import { isHomeConfig, linkTarget } from './protected-paths';
import { domainProxy, SANDBOX_PROXY_PORT } from './domain-proxy';
import { findExecutable } from './node-exec';
import { NestedRepositories } from './nested-repositories';
import { readRepositoryGit } from './repository-git';
import { probeSandbox, type SandboxProbe } from './sandbox-probe';
import { DEFAULT_SANDBOX_PORTS, DEFAULT_SANDBOX_TMP_SIZE_MB, type SandboxMode } from '../config/settings-file';
import { type SandboxOptions, WorkspaceError } from './workspace';
import { POSIX_PATHS } from '../vocabulary/path-semantics';
import { isWithin } from '../vocabulary/real-paths';

export type { SandboxOptions };

/** How a workspace contains its commands; front doors derive it from the settings (see sandboxSetup). */
/** How to start one command line of the workspace. */
export interface CommandLaunch {
  /** Program and arguments that go before `bash -c <command>`: bwrap and its arguments when sandboxed, else none. */
  wrapper: string[];
  /** The environment to give the command: the process's, less every hidden variable. */
  env: NodeJS.ProcessEnv;
  /** Variables to remove where the command inherits an environment rather than being given one (terminals). */
  unset: string[];
  /** Variables `env` sets on top of the process's, which routes where the command inherits an environment set too. */
  set?: Readonly<Record<string, string>>;
  /** Takes away what the sandbox had to put in the workspace for this command; call once it has ended. */
  release(): void;
}

/** Folders inside the workspace that commands can read but never change; missing ones cannot be created either (git's code paths come on top). */
const PROTECTED_FOLDERS = ['.git', '.crow', '.vscode'];
/**
 * Run first inside the sandbox, before anything of the command: closes every
 * file descriptor but 0, 1 and 2, then runs its arguments. Whatever Crow or
 * the terminal that starts bwrap inherited without close-on-exec (an
 * editor's, a shell's `exec 3<dir`) would otherwise reach the command, and a
 * folder opened on the host leads out of the sandbox (`/proc/self/fd/3/..`).
 * bash closes any number; a plain sh only 3 to 9, so it refuses to go on
 * past an open one it cannot close.
 */
const CLOSE_INHERITED_FDS =
  'for fd in /proc/self/fd/*; do fd=${fd##*/}; case $fd in 0|1|2) continue;; esac; [ -L "/proc/self/fd/$fd" ] || continue; ' +
  'case $fd in [3-9]) ;; *) [ -n "$BASH_VERSION" ] || { echo "crow: cannot close inherited file descriptor $fd without bash; install bash" >&2; exit 126; };; esac; ' +
  'eval "exec $fd>&-"; done; exec "$@"';

/**
 * Empty folders bwrap made as mount points for blocked paths, with the
 * number of running commands that use each; the last one to end removes it.
 */
const madeMountPoints = new Map<string, number>();

/**
 * The sandbox of one workspace root. Inactive when the mode is off or
 * bubblewrap cannot run here (then `reason` says why): commands run as they
 * are, with the environment scrubbed all the same, except that "required"
 * refuses to launch them.
 */
export class CommandSandbox {
  readonly mode: SandboxMode;
  private readonly probe: SandboxProbe | undefined;
  /** What the repository's git config runs or reads (hooks folder, included files), read once per sandbox. */
  private gitCodePaths: Promise<string[]> | undefined;
  /** Repositories inside the workspace, looked for again before each command. */
  private readonly nested: NestedRepositories;

  constructor(
    private readonly root: string,
    private readonly options: SandboxOptions | undefined,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.mode = options?.mode ?? 'off';
    this.nested = new NestedRepositories(root);
    this.probe = this.mode === 'off' ? undefined : probeSandbox(env);
  }

  /** Whether commands run in the sandbox. */
  get active(): boolean {
    return this.probe?.available === true;
  }

  /** Why commands run without the sandbox though the mode wants it; undefined when active or off. */
  get reason(): string | undefined {
    return this.probe && !this.probe.available ? this.probe.reason : undefined;
  }

  /** Why no command runs: the sandbox is required and cannot run; undefined otherwise. */
  get refusal(): string | undefined {
    return this.mode === 'required' && !this.probe?.available ? requiredButUnavailable(this.reason ?? 'it is off') : undefined;
  }

  /** Readies what the next launch starts with (git's code paths, the nested repositories it keeps read-only), while nobody waits. */
  prepare(): void {
    if (!this.probe?.available) return;
    this.codePaths();
    this.nested.prepare();
  }

  /** How to start a command in `cwd` (absolute, inside the root). Throws a WorkspaceError when the sandbox is required and cannot run. */
  async launch(cwd: string): Promise<CommandLaunch> {
    const hidden = this.options?.hiddenVariables ?? [];
    const plain = { env: withoutSecrets(this.env, hidden), unset: hiddenVariablesOf(this.env, hidden) };
    if (!this.probe?.available) {
      if (this.mode === 'required') throw new WorkspaceError(requiredButUnavailable(this.reason ?? 'it is off'));
      return { ...plain, wrapper: [], release: () => undefined };
    }
    const domains = this.options?.network ? [] : (this.options?.allowDomains ?? []);
    const rules = { domains, ports: this.options?.allowPorts ?? DEFAULT_SANDBOX_PORTS, privateAddresses: this.options?.allowPrivateAddresses ?? false };
    const proxy = domains.length > 0 ? await domainProxy(rules) : undefined;
    const layout = await this.layout(cwd, proxy?.folder);
    const claimed = claimMountPoints(layout.blocked);
    // In VS Code the bridge runs on the editor's own binary, as Node (the bridge drops the variable again for the command).
    const asNode = process.versions.electron ? ['env', 'ELECTRON_RUN_AS_NODE=1'] : [];
    const bridge = proxy ? [...asNode, process.execPath, proxy.bridge, proxy.socket, String(SANDBOX_PROXY_PORT)] : [];
    const closer = [findExecutable('bash', this.env.PATH) ?? 'sh', '-c', CLOSE_INHERITED_FDS, 'crow-sandbox'];
    return { ...plain, wrapper: [this.probe.bwrap, ...bwrapArguments(layout), ...closer, ...bridge], release: once(() => releaseMountPoints(claimed)) };
  }

  /** How big the sandbox's /tmp may grow, in bytes; undefined when this bwrap cannot cap it. */
  get tmpSizeBytes(): number | undefined {
    return this.probe?.available && this.probe.sizedTmp ? (this.options?.tmpSizeMb ?? DEFAULT_SANDBOX_TMP_SIZE_MB) * 1024 * 1024 : undefined;
  }

  private codePaths(): Promise<string[]> {
    this.gitCodePaths ??= readRepositoryGit(this.root, this.env).then((git) => git.codePaths);
    return this.gitCodePaths;
  }

  private async layout(cwd: string, proxyFolder: string | undefined): Promise<SandboxLayout> {
    const protectedPaths = [...PROTECTED_FOLDERS.map((name) => path.join(this.root, name)), ...(this.options?.protectedPaths ?? []), ...(await this.codePaths())];
    const inside = protectedPaths
      .map(realIfPossible)
      .filter((target) => isInside(this.root, target) && target !== this.root);
    const home = shieldedHome(this.root, this.env);
    const readOnly = new Set<string>();
    const blocked = new Set<string>();
    const block = (target: string): void => {
      const missing = firstMissing(this.root, target);
      // Under the shielded home nothing new can be made anyway (and bwrap could not make its mount point there).
      if (!home || !isInside(home.folder, missing) || home.writable.some((entry) => isInside(entry, missing))) blocked.add(missing);
    };
    for (const target of inside) {
      const there = lstatIfThere(target);
      if (there?.isSymbolicLink()) {
        // A link that leads nowhere yet (.vscode -> vsc): where it leads must not be created either.
        const end = linkTarget(target);
        if (end !== undefined && isInside(this.root, end) && end !== this.root) block(end);
        continue;
      }
      if (there && !madeMountPoints.has(target)) readOnly.add(target);
      else block(target);
    }
    for (const nested of await this.nested.find()) readOnly.add(nested);
    const tmpSizeBytes = this.tmpSizeBytes;
    const setenv = sandboxVariables(this.env, this.root, proxyFolder !== undefined);
    return {
      writable: [this.root],
      ...(home ? { shielded: home } : {}),
      readOnly: [...readOnly],
      blocked: [...blocked],
      network: this.options?.network ?? false,
      forbidUserNamespaces: this.probe?.available === true && this.probe.forbidsUserNamespaces,
      sockets: hostSockets(this.env).filter((hidden) => !isInside(this.root, hidden.path)),
      otherProcMounts: otherProcMounts(),
      cwd,
      ...(proxyFolder !== undefined ? { proxyFolder } : {}),
      ...(tmpSizeBytes !== undefined ? { tmpSizeBytes } : {}),
      ...(Object.keys(setenv).length > 0 ? { setenv } : {}),
    };
  }
}

/**
 * When the workspace holds the user's home (the home itself, or /home): the
 * home stays read-only, so its dotfiles and config folders (.bashrc,
 * .gitconfig, .ssh, .config) cannot be changed or created, and only its
 * existing other entries are writable again.
 */
function shieldedHome(root: string, env: NodeJS.ProcessEnv): { folder: string; writable: string[] } | undefined {
  if (!env.HOME || !path.isAbsolute(env.HOME)) return undefined;
  const home = realIfPossible(env.HOME);
  if (!isInside(root, home) || !existsSync(home)) return undefined;
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(home, { withFileTypes: true });
  } catch {
    // unreadable: nothing of it is writable again
  }
  const writable = entries.filter((entry) => !entry.isSymbolicLink() && !isHomeConfig(entry.name)).map((entry) => path.join(home, entry.name));
  return { folder: home, writable };
}

/**
 * Variables set inside the sandbox (never secrets: they show in the process
 * list): TMPDIR back to the private /tmp when it pointed elsewhere, npm's
 * cache there when it would be in the read-only home, and the proxy of
 * `[sandbox] allow_domains` when there is one.
 */
function sandboxVariables(env: NodeJS.ProcessEnv, root: string, proxied: boolean): Record<string, string> {
  const variables: Record<string, string> = {};
  const tmpdir = env.TMPDIR;
  if (tmpdir && tmpdir !== '/tmp' && !isInside(root, tmpdir)) variables.TMPDIR = '/tmp';
  if (env.npm_config_cache === undefined && env.NPM_CONFIG_CACHE === undefined) variables.npm_config_cache = '/tmp/.npm';
  if (proxied) {
    const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    Object.assign(variables, { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: '', no_proxy: '', NODE_USE_ENV_PROXY: '1' });
  }
  return variables;
}

/** The error of a required sandbox that cannot run, saying both ways out. */
export function requiredButUnavailable(reason: string): string {
  return `Commands do not run: sandbox = "required", but ${reason}. Or set sandbox = "off" in config.toml (crow.sandbox in VS Code) to run commands without the sandbox.`;
}

function claimMountPoints(paths: readonly string[]): string[] {
  for (const target of paths) madeMountPoints.set(target, (madeMountPoints.get(target) ?? 0) + 1);
  return [...paths];
}

function releaseMountPoints(paths: readonly string[]): void {
  for (const target of paths) {
    const users = (madeMountPoints.get(target) ?? 1) - 1;
    if (users > 0) {
      madeMountPoints.set(target, users);
      continue;
    }
    madeMountPoints.delete(target);
    try {
      // Only an empty folder goes: whatever someone put there since stays.
      if (lstatSync(target).isDirectory()) rmdirSync(target);
    } catch {
      // gone already, or no longer empty
    }
  }
}

/** The shallowest missing path between the root and `target`: blocking it keeps `target` from being created. */
function firstMissing(root: string, target: string): string {
  let current = root;
  for (const part of path.relative(root, target).split(path.sep)) {
    current = path.join(current, part);
    if (!existsSync(current) || madeMountPoints.has(current)) return current;
  }
  return target;
}

/** The real path of `target`, or of its nearest existing ancestor plus the rest. */
function realIfPossible(target: string): string {
  const absolute = path.resolve(target);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(realIfPossible(parent), path.basename(absolute));
  }
}

function lstatIfThere(target: string): Stats | undefined {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}

/** Whether `target` is `root` or inside it: the sandbox is bubblewrap's, so paths are Linux paths. */
function isInside(root: string, target: string): boolean {
  return isWithin(root, target, POSIX_PATHS);
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}

/**
 * The whole command line for routes where the command inherits an
 * environment (terminals): `env -u NAME… NAME=VALUE…` for the hidden
 * variables and those the launch sets, the wrapper, then `shell` (e.g.
 * `bash -c <command>`).
 */
export function inheritingCommandLine(launch: CommandLaunch, shell: readonly string[]): string[] {
  const names = launch.unset.filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  const set = Object.entries(launch.set ?? {}).filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)).map(([name, value]) => `${name}=${value}`);
  const scrub = names.length + set.length > 0 ? ['env', ...names.flatMap((name) => ['-u', name]), ...set] : [];
  return [...scrub, ...launch.wrapper, ...shell];
}
