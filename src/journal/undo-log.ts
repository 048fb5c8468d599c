/** A copy of the user's git index: its path, its content (a blob of the shadow) and the index file's time then. */
export interface SavedIndex {
  path: string;
  blob: string;
  /** Put back with the content (see keepIndexTime); absent in logs of earlier versions. */
  mtimeMs?: number;
}

/**
 * Where `crow undo` finds what to go back to: an append-only JSON-lines log
 * per workspace, under <dataHome>/undo/<key>.jsonl. A prompt's undo point is
 * written as it happens, one line per fact, so a crash loses nothing
 * recorded before it: the point's start, the snapshot of the workspace
 * before it (when that finishes), the files a tool was about to change as
 * they were, the files each command changed, and what could not be
 * recorded. Reading folds the lines of each point into one UndoEntry.
 *
 * Lines written before per-file undo (one line per prompt with a whole-tree
 * snapshot and no point id) are still read: undoing one restores that tree.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { dataHome, PRIVATE_FILE_MODE } from '../config/paths';
import { makeOwnFilePrivate, privateFileProblem, privateFolderProblem, readPrivateFile } from '../config/private-files';
import type { FileState } from './file-states';
import { realWorkspace, workspaceKey } from '../vocabulary/workspace-key';

export interface UndoEntry {
  /** The session the prompt belongs to. */
  sessionId: string;
  /** The prompt, cut to PROMPT_CHARS characters. */
  prompt: string;
  /** When the prompt started, in ms since the epoch. */
  at: number;
  /** Real path of the workspace root. */
  workspace: string;
  /** Snapshot of the workspace just before the prompt, once recorded. */
  snapshot?: string;
  /**
   * How undo finds what changed. 'points': the files tools named (with
   * their earlier states) and the files commands changed (their earlier
   * states are in `snapshot`). 'tree' (entries of earlier versions):
   * everything that differs from `snapshot`.
   */
  scope: 'points' | 'tree';
  /** Each file a tool changed, as it was before the prompt first changed it. */
  files: FileState[];
  /** Files commands changed that no tool had changed before in the prompt. */
  commandPaths: string[];
  /** The user's git index, saved before a command of the prompt changed it. */
  userIndex?: SavedIndex;
  /** What the prompt changed that undo cannot put back, and why, as a person reads it. */
  gaps: string[];
  /** The point's id (entries of earlier versions have none). */
  point?: string;
  /** Each change of the prompt in the order it began, with what it found: what a checkpoint is restored from. */
  steps: UndoStep[];
  /** Checkpoints inside the prompt, by id, at their place among the steps. */
  marks: { id: string; seq: number }[];
  /** Changes after this place in the point have been undone (a restore); absent: none. */
  undone?: number;
  /** The seq of the command that changed the user's index, when known. */
  userIndexSeq?: number;
}

/**
 * One change of a prompt, numbered in the order it began: a file tool's
 * files as they were before it, or the paths a command changed with the
 * snapshot of the workspace before it (absent when it could not be taken).
 */
export type UndoStep = { seq: number; files: FileState[] } | { seq: number; commandPaths: string[]; before?: string };

/** One line of the log. */
type UndoRecord =
  | { point: string; start: { sessionId: string; prompt: string; at: number; workspace: string } }
  | { point: string; snapshot: string }
  | { point: string; files: FileState[] }
  | { point: string; commandPaths: string[] }
  | { point: string; step: UndoStep }
  | { point: string; mark: string; seq: number }
  | { point: string; undone: number }
  | { point: string; userIndex: SavedIndex; seq?: number }
  | { point: string; gap: string };

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

/** Appends of this process to each log file, in order (whichever UndoLog makes them): a point's lines never overtake each other, and a read waits for them. */
const appends = new Map<string, Promise<unknown>>();

export class UndoLog {
  readonly file: string;
  readonly workspace: string;
  private readonly onWarning: (message: string) => void;

  constructor(options: UndoLogOptions) {
    this.workspace = realWorkspace(options.workspace);
    this.file = join(options.dataHome ?? dataHome(), 'undo', `${workspaceKey(this.workspace)}.jsonl`);
    this.onWarning = options.onWarning ?? (() => undefined);
  }

  /** Starts a point for a prompt; returns its id. */
  async start(sessionId: string, prompt: string, at = Date.now()): Promise<string> {
    const point = randomUUID();
    await this.append({ point, start: { sessionId, prompt: prompt.slice(0, PROMPT_CHARS), at, workspace: this.workspace } });
    return point;
  }

  snapshot(point: string, snapshot: string): Promise<void> {
    return this.append({ point, snapshot });
  }

  files(point: string, files: FileState[]): Promise<void> {
    return this.append({ point, files });
  }

  commandPaths(point: string, commandPaths: string[]): Promise<void> {
    return this.append({ point, commandPaths });
  }

  /**
   * A change of the prompt (see UndoStep), written once `ready` (the
   * objects its states name) is: a line never names an object not on disk.
   * The step may still be being made (a file tool's copies hashed beside
   * its change): its place in the log is taken now, so a read of the log
   * from now on waits for it.
   */
  step(point: string, step: UndoStep | Promise<UndoStep>, ready?: Promise<unknown>): Promise<void> {
    return this.append(Promise.resolve(step).then((made) => ({ point, step: made })), ready);
  }

  /** A checkpoint at `seq` among the point's steps. */
  mark(point: string, mark: string, seq: number): Promise<void> {
    return this.append({ point, mark, seq });
  }

  /** The point's changes after `seq` were undone (0: all of them). */
  undone(point: string, seq: number): Promise<void> {
    return this.append({ point, undone: seq });
  }

  userIndex(point: string, userIndex: SavedIndex, seq?: number): Promise<void> {
    return this.append({ point, userIndex, ...(seq !== undefined ? { seq } : {}) });
  }

  gap(point: string, gap: string): Promise<void> {
    return this.append({ point, gap });
  }

  /**
   * The most recent entry with something left to undo, of `sessionId` when
   * given: a prompt already undone (or rewound past) is skipped, so undoing
   * again goes one prompt further back.
   */
  async latest(sessionId?: string): Promise<UndoEntry | undefined> {
    const entries = await this.list();
    return entries.reverse().find((entry) => (sessionId === undefined || entry.sessionId === sessionId) && !fullyUndone(entry));
  }

  /** Every readable entry, oldest first. */
  async list(): Promise<UndoEntry[]> {
    // What this process is still writing to the log is part of it.
    await appends.get(this.file);
    const text = readOwnLog(this.file);
    const entries: UndoEntry[] = [];
    const points = new Map<string, UndoEntry>();
    for (const [i, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue;
      const parsed = parseLine(line);
      if (parsed === undefined) {
        this.onWarning(`undo log ${this.file}: line ${i + 1} is damaged and was skipped`);
      } else if ('scope' in parsed) {
        entries.push(parsed);
      } else if ('start' in parsed) {
        const entry: UndoEntry = { ...parsed.start, point: parsed.point, scope: 'points', files: [], commandPaths: [], gaps: [], steps: [], marks: [] };
        points.set(parsed.point, entry);
        entries.push(entry);
      } else {
        const entry = points.get(parsed.point);
        if (entry) fold(entry, parsed);
      }
    }
    for (const entry of entries) settleSteps(entry);
    return entries;
  }

  private append(record: UndoRecord | Promise<UndoRecord>, ready?: Promise<unknown>): Promise<void> {
    // A record that fails is reported by `write`; when `ready` fails first it is never awaited, and must not go unhandled.
    if (record instanceof Promise) record.catch(() => undefined);
    const write = (appends.get(this.file) ?? Promise.resolve())
      .then(() => ready)
      .then(async () => appendLine(this.file, JSON.stringify(await record)));
    const settled = write.catch(() => undefined);
    appends.set(this.file, settled);
    void settled.then(() => {
      if (appends.get(this.file) === settled) appends.delete(this.file);
    });
    return write;
  }
}

/** Whether every change the point recorded has been undone (those after `undone` are; none may come before it). */
function fullyUndone(entry: UndoEntry): boolean {
  const { undone } = entry;
  if (undone === undefined) return false;
  return entry.steps.every((step) => step.seq > undone);
}

function fold(entry: UndoEntry, record: Exclude<UndoRecord, { start: unknown }>): void {
  if ('snapshot' in record) entry.snapshot = record.snapshot;
  else if ('files' in record) entry.files.push(...record.files);
  else if ('commandPaths' in record) entry.commandPaths.push(...record.commandPaths);
  else if ('step' in record) entry.steps.push(record.step);
  else if ('mark' in record) entry.marks.push({ id: record.mark, seq: record.seq });
  else if ('undone' in record) entry.undone = Math.min(entry.undone ?? Infinity, record.undone);
  else if ('userIndex' in record) {
    entry.userIndex = record.userIndex;
    if (record.seq !== undefined) entry.userIndexSeq = record.seq;
  } else entry.gaps.push(record.gap);
}

/**
 * Puts a point's steps in the order they began (lines may be written in
 * another order) and derives what undoing the whole prompt needs from them:
 * each path's state before the prompt's first change to it.
 */
function settleSteps(entry: UndoEntry): void {
  if (entry.steps.length === 0) return;
  entry.steps.sort((a, b) => a.seq - b.seq);
  entry.marks.sort((a, b) => a.seq - b.seq);
  const touched = new Set([...entry.files.map((state) => state.path), ...entry.commandPaths]);
  for (const step of entry.steps) {
    const paths = 'files' in step ? step.files.map((state) => state.path) : step.commandPaths;
    for (const [i, path] of paths.entries()) {
      if (touched.has(path)) continue;
      touched.add(path);
      if ('files' in step) entry.files.push(step.files[i]!);
      else entry.commandPaths.push(path);
    }
  }
}

/**
 * The undo log names the files a restore writes and deletes, so it is read
 * and written only as Crow's own (see config/private-files.ts): in a folder
 * of this user no other user can change, a file of this user only, never
 * through a link. Anything else is refused, saying what to do.
 */
class ForeignLogError extends Error {
  constructor(problem: string) {
    super(`Undo's log is kept and read only where no other user could change it: ${problem}. Remove it (undo forgets the prompts it held), or set XDG_DATA_HOME to a folder of your own.`);
    this.name = 'ForeignLogError';
  }
}

/** The log's text, '' when there is none yet; throws ForeignLogError when it, or its folder, is not Crow's own. */
function readOwnLog(file: string): string {
  const folderProblem = privateFolderProblem(dirname(file));
  if (folderProblem !== undefined) throw new ForeignLogError(folderProblem);
  makeOwnFilePrivate(file);
  const read = readPrivateFile(file);
  if ('problem' in read) throw new ForeignLogError(read.problem);
  return 'missing' in read ? '' : read.bytes.toString('utf8');
}

/** Log files whose folder this process found to be its own (made when missing) and that it made private: checked once each. */
const checkedLogs = new Set<string>();

async function appendLine(file: string, line: string): Promise<void> {
  if (!checkedLogs.has(file)) {
    const problem = privateFolderProblem(dirname(file), { create: true });
    if (problem !== undefined) throw new ForeignLogError(problem);
    makeOwnFilePrivate(file);
    checkedLogs.add(file);
  }
  const handle = await open(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), PRIVATE_FILE_MODE).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ELOOP' || err.code === 'EMLINK' ? new ForeignLogError(`${file} is a link`) : err;
  });
  try {
    const problem = privateFileProblem(await handle.stat(), file);
    if (problem !== undefined) throw new ForeignLogError(problem);
    // A torn last line must not swallow this one: start on a line of its own.
    const { size } = await handle.stat();
    const last = Buffer.alloc(1);
    if (size > 0) await handle.read(last, 0, 1, size - 1);
    const separator = size > 0 && last[0] !== 0x0a ? '\n' : '';
    await handle.appendFile(`${separator}${line}\n`);
  } finally {
    await handle.close();
  }
}

/** A point's line, a whole entry of an earlier version, or undefined when the line is damaged. */
function parseLine(line: string): UndoRecord | UndoEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.point === 'string') return validRecord(record) ? (record as UndoRecord) : undefined;
  const valid =
    typeof record.sessionId === 'string' &&
    typeof record.snapshot === 'string' &&
    typeof record.prompt === 'string' &&
    typeof record.at === 'number' &&
    typeof record.workspace === 'string';
  if (!valid) return undefined;
  const { sessionId, snapshot, prompt, at, workspace } = record as Record<string, never>;
  return { sessionId, snapshot, prompt, at, workspace, scope: 'tree', files: [], commandPaths: [], gaps: [], steps: [], marks: [] };
}

function validRecord(record: Record<string, unknown>): boolean {
  const start = record.start as Record<string, unknown> | undefined;
  if (start !== undefined) {
    return typeof start.sessionId === 'string' && typeof start.prompt === 'string' && typeof start.at === 'number' && typeof start.workspace === 'string';
  }
  if (typeof record.snapshot === 'string' || typeof record.gap === 'string') return true;
  if (typeof record.mark === 'string') return isSeq(record.seq);
  if (record.undone !== undefined) return isSeq(record.undone);
  if (record.step !== undefined) return isStep(record.step);
  if (Array.isArray(record.commandPaths)) return record.commandPaths.every((path) => typeof path === 'string');
  if (Array.isArray(record.files)) return record.files.every(isFileState);
  const index = record.userIndex as Record<string, unknown> | undefined;
  return typeof index?.path === 'string' && typeof index.blob === 'string' && (index.mtimeMs === undefined || typeof index.mtimeMs === 'number');
}

function isSeq(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isStep(value: unknown): value is UndoStep {
  const step = value as Record<string, unknown> | null;
  if (!step || !isSeq(step.seq)) return false;
  if (Array.isArray(step.files)) return step.files.every(isFileState);
  return Array.isArray(step.commandPaths) && step.commandPaths.every((path) => typeof path === 'string') && (step.before === undefined || typeof step.before === 'string');
}

function isFileState(value: unknown): value is FileState {
  const state = value as Record<string, unknown> | null;
  if (typeof state?.path !== 'string') return false;
  if (state.absent === true) return true;
  return typeof state.mode === 'string' && /^1(00644|00755|20000)$/.test(state.mode) && typeof state.blob === 'string' && /^[0-9a-f]{40,64}$/.test(state.blob);
}
