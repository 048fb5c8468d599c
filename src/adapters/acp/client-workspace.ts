import type { AgentContext, ClientCapabilities, TerminalHandle } from '@agentclientprotocol/sdk';
import { inheritingCommandLine, type SandboxOptions } from '../../tools/command-sandbox';
import { terminalShell } from '../../tools/command-shell';
import type { NodeWorkspace } from '../../tools/node-workspace';
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
import { errorText } from '../../vocabulary/text';

/** Bytes of command output a client terminal keeps (it drops the oldest first). */
const TERMINAL_OUTPUT_BYTES = 30_000;
/** A NUL byte in this many leading bytes marks a file as binary: those are read from disk, not as editor text. */
const BINARY_SNIFF_BYTES = 8_192;

/** What the workspace needs of the ACP connection for one session. */
export interface ClientBridge {
  sessionId: string;
  /** What the client offered at initialize. */
  capabilities: ClientCapabilities | undefined;
  client: Pick<AgentContext, 'request' | 'createTerminal'>;
  /** Shows a running terminal in the tool call that started it; resolves once the client has been told. */
  embedTerminal(terminalId: string): Promise<void>;
}

/**
 * The workspace as an ACP client sees it. Text files are read and written
 * through fs/read_text_file and fs/write_text_file when the client offers
 * them, so unsaved editor buffers are seen and edits land in the editor;
 * commands run in client terminals (embedded in the tool call) when the
 * client offers terminals. Everything else (paths and confinement, stat,
 * listings, search, binary files) is the Node backend on the same root.
 */
export class ClientWorkspace implements Workspace {
  readonly root: string;

  constructor(
    private readonly local: NodeWorkspace,
    private readonly bridge: ClientBridge,
  ) {
    this.root = local.root;
  }

  get sandboxed(): boolean {
    return this.local.sandboxed;
  }

  useSandbox(options: SandboxOptions | undefined): void {
    this.local.useSandbox(options);
  }

  resolve(path: string): Promise<string> {
    return this.local.resolve(path);
  }

  relative(path: string): string {
    return this.local.relative(path);
  }

  stat(path: string): Promise<EntryInfo | undefined> {
    return this.local.stat(path);
  }

  readDirectory(path: string): Promise<DirectoryEntry[]> {
    return this.local.readDirectory(path);
  }

  findFiles(options: FindFilesOptions): Promise<FindFilesResult> {
    return this.local.findFiles(options);
  }

  grep(options: GrepOptions): Promise<GrepResult> {
    return this.local.grep(options);
  }

  prepareSearch(): void {
    this.local.prepareSearch();
  }

  prepareCommand(): void {
    this.local.prepareCommand();
  }

  async readFile(path: string): Promise<Uint8Array> {
    if (!this.bridge.capabilities?.fs?.readTextFile) return this.local.readFile(path);
    const absolute = await this.local.resolve(path);
    const onDisk = await this.local.readFile(absolute).catch(() => undefined);
    if (onDisk && onDisk.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return onDisk;
    try {
      const answer: unknown = await this.bridge.client.request('fs/read_text_file', { sessionId: this.bridge.sessionId, path: absolute });
      return new TextEncoder().encode(textOf(answer));
    } catch (err) {
      if (onDisk) return onDisk;
      throw new WorkspaceError(`Cannot read ${this.relative(absolute)}: ${errorText(err)}`);
    }
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const text = typeof data === 'string' ? data : utf8(data);
    if (!this.bridge.capabilities?.fs?.writeTextFile || text === undefined) return this.local.writeFile(path, data);
    const absolute = await this.local.resolve(path);
    await this.local.makeParentFolders(absolute);
    await this.bridge.client.request('fs/write_text_file', { sessionId: this.bridge.sessionId, path: absolute, content: text });
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    if (!this.bridge.capabilities?.terminal) return this.local.exec(command, options);
    const cwd = await this.folder(options.cwd);
    // The client's terminal runs the command as the Node backend would: scrubbed, in the same sandbox.
    const launch = await this.local.commandLaunch(cwd, options);
    const shell = terminalShell();
    if ('problem' in shell) {
      launch.release();
      throw new WorkspaceError(`Not run: ${shell.problem}`);
    }
    const [program, ...args] = inheritingCommandLine(launch, [shell.shell, '-c', command]) as [string, ...string[]];
    const terminal = await this.bridge.client
      .createTerminal({ sessionId: this.bridge.sessionId, command: program, args, cwd, outputByteLimit: TERMINAL_OUTPUT_BYTES })
      .catch((err: unknown) => {
        launch.release();
        throw err;
      });
    let released = false;
    try {
      if (typeof terminal.id !== 'string' || terminal.id === '') throw new WorkspaceError(`The client answered terminal/create without a terminal id (${shapeOf(terminal.id)}).`);
      await this.bridge.embedTerminal(terminal.id);
      const ending = await waitForEnd(terminal, options);
      if (ending === 'aborted') {
        // The prompt is being cancelled: do not wait on the client for output nobody will read.
        released = true;
        void terminal
          .kill()
          .finally(() => {
            launch.release();
            return terminal.release();
          })
          .catch(() => undefined);
        return { exitCode: null, output: '', omittedBytes: 0, timedOut: false, aborted: true };
      }
      if (ending === 'timeout') await terminal.kill();
      const { output, truncated, exitStatus } = terminalOutput(await terminal.currentOutput());
      return {
        exitCode: exitStatus?.exitCode ?? null,
        output: truncated ? `[earlier output was cut by the client]\n${output}` : output,
        // Terminals drop the oldest output without saying how much; the note above marks the cut.
        omittedBytes: 0,
        timedOut: ending === 'timeout',
        aborted: false,
      };
    } finally {
      if (!released) {
        launch.release();
        void terminal.release().catch(() => undefined);
      }
    }
  }

  private async folder(cwd: string | undefined): Promise<string> {
    if (cwd === undefined) return this.root;
    const absolute = await this.local.resolve(cwd);
    if ((await this.local.stat(absolute))?.type !== 'directory') {
      throw new WorkspaceError(`Working directory "${cwd}" is not a folder in the workspace ${this.root}.`);
    }
    return absolute;
  }
}

/** How a terminal's command ended from our side: it exited, ran out of time, or the prompt was cancelled. */
function waitForEnd(terminal: TerminalHandle, options: ExecOptions): Promise<'exited' | 'timeout' | 'aborted'> {
  if (options.signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    const onAbort = (): void => finish('aborted');
    const finish = (ending: 'exited' | 'timeout' | 'aborted'): void => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve(ending);
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    terminal.waitForExit().then(
      () => finish('exited'),
      (err: unknown) => {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/*
 * What the client answers is checked before it is used (the SDK checks what
 * the client is sent, not what it answers): an answer of another shape is a
 * failed request, never text or an exit code made up from it.
 */

/** The text of an fs/read_text_file answer. */
function textOf(answer: unknown): string {
  const content = (answer as { content?: unknown } | null)?.content;
  if (typeof content !== 'string') throw new Error(`the client answered fs/read_text_file without a text content (${shapeOf(answer)})`);
  return content;
}

/** A terminal/output answer, as the protocol has it (TerminalOutputResponse). */
function terminalOutput(answer: unknown): { output: string; truncated: boolean; exitStatus: { exitCode: number | null } | null } {
  const { output, truncated, exitStatus } = (answer ?? {}) as { output?: unknown; truncated?: unknown; exitStatus?: unknown };
  const exited = exitStatus === undefined || exitStatus === null ? null : exitStatus;
  const exitCode = typeof exited === 'object' && exited !== null ? ((exited as { exitCode?: unknown }).exitCode ?? null) : undefined;
  const fits = typeof output === 'string' && typeof truncated === 'boolean' && (exited === null || exitCode === null || Number.isInteger(exitCode));
  if (!fits) throw new WorkspaceError(`The client's answer to terminal/output is not one the protocol allows (${shapeOf(answer)}); the command's output is unknown.`);
  return { output, truncated, exitStatus: exited === null ? null : { exitCode: exitCode as number | null } };
}

/** A short description of what a client sent instead, for an error message (its content is the client's, and may be large). */
function shapeOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return `got ${value === null ? 'null' : typeof value}`;
  if (Array.isArray(value)) return 'got an array';
  return `got an object with ${Object.keys(value).slice(0, 5).join(', ') || 'no fields'}`;
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    // A byte order mark is part of the file: the text the client writes keeps it.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
