/**
 * Where `crow undo` finds what to go back to: an append-only JSON-lines log
 * per workspace, under <dataHome>/undo/<key>.jsonl, with one entry written
 * just before each prompt runs.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { dataHome, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { realWorkspace, workspaceKey } from './workspace-key';

export interface UndoEntry {
  /** The session the prompt belongs to. */
  sessionId: string;
  /** Snapshot id of the workspace just before the prompt ran. */
  snapshot: string;
  /** The prompt, cut to PROMPT_CHARS characters. */
  prompt: string;
  /** When the entry was recorded, in ms since the epoch. */
  at: number;
  /** Real path of the workspace root. */
  workspace: string;
}

export interface UndoLogOptions {
  /** Workspace root; the log belongs to its real path. */
  workspace: string;
  /** Folder of crow's data (default: dataHome()). */
  dataHome?: string;
  /** Told about lines that cannot be read (a write torn by a crash), which are skipped. */
  onWarning?: (message: string) => void;
}

/** Longest prompt kept in an entry: enough to recognise it, not a copy of a piped file. */
export const PROMPT_CHARS = 1_000;

export class UndoLog {
  readonly file: string;
  private readonly workspace: string;
  private readonly onWarning: (message: string) => void;

  constructor(options: UndoLogOptions) {
    this.workspace = realWorkspace(options.workspace);
    this.file = join(options.dataHome ?? dataHome(), 'undo', `${workspaceKey(this.workspace)}.jsonl`);
    this.onWarning = options.onWarning ?? (() => undefined);
  }

  /** Appends an entry; `at` defaults to now. */
  async record(entry: { sessionId: string; snapshot: string; prompt: string; at?: number }): Promise<UndoEntry> {
    const recorded: UndoEntry = {
      sessionId: entry.sessionId,
      snapshot: entry.snapshot,
      prompt: entry.prompt.slice(0, PROMPT_CHARS),
      at: entry.at ?? Date.now(),
      workspace: this.workspace,
    };
    await mkdir(dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const handle = await open(this.file, 'a+', PRIVATE_FILE_MODE);
    try {
      // A torn last line must not swallow this entry: start on a line of its own.
      const { size } = await handle.stat();
      const last = Buffer.alloc(1);
      if (size > 0) await handle.read(last, 0, 1, size - 1);
      const separator = size > 0 && last[0] !== 0x0a ? '\n' : '';
      await handle.appendFile(`${separator}${JSON.stringify(recorded)}\n`);
    } finally {
      await handle.close();
    }
    return recorded;
  }

  /** The most recent entry, of `sessionId` when given. */
  async latest(sessionId?: string): Promise<UndoEntry | undefined> {
    const entries = await this.list();
    return entries.reverse().find((entry) => sessionId === undefined || entry.sessionId === sessionId);
  }

  /** Every readable entry, oldest first. */
  async list(): Promise<UndoEntry[]> {
    const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    const entries: UndoEntry[] = [];
    for (const [i, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue;
      const entry = parseEntry(line);
      if (entry) entries.push(entry);
      else this.onWarning(`undo log ${this.file}: line ${i + 1} is damaged and was skipped`);
    }
    return entries;
  }
}

function parseEntry(line: string): UndoEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const entry = value as Partial<UndoEntry> | null;
  const valid =
    typeof entry?.sessionId === 'string' &&
    typeof entry.snapshot === 'string' &&
    typeof entry.prompt === 'string' &&
    typeof entry.at === 'number' &&
    typeof entry.workspace === 'string';
  return valid ? (entry as UndoEntry) : undefined;
}
