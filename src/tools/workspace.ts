/**
 * How tools reach files and processes. Three backends implement it: Node
 * (fs, child_process), VS Code (workspace.fs, terminals) and an ACP client.
 * Every path a tool passes is workspace-relative or absolute; a backend
 * refuses any path that resolves outside its root (symlinks included) by
 * throwing a WorkspaceError whose message says what to do instead.
 */

import type { SandboxMode } from '../config/settings-file';

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface EntryInfo {
  type: EntryType;
  size: number;
  mtimeMs: number;
}

export interface DirectoryEntry {
  name: string;
  type: EntryType;
}

export interface ExecOptions {
  /** Workspace-relative working directory; the root when absent. */
  cwd?: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Called with output chunks as they arrive (stdout and stderr interleaved). */
  onOutput?: (chunk: string) => void;
  /**
   * Allow-list entries or "always" answers let the command run unasked: it
   * runs under the rules they assume (covered-command.ts), git running no
   * program its configuration names.
   */
  coveredByEntries?: boolean;
}

export interface ExecResult {
  /** null when the process was killed by a signal. */
  exitCode: number | null;
  /** Interleaved stdout and stderr, capped by the backend (head and tail kept). */
  output: string;
  /** Bytes dropped from the middle of the output, 0 when nothing was cut. */
  omittedBytes: number;
  timedOut: boolean;
  aborted: boolean;
  /** Time before the command could start (a terminal opening), when it was noticeable; not the command's own time. */
  startupMs?: number;
}

export interface FindFilesOptions {
  /**
   * Globs over paths relative to `path`; a file is listed when it matches
   * any, every file when absent or empty. Syntax of .gitignore and ripgrep's
   * --glob: `*` and `?` stay within a folder, a `**` segment spans folders,
   * `[a-z]` classes, `{a,b}` alternatives. A glob without "/" matches file
   * names at any depth (`*.ts` finds every .ts file); a leading "/" anchors it to `path`.
   * A glob never brings back a file that ignore files leave out.
   */
  globs?: string[];
  /** Workspace-relative folder to search; the root when absent. */
  path?: string;
  /**
   * 'path': alphabetical (folder by folder), the first `limit` of them.
   * 'modified' (the default): newest first. Knowing the newest of all
   * would take looking at every match, so the search stops at `limit`
   * like the other: when more match, the files are the first `limit`
   * found (which ones depends on the walk), by path.
   */
  sort?: 'modified' | 'path';
  /** Most files returned; the search stops once one more has matched. */
  limit: number;
  signal: AbortSignal;
}

export interface FindFilesResult {
  /** Workspace-relative paths (forward slashes), at most `limit`. */
  files: string[];
  /** More files match than `files` holds; how many more is not known (the search stopped). */
  truncated: boolean;
  /** Problems that did not stop the search (e.g. an unreadable folder), in the backend's words. */
  warnings: string[];
}

export interface GrepOptions {
  /** A regular expression (ripgrep syntax; look-around and backreferences allowed), or literal text with fixedStrings. */
  pattern: string;
  /** Workspace-relative folder or file to search; the root when absent. */
  path?: string;
  /** File-name globs such as `*.ts` or `*.{ts,tsx}` (no "/"); only files whose name matches one are searched. */
  include?: string[];
  ignoreCase?: boolean;
  /** Treat the pattern as literal text. */
  fixedStrings?: boolean;
  /** Lines kept before and after each match; none when absent. */
  context?: number;
  /** The search stops after this many matching lines. */
  maxMatches: number;
  signal: AbortSignal;
}

export interface GrepLine {
  /** 1-based. */
  line: number;
  /** The line without its ending; very long lines (minified code) are cut around the match and marked with "…". */
  text: string;
}

export interface GrepMatch extends GrepLine {
  /** Workspace-relative, forward slashes. */
  path: string;
  /** Context lines just before and after, in order; context shared by two nearby matches appears in both. */
  before: GrepLine[];
  after: GrepLine[];
}

export interface GrepResult {
  /** Matching lines, ordered by path, then line. */
  matches: GrepMatch[];
  /** More matches exist beyond maxMatches; which ones made the cut depends on search order. */
  truncated: boolean;
  /** Problems that did not stop the search (e.g. an unreadable file), in the backend's words. */
  warnings: string[];
}

export interface Workspace {
  /** Absolute path of the workspace root. */
  readonly root: string;
  /** Every folder the tools reach, the root first, as it is now (a window's folders change); absent: the root alone. */
  folderPaths?(): readonly string[];
  /** Absolute path for a workspace path; throws WorkspaceError when outside. */
  resolve(path: string): Promise<string>;
  /** Workspace-relative form of a path (forward slashes), for display. */
  relative(path: string): string;
  stat(path: string): Promise<EntryInfo | undefined>;
  readFile(path: string): Promise<Uint8Array>;
  /** Writes the file, creating parent folders. */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /**
   * Writes the file as writeFile would write the joined `parts`, without
   * joining them first: a large file edited in one place goes out as the
   * original's bytes around the new ones. Optional: writeParts joins the
   * parts for a backend without it.
   */
  writeFileParts?(path: string, parts: readonly Uint8Array[]): Promise<void>;
  readDirectory(path: string): Promise<DirectoryEntry[]>;
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
  /**
   * Whether exec runs commands in the sandbox: writes only inside the
   * workspace (its .git, .crow and .vscode excepted), no network unless
   * allowed, no view of Crow's processes or keys. Absent or false: not contained.
   */
  readonly sandboxed?: boolean;
  /** Why exec runs no command at all (a required sandbox that cannot run), with the ways out; undefined when commands run. */
  readonly commandsRefused?: string;
  /** Contains the next commands as `options` say (the folder's sandbox setting); absent: this backend has no sandbox. */
  useSandbox?(options: SandboxOptions | undefined): void;
  /**
   * Files under `path` matching the globs, honouring .gitignore and .ignore
   * files (with or without a git repository), hidden files included, .git
   * skipped, symlinks not followed. Rejects with the signal's reason when aborted.
   */
  findFiles(options: FindFilesOptions): Promise<FindFilesResult>;
  /**
   * Searches file contents under `path` with the same file selection as
   * findFiles (binary files skipped). An invalid pattern is a WorkspaceError
   * that explains what is wrong. Rejects with the signal's reason when aborted.
   */
  grep(options: GrepOptions): Promise<GrepResult>;
  /**
   * Readies what the next findFiles or grep starts with (a process to become
   * rg in): told while the model still streams a search call, so the search
   * does not pay for it. Cheap when already done; harmless when no search follows.
   */
  prepareSearch?(): void;
  /**
   * Readies what the next command's start needs (the sandbox's look for
   * the nested repositories it keeps read-only): told while the model still
   * streams a command call. Cheap when already done; harmless when no command follows.
   */
  prepareCommand?(): void;
}

/** How a workspace contains the commands it runs (see command-sandbox.ts). */
export interface SandboxOptions {
  mode: SandboxMode;
  /** Absolute paths commands may never change when they lie inside the workspace (Crow's config and data folders). */
  protectedPaths: readonly string[];
  /** Whether commands may use the network, loopback included. */
  network: boolean;
  /** While the network is off: domains commands may still reach, through Crow's filtering proxy (none: no proxy). */
  allowDomains?: readonly string[];
  /** The ports the proxy reaches on those domains (default DEFAULT_SANDBOX_PORTS). */
  allowPorts?: readonly number[];
  /** Whether the proxy reaches an allowed name that leads to a loopback, private, link-local or metadata address (default no). */
  allowPrivateAddresses?: boolean;
  /** The size of the sandbox's private /tmp in megabytes (default DEFAULT_SANDBOX_TMP_SIZE_MB). */
  tmpSizeMb?: number;
  /** Variables commands never see, besides those isSecretVariable recognizes (see secretVariableNames). */
  hiddenVariables: readonly string[];
}

export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
}

/** Writes the joined `parts` to the file, through the backend's writeFileParts when it has one. */
export function writeParts(workspace: Workspace, path: string, parts: readonly Uint8Array[]): Promise<void> {
  return workspace.writeFileParts ? workspace.writeFileParts(path, parts) : workspace.writeFile(path, Buffer.concat(parts));
}
