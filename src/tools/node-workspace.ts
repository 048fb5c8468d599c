import type { Dirent, Stats } from 'node:fs';
import { promises as fs, realpathSync, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { type CommandLaunch, CommandSandbox, type SandboxOptions } from './command-sandbox';
import { ConfinedFolder, LinkRefusedError, type Owner, OutsideFolderError } from './confined-folder';
import { coveredCommandLaunch } from './covered-command';
import { runCommand } from './node-exec';
import { containment } from './workspace-containment';
import { findFilesWithRipgrep, grepWithRipgrep } from './node-search';
import { readyRipgrep } from './run-ripgrep';
import {
  type DirectoryEntry,
  type EntryInfo,
  type EntryType,
  type ExecOptions,
  type ExecResult,
  type FindFilesOptions,
  type FindFilesResult,
  type GrepOptions,
  type GrepResult,
  type Workspace,
  WorkspaceError,
} from './workspace';

export interface NodeWorkspaceOptions {
  /** Characters of command output exec keeps (head and tail). Default 30,000. */
  maxExecOutputChars?: number;
  /** Time a stopped command gets between SIGTERM and SIGKILL. Default 2,000 ms. */
  killGraceMs?: number;
  /** How commands are contained (see CommandSandbox). Default: no sandbox, our own key variables hidden. */
  sandbox?: SandboxOptions;
  /** Who owns the files and folders Crow's tools make (a container's user); Crow's own user when absent. */
  owner?: Owner;
}

export const DEFAULT_MAX_EXEC_OUTPUT_CHARS = 30_000;
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** Symbolic links followed through one missing path before giving up, as the kernel does (ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The workspace on the local disk, through fs and child_process. Every path
 * is resolved through symlinks (the nearest existing ancestor for paths that
 * do not exist yet) and refused when it lands outside the root; a write is
 * then made through a ConfinedFolder, so a folder swapped for a link out
 * between the check and the write is refused there too.
 */
export class NodeWorkspace implements Workspace {
  readonly root: string;
  private readonly maxExecOutputChars: number;
  private readonly killGraceMs: number;
  private sandbox: CommandSandbox;
  private readonly confined: ConfinedFolder;

  /** `root` must be an existing folder; it is resolved through symlinks once, here. */
  constructor(root: string, options: NodeWorkspaceOptions = {}) {
    this.root = realpathSync(path.resolve(root));
    if (!statSync(this.root).isDirectory()) throw new WorkspaceError(`Workspace root ${this.root} is not a folder.`);
    this.maxExecOutputChars = options.maxExecOutputChars ?? DEFAULT_MAX_EXEC_OUTPUT_CHARS;
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.sandbox = new CommandSandbox(this.root, options.sandbox);
    this.confined = new ConfinedFolder(this.root, 'inside', options.owner);
  }

  /** Whether commands run in the sandbox. */
  get sandboxed(): boolean {
    return this.sandbox.active;
  }

  get commandsRefused(): string | undefined {
    return this.sandbox.refusal;
  }

  /** Contains the next commands as `options` say (a front door whose settings changed). */
  useSandbox(options: SandboxOptions | undefined): void {
    this.sandbox = new CommandSandbox(this.root, options);
  }

  /**
   * How a command in `cwd` (resolved, inside the root) starts, for routes
   * that start it themselves (terminals); `release` it once it has ended.
   * Throws a WorkspaceError when the sandbox is required and cannot run.
   */
  async commandLaunch(cwd: string, options: Pick<ExecOptions, 'coveredByEntries'> = {}): Promise<CommandLaunch> {
    const launch = await this.sandbox.launch(cwd);
    return options.coveredByEntries ? coveredCommandLaunch(launch, cwd, process.env) : launch;
  }

  async resolve(target: string): Promise<string> {
    const real = await realpathAllowingMissing(path.resolve(this.root, target));
    const inside = containment(this.root, real);
    if (!inside.inside && inside.outside) {
      throw new WorkspaceError(`Path "${target}" resolves to ${real}, outside the workspace. Paths must stay inside the workspace root ${this.root}.`);
    }
    if (!inside.inside) throw new WorkspaceError(`Path "${target}" cannot be used: ${inside.problem}. Name a plain file inside the workspace root ${this.root}.`);
    return real;
  }

  relative(target: string): string {
    const rel = path.relative(this.root, path.resolve(this.root, target));
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }

  async stat(target: string): Promise<EntryInfo | undefined> {
    const real = await this.resolve(target);
    try {
      const stats = await fs.stat(real);
      return { type: entryType(stats), size: stats.size, mtimeMs: stats.mtimeMs };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async readFile(target: string): Promise<Uint8Array> {
    return fs.readFile(await this.resolve(target));
  }

  async writeFile(target: string, data: Uint8Array | string): Promise<void> {
    const handle = await this.openForWriting(target);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  }

  async writeFileParts(target: string, parts: readonly Uint8Array[]): Promise<void> {
    const handle = await this.openForWriting(target);
    try {
      await writeAll(handle, parts);
    } finally {
      await handle.close();
    }
  }

  /** Makes the folders on the way to `target` (inside the root, made as a write makes them), for a file another process writes. */
  async makeParentFolders(target: string): Promise<void> {
    const real = await this.resolve(target);
    await this.confined.makeFolders(path.dirname(real)).catch((err: unknown) => Promise.reject(this.confinementError(target, err)));
  }

  /** The file opened for writing (created or truncated, folders made), reached without following a link out at the moment it is opened. */
  private async openForWriting(target: string): Promise<FileHandle> {
    const real = await this.resolve(target);
    return this.confined.openFile(real).catch((err: unknown) => Promise.reject(this.confinementError(target, err)));
  }

  /** A refusal of the confined folder (something became a link since resolve() looked) in the words resolve() uses. */
  private confinementError(target: string, err: unknown): unknown {
    if (!(err instanceof LinkRefusedError) && !(err instanceof OutsideFolderError)) return err;
    return new WorkspaceError(`Path "${target}" leads outside the workspace (${err.message}). Paths must stay inside the workspace root ${this.root}.`);
  }

  async readDirectory(target: string): Promise<DirectoryEntry[]> {
    const entries = await fs.readdir(await this.resolve(target), { withFileTypes: true });
    return entries
      .map((entry) => ({ name: entry.name, type: entryType(entry) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    const cwd = options.cwd === undefined ? this.root : await this.folder(options.cwd);
    const launch = await this.commandLaunch(cwd, options);
    try {
      return await runCommand(command, {
        cwd,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        ...(options.onOutput ? { onOutput: options.onOutput } : {}),
        maxOutputChars: this.maxExecOutputChars,
        killGraceMs: this.killGraceMs,
        env: launch.env,
        wrapper: launch.wrapper,
      });
    } finally {
      launch.release();
    }
  }

  findFiles(options: FindFilesOptions): Promise<FindFilesResult> {
    return findFilesWithRipgrep(this, options);
  }

  grep(options: GrepOptions): Promise<GrepResult> {
    return grepWithRipgrep(this, options);
  }

  /** The searches run ripgrep: a process readied for the next. */
  prepareSearch(): void {
    readyRipgrep();
  }

  prepareCommand(): void {
    this.sandbox.prepare();
  }

  private async folder(target: string): Promise<string> {
    const real = await this.resolve(target);
    const stats = await fs.stat(real).catch(() => undefined);
    if (!stats?.isDirectory()) {
      throw new WorkspaceError(`Working directory "${target}" is not a folder in the workspace ${this.root}.`);
    }
    return real;
  }
}

/** Writes every byte of `parts` in order, in as few writes as the system takes them (one, for a file of ordinary size). */
async function writeAll(handle: FileHandle, parts: readonly Uint8Array[]): Promise<void> {
  let pending = parts.filter((part) => part.length > 0);
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending);
    if (bytesWritten === 0) throw new WorkspaceError('The file took none of the bytes written to it; check that the disk has room.');
    pending = afterWritten(pending, bytesWritten);
  }
}

/** What is left of `parts` once their first `written` bytes are out. */
function afterWritten(parts: readonly Uint8Array[], written: number): Uint8Array[] {
  let skipped = 0;
  let index = 0;
  while (index < parts.length && skipped + parts[index]!.length <= written) skipped += parts[index++]!.length;
  const rest = parts.slice(index);
  if (rest.length > 0) rest[0] = rest[0]!.subarray(written - skipped);
  return rest;
}

/**
 * realpath for paths that may not exist yet: the real path of the nearest
 * existing ancestor plus the missing rest. A dangling symlink on the way is
 * followed to its target, so a link to a missing file outside cannot be used
 * to create that file.
 */
async function realpathAllowingMissing(absolute: string, hops = 0): Promise<string> {
  try {
    return await fs.realpath(absolute);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const realParent = await realpathAllowingMissing(parent, hops);
  const candidate = path.join(realParent, path.basename(absolute));
  const link = await readLink(candidate);
  if (link === undefined) return candidate;
  if (hops >= MAX_LINK_HOPS) throw new WorkspaceError(`Too many levels of symbolic links at ${candidate}.`);
  return realpathAllowingMissing(path.resolve(realParent, link), hops + 1);
}

/** The target of a symlink, or undefined when the path is missing or not a link. */
async function readLink(target: string): Promise<string | undefined> {
  try {
    return await fs.readlink(target);
  } catch {
    return undefined;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function entryType(entry: Stats | Dirent): EntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  return 'other';
}
