/**
 * How tools reach files and processes. Three backends implement it: Node
 * (fs, child_process), VS Code (workspace.fs, terminals) and an ACP client.
 * Every path a tool passes is workspace-relative or absolute; a backend
 * refuses any path that resolves outside its root (symlinks included) by
 * throwing a WorkspaceError whose message says what to do instead.
 */

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
}

export interface Workspace {
  /** Absolute path of the workspace root. */
  readonly root: string;
  /** Absolute path for a workspace path; throws WorkspaceError when outside. */
  resolve(path: string): Promise<string>;
  /** Workspace-relative form of a path (forward slashes), for display. */
  relative(path: string): string;
  stat(path: string): Promise<EntryInfo | undefined>;
  readFile(path: string): Promise<Uint8Array>;
  /** Writes the file, creating parent folders. */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  readDirectory(path: string): Promise<DirectoryEntry[]>;
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
}

export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
}
