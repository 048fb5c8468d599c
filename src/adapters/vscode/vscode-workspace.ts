import * as vscode from 'vscode';
import { findFilesWithRipgrep, grepWithRipgrep } from '../../tools/node-search';
import { readyRipgrep } from '../../tools/run-ripgrep';
import { inheritingCommandLine, type SandboxOptions } from '../../tools/command-sandbox';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_EXEC_OUTPUT_CHARS, type NodeWorkspace, type NodeWorkspaceOptions } from '../../tools/node-workspace';
import {
  type DirectoryEntry,
  type EntryInfo,
  type ExecOptions,
  type ExecResult,
  type FindFilesOptions,
  type FindFilesResult,
  type GrepOptions,
  type GrepResult,
  type Workspace,
  WorkspaceError,
} from '../../tools/workspace';
import { readFileSeeingEditors, writeFileThroughEditor } from './workspace/editor-files';
import { FilesExclude } from './workspace/files-exclude';
import { findVisibleFiles } from './workspace/visible-files';
import { runInTerminal } from './workspace/terminal-command';
import { terminalCommandLine } from './workspace/terminal-output';
import { type CrowTerminalPool, usePool } from './workspace/terminal-pool';
import { type FolderRef, WorkspaceFolders } from './workspace/workspace-folders';

/** How one command ran: in a Crow terminal, or as a child process and why. */
export type CommandRoute = { kind: 'terminal'; terminal: string } | { kind: 'process'; reason: string };

export interface VscodeWorkspaceOptions extends NodeWorkspaceOptions {
  /**
   * 'auto' (the default): commands run in a "Crow" terminal when its shell
   * integration is active, as child processes otherwise. 'process': always
   * as child processes.
   */
  commands?: 'auto' | 'process';
  /** How long a new terminal may take to activate shell integration before commands fall back. Default 5,000 ms. */
  shellIntegrationTimeoutMs?: number;
  /** Show the Crow terminal (focus stays put) when a command starts in it. Default true. */
  revealTerminal?: boolean;
  /** Told how each command runs, e.g. to log why the terminal is not used. */
  onCommandRoute?: (route: CommandRoute) => void;
}

const DEFAULT_SHELL_INTEGRATION_TIMEOUT_MS = 5_000;
/** Getting a terminal faster than this (an idle one) is not told apart from the command's time. */
const NOTICEABLE_STARTUP_MS = 50;
/** Longer commands (a heredoc writing a file) run as child processes rather than being typed into a terminal. */
const MAX_TERMINAL_COMMAND_CHARS = 8_000;

/**
 * The workspace as VS Code holds it. Reads see unsaved editor buffers;
 * writes go through WorkspaceEdit (undoable) and are saved; findFiles and
 * grep are ripgrep's, less what files.exclude hides; commands run in a
 * Crow terminal through shell integration, or as child processes when it
 * is missing. Paths are confined to the window's workspace folders: the
 * root first, the others by absolute path or by folder name.
 */
export class VscodeWorkspace implements Workspace, vscode.Disposable {
  readonly root: string;
  private readonly folders: WorkspaceFolders;
  private readonly filesExclude = new FilesExclude();
  private readonly terminals: { pool: CrowTerminalPool; release: () => void } | undefined;
  private readonly options: VscodeWorkspaceOptions;

  /** `root` is the session's workspace folder (an existing folder, absolute). */
  constructor(root: string, options: VscodeWorkspaceOptions = {}) {
    this.folders = new WorkspaceFolders(root, windowFolders, options);
    this.root = this.folders.root;
    this.options = options;
    this.terminals = options.commands === 'process' ? undefined : usePool(this.root);
  }

  folderPaths(): string[] {
    return this.folders.paths();
  }

  resolve(target: string): Promise<string> {
    return this.folders.resolve(target);
  }

  relative(target: string): string {
    return this.folders.relative(target);
  }

  async stat(target: string): Promise<EntryInfo | undefined> {
    const { absolute, folder } = await this.folders.locate(target);
    return folder.stat(absolute);
  }

  async readDirectory(target: string): Promise<DirectoryEntry[]> {
    const { absolute, folder } = await this.folders.locate(target);
    return folder.readDirectory(absolute);
  }

  async readFile(target: string): Promise<Uint8Array> {
    return readFileSeeingEditors(await this.resolve(target));
  }

  async writeFile(target: string, data: Uint8Array | string): Promise<void> {
    const { absolute, folder } = await this.folders.locate(target);
    // Its folders are made by Crow, never through a link out; the write itself goes through the editor (so Ctrl+Z takes it back).
    await folder.makeParentFolders(absolute);
    await writeFileThroughEditor(absolute, data, this.relative(absolute));
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    const { absolute: cwd, folder } = await this.folders.locate(options.cwd ?? '.');
    if ((await folder.stat(cwd))?.type !== 'directory') {
      throw new WorkspaceError(`Working directory "${options.cwd}" is not a folder in the workspace ${this.root}.`);
    }
    const tried = performance.now();
    const ran = await this.runInTerminalOrSayWhyNot(command, cwd, folder, options);
    if (typeof ran !== 'string') return ran;
    this.options.onCommandRoute?.({ kind: 'process', reason: ran });
    // A terminal that never became ready (its shell integration timed out) cost time the command did not use.
    const startupMs = performance.now() - tried;
    return withStartup(await folder.exec(command, { ...options, cwd }), startupMs);
  }

  /** The searches below run ripgrep: a process readied for the next. */
  prepareSearch(): void {
    readyRipgrep();
  }

  /** Commands mostly run in the first folder: its sandbox is readied (another folder's is looked at when its command starts). */
  prepareCommand(): void {
    this.folders.primary.prepareCommand();
  }

  /** ripgrep's files, less those files.exclude hides (asked of VS Code for the files found only). */
  findFiles(options: FindFilesOptions): Promise<FindFilesResult> {
    return findVisibleFiles(
      options,
      (limit) => findFilesWithRipgrep(this, { ...options, limit }),
      async (files) => {
        const byAbsolute = new Map(files.map((file) => [this.folders.absolutePath(file), file]));
        const hidden = await this.filesExclude.hiddenAmong([...byAbsolute.keys()], options.signal);
        return new Set([...hidden].map((file) => byAbsolute.get(file)!));
      },
    );
  }

  /**
   * ripgrep's matches, less those in files files.exclude hides (asked of
   * VS Code for the matched files only). Such matches still count toward
   * maxMatches, so a capped result may hold fewer.
   */
  async grep(options: GrepOptions): Promise<GrepResult> {
    const result = await grepWithRipgrep(this, options);
    const byAbsolute = new Map(result.matches.map((match) => [this.folders.absolutePath(match.path), match.path]));
    const hidden = await this.filesExclude.hiddenAmong([...byAbsolute.keys()], options.signal);
    if (hidden.size === 0) return result;
    const hiddenShown = new Set([...hidden].map((file) => byAbsolute.get(file)));
    return { ...result, matches: result.matches.filter((match) => !hiddenShown.has(match.path)) };
  }

  /** Whether commands run in the sandbox (the root's; every folder follows the same settings). */
  get sandboxed(): boolean {
    return this.folders.primary.sandboxed;
  }

  /** Contains the next commands as `sandbox` says, in the terminal and as child processes alike. */
  useSandbox(sandbox: SandboxOptions | undefined): void {
    this.folders.useSandbox(sandbox);
  }

  /** Closes the Crow terminals once no other workspace on the same root uses them. */
  dispose(): void {
    this.terminals?.release();
  }

  /** The command's result when it ran in a terminal; otherwise why it did not. */
  private async runInTerminalOrSayWhyNot(command: string, cwd: string, folder: NodeWorkspace, options: ExecOptions): Promise<ExecResult | string> {
    if (!this.terminals) return 'commands are set to run as child processes';
    if (command.length > MAX_TERMINAL_COMMAND_CHARS) return 'the command is too long to type into a terminal';
    // The terminal runs the command line the child-process route would: scrubbed, in the folder's sandbox.
    const launch = await folder.commandLaunch(cwd, options);
    try {
      const asked = performance.now();
      const offer = await this.terminals.pool.acquire({
        integrationTimeoutMs: this.options.shellIntegrationTimeoutMs ?? DEFAULT_SHELL_INTEGRATION_TIMEOUT_MS,
        reveal: this.options.revealTerminal ?? true,
        signal: options.signal,
      });
      if ('unavailable' in offer) return offer.unavailable;
      this.options.onCommandRoute?.({ kind: 'terminal', terminal: offer.lease.terminal.name });
      const startupMs = performance.now() - asked;
      offer.lease.prepare(cwd, inheritingCommandLine(launch, []));
      const result = await runInTerminal(offer.lease, terminalCommandLine(command), {
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        ...(options.onOutput ? { onOutput: options.onOutput } : {}),
        maxOutputChars: this.options.maxExecOutputChars ?? DEFAULT_MAX_EXEC_OUTPUT_CHARS,
        killGraceMs: this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      });
      // A new terminal takes a moment to start: that is not the command's time (an idle one is lent at once).
      return withStartup(result, startupMs);
    } finally {
      launch.release();
    }
  }
}

/** The result, with the time before the command could start when that was noticeable. */
function withStartup(result: ExecResult, startupMs: number): ExecResult {
  return startupMs >= NOTICEABLE_STARTUP_MS ? { ...result, startupMs: Math.round(startupMs) } : result;
}

/** The window's folders on disk (virtual file systems have no path a tool could use). */
function windowFolders(): FolderRef[] {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter((folder) => folder.uri.scheme === 'file')
    .map((folder) => ({ name: folder.name, path: folder.uri.fsPath }));
}
