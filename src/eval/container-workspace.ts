/**
 * The container backend of `crow eval` (--backend podman|docker --image NAME):
 * each run's copy of the task lives on the host, bind-mounted at the same
 * path into a fresh container of the image, and every command of the run
 * (the agent's and the hidden check) executes inside that container with
 * no network, no capabilities, bounded processes and memory, its protected
 * folders read-only (see confinement), as a user that is not root (see
 * containerUser), through `ENGINE exec`. Files are read and written on the
 * host side of the mount, as the agent's file tools always do. The
 * container holds no credential: only the image's own environment reaches
 * commands. It is removed when the run ends, whatever is still running in it.
 */
import { existsSync, lchownSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { commandEnvironment, runCommand } from '../tools/node-exec';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_EXEC_OUTPUT_CHARS, NodeWorkspace } from '../tools/node-workspace';
import type { CommandLaunch } from '../tools/command-sandbox';
import type { Owner } from '../tools/confined-folder';
import type { ExecOptions, ExecResult } from '../tools/workspace';
import { withoutSecrets } from '../config/secret-variables';
import { childProcess } from '../vocabulary/first-use';

export const CONTAINER_ENGINES = ['podman', 'docker'] as const;
export type ContainerEngine = (typeof CONTAINER_ENGINES)[number];

export interface ContainerBackend {
  engine: ContainerEngine;
  image: string;
}

/** How long starting or removing a container may take before the run says the engine is stuck. */
const ENGINE_TIMEOUT_MS = 120_000;

export class ContainerError extends Error {
  override name = 'ContainerError';
}

/** Runs `engine args…` to its end: its trimmed stdout, or a ContainerError with what it said and what to check. */
export function engineCommand(engine: ContainerEngine, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    childProcess().execFile(engine, [...args], { env: withoutSecrets(env), timeout: ENGINE_TIMEOUT_MS, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (!error) return resolve(String(stdout).trim());
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      reject(
        new ContainerError(
          missing
            ? `${engine} is not installed (or not on PATH): install it, or run crow eval without --backend.`
            : `${engine} ${args.slice(0, 2).join(' ')} failed: ${String(stderr).trim() || error.message}. Check that "${engine} info" works and the image exists ("${engine} image ls").`,
        ),
      );
    });
  });
}

/** One run's container: started fresh from the image with `root` mounted at the same path, network off. */
export class TaskContainer {
  private constructor(
    readonly backend: ContainerBackend,
    readonly id: string,
    private readonly env: NodeJS.ProcessEnv,
    /** Who must own what Crow writes in the run's folder so the container's user can change it; absent when that is Crow's own user. */
    readonly owner: Owner | undefined,
  ) {}

  /** Starts the container; `caller` is Crow's own user (the default: this process's). */
  static async start(backend: ContainerBackend, root: string, env: NodeJS.ProcessEnv, caller: Caller = thisProcess()): Promise<TaskContainer> {
    const user = containerUser(backend.engine, caller);
    // Nothing runs in the container yet, so nothing can swap a folder for a link while the copy is handed over.
    if (user.owner) handOver(root, user.owner);
    const args = ['run', '--detach', '--rm', ...confinement(root), ...user.flags, '--entrypoint', 'sleep', backend.image, 'infinity'];
    const id = await engineCommand(backend.engine, args, env);
    if (!/^[0-9a-f]{12,}$/.test(id)) throw new ContainerError(`${backend.engine} run printed "${id.slice(0, 200)}" instead of a container id.`);
    return new TaskContainer(backend, id, env, user.owner);
  }

  /** The command prefix that runs a program inside the container, in `cwd`. */
  wrapper(cwd: string): string[] {
    return [this.backend.engine, 'exec', '--workdir', cwd, this.id];
  }

  /** Removes the container at once (processes still running in it included). */
  async remove(): Promise<void> {
    const args = this.backend.engine === 'podman' ? ['rm', '--force', '--time', '0', this.id] : ['rm', '--force', this.id];
    await engineCommand(this.backend.engine, args, this.env).catch(() => undefined);
  }
}

/** Folders of a task that its commands may read but never change, as the local sandbox keeps them (see command-sandbox.ts). */
const PROTECTED_FOLDERS = ['.git', '.crow', '.vscode'];
/** Processes a task's container may hold at once: a test suite's workers, not a fork bomb. */
const MAX_PROCESSES = 1_024;
/** Memory a task's container may use. */
const MAX_MEMORY = '4g';

/**
 * The `ENGINE run` flags that hold a task's commands as the local sandbox
 * does: no network; only the task's folder mounted (at the same path), with
 * its protected folders read-only (a missing one an empty read-only tmpfs,
 * so it cannot be made either); every capability dropped and no gaining
 * privileges (root in the container then cannot override a file's mode);
 * bounded processes and memory.
 */
export function confinement(root: string): string[] {
  const guarded = PROTECTED_FOLDERS.flatMap((name) => {
    const folder = path.join(root, name);
    return existsSync(folder) ? ['--volume', `${folder}:${folder}:ro`] : ['--tmpfs', `${folder}:ro,size=4k`];
  });
  return [
    '--network', 'none',
    '--volume', `${root}:${root}`,
    ...guarded,
    '--workdir', root,
    '--cap-drop', 'all',
    '--security-opt', 'no-new-privileges',
    '--pids-limit', String(MAX_PROCESSES),
    '--memory', MAX_MEMORY,
  ];
}

/** The user a task's commands run as when Crow itself runs as root: not root, and no account of a usual host (distroless images call it "nonroot"). */
export const CONTAINER_UID = 65_532;

export interface Caller {
  uid: number;
  gid: number;
}

function thisProcess(): Caller {
  return { uid: process.getuid?.() ?? CONTAINER_UID, gid: process.getgid?.() ?? CONTAINER_UID };
}

/**
 * Who the container's commands run as, never root, and who must own the
 * run's folder for them to change it. Crow started by a user: that user,
 * who owns the folder already (podman's `--userns keep-id` maps them to
 * themselves in rootless podman's user namespace; docker's daemon is
 * handed their numbers). Crow started by root (rootful podman or docker):
 * CONTAINER_UID, to whom the run's copy is given (handOver) and every file
 * and folder Crow's tools make after (the workspace's owner). HOME is the
 * container's own /tmp, so tools' caches stay out of the task's folder.
 */
export function containerUser(engine: ContainerEngine, caller: Caller): { flags: string[]; owner?: Owner } {
  const home = ['--env', 'HOME=/tmp'];
  if (caller.uid !== 0) return { flags: [...(engine === 'podman' ? ['--userns', 'keep-id'] : ['--user', `${caller.uid}:${caller.gid}`]), ...home] };
  return { flags: ['--user', `${CONTAINER_UID}:${CONTAINER_UID}`, ...home], owner: { uid: CONTAINER_UID, gid: CONTAINER_UID } };
}

/** Gives the run's folder and everything in it, except its protected folders, to `owner`; links themselves, never what they lead to. */
export function handOver(root: string, owner: Owner): void {
  lchownSync(root, owner.uid, owner.gid);
  const walk = (folder: string, top: boolean): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (top && PROTECTED_FOLDERS.includes(entry.name)) continue;
      const where = path.join(folder, entry.name);
      lchownSync(where, owner.uid, owner.gid);
      if (entry.isDirectory()) walk(where, false);
    }
  };
  walk(root, true);
}

/** A workspace whose commands run in a TaskContainer; its files are those of the host folder mounted into it. */
export class ContainerWorkspace extends NodeWorkspace {
  private readonly outputChars: number;

  constructor(
    root: string,
    private readonly container: TaskContainer,
    private readonly env: NodeJS.ProcessEnv,
    options: { maxExecOutputChars?: number } = {},
  ) {
    super(root, { ...options, ...(container.owner ? { owner: container.owner } : {}) });
    this.outputChars = options.maxExecOutputChars ?? DEFAULT_MAX_EXEC_OUTPUT_CHARS;
  }

  /** Commands are contained: by the container, not by bubblewrap. */
  override get sandboxed(): boolean {
    return true;
  }

  override useSandbox(): void {}

  override async commandLaunch(cwd: string): Promise<CommandLaunch> {
    return { wrapper: this.container.wrapper(cwd), env: this.launchEnv(), unset: [], release: () => undefined };
  }

  override async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    const cwd = options.cwd === undefined ? this.root : path.resolve(this.root, options.cwd);
    await this.resolve(cwd);
    return runCommand(command, {
      cwd: this.root,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      maxOutputChars: this.outputChars,
      killGraceMs: DEFAULT_KILL_GRACE_MS,
      env: this.launchEnv(),
      wrapper: this.container.wrapper(cwd),
      shell: 'bash',
    });
  }

  /** The engine client's own environment: the user's, without a single credential (the container never sees it anyway). */
  private launchEnv(): NodeJS.ProcessEnv {
    return commandEnvironment(withoutSecrets(this.env));
  }
}
