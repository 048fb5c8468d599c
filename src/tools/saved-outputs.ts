/**
 * Output a tool produced beyond what the model is given, kept whole in the
 * session's folder (`<session>/outputs/`) and redacted as the history is,
 * so that the model can read any part of it later with read_file.
 *
 * read_file opens these files and nothing else outside the workspace:
 * `owns` accepts only an absolute path in this very folder, written exactly
 * as it was handed out (no `..`, no doubled slashes), whose name is one this
 * store gives; `read` refuses a folder or file that is a symbolic link,
 * anything but a regular file, and a folder or file that is not crow's own
 * (config/private-files.ts): what the model reads back is what crow wrote.
 */
import { randomBytes } from 'node:crypto';
import { constants, type promises as fsp, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { privateFileProblem, privateFolderProblem } from '../config/private-files';
import { errorText } from '../vocabulary/text';

/** One output kept whole: where, and how big. */
export interface SavedOutput {
  /** Absolute path, as the model is told it. */
  path: string;
  lines: number;
  bytes: number;
}

/** A saved output stops growing here; the file then says how much more there was. */
export const MAX_SAVED_BYTES = 16 * 1024 * 1024;
/** Streamed output is held in memory up to this size before it goes to disk (most calls never need a file). */
const MEMORY_BYTES = 1024 * 1024;
/** A line longer than this is redacted and written in parts... */
const PENDING_CHARS = 64 * 1024;
/** ...keeping this much back, so a secret cut across two chunks is still whole when it is redacted. */
const HOLD_CHARS = 4 * 1024;
/** `bash-1a2b3c4d5e6f.txt`: the tool's name (made safe) and 48 random bits. */
const NAME = /^[a-z0-9_]{1,40}-[0-9a-f]{12}\.txt$/;

export class SavedOutputs {
  readonly folder: string;

  /** `redact` is the session's: what reaches the file passes it as history entries do. */
  constructor(
    folder: string,
    readonly redact: (text: string) => string,
    readonly maxBytes = MAX_SAVED_BYTES,
  ) {
    this.folder = path.resolve(folder);
  }

  /** Collects one call's streamed output; nothing stays on disk unless it is kept. */
  spool(tool: string): OutputSpool {
    return new OutputSpool(this, tool);
  }

  /** Saves a whole text at once. */
  save(tool: string, text: string): Promise<SavedOutput> {
    const spool = this.spool(tool);
    spool.push(text);
    return spool.keep();
  }

  /** Whether `candidate` names one of this store's outputs, written exactly as handed out. */
  owns(candidate: string): boolean {
    return (
      path.isAbsolute(candidate) &&
      path.resolve(candidate) === candidate &&
      path.dirname(candidate) === this.folder &&
      NAME.test(path.basename(candidate))
    );
  }

  /** The bytes of a saved output; throws, saying so, for anything this store did not save. */
  async read(file: string): Promise<Uint8Array> {
    const missing = new Error(`No saved output at ${file}: only the paths tool results name can be read this way.`);
    if (!this.owns(file)) throw missing;
    const folder = await fs.lstat(this.folder).catch(() => undefined);
    if (!folder?.isDirectory() || privateFolderProblem(this.folder) !== undefined) throw missing;
    let handle: fsp.FileHandle;
    try {
      handle = await fs.open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch {
      throw missing;
    }
    try {
      if (privateFileProblem(await handle.stat(), file) !== undefined) throw missing;
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /** A new, unused path for an output of `tool`. */
  newPath(tool: string): string {
    const slug = tool.toLowerCase().replace(/[^a-z0-9_]+/g, '_').slice(0, 40) || 'tool';
    return path.join(this.folder, `${slug}-${randomBytes(6).toString('hex')}.txt`);
  }
}

/**
 * The output of one call as it streams: redacted line by line, held in
 * memory while small, written to its file once large, capped at the
 * store's maxBytes. Push synchronously; then keep() or discard() once.
 */
export class OutputSpool {
  /** Text not yet redacted (the unfinished last line). */
  private pending = '';
  private memory: string[] = [];
  private memoryBytes = 0;
  private bytes = 0;
  private lines = 0;
  private endsWithNewline = true;
  private dropped = 0;
  private file: { path: string; handle: Promise<fsp.FileHandle> } | undefined;
  private writes: Promise<void> = Promise.resolve();
  private failure: string | undefined;
  private done = false;

  constructor(
    private readonly store: SavedOutputs,
    private readonly tool: string,
  ) {}

  /** Whether anything was pushed. */
  get empty(): boolean {
    return this.bytes === 0 && this.pending === '';
  }

  push(chunk: string): void {
    if (this.done || chunk === '') return;
    this.pending += chunk;
    const cut = this.pending.lastIndexOf('\n') + 1;
    if (cut > 0) {
      this.accept(this.store.redact(this.pending.slice(0, cut)));
      this.pending = this.pending.slice(cut);
    } else if (this.pending.length > PENDING_CHARS) {
      const redacted = this.store.redact(this.pending);
      this.accept(redacted.slice(0, -HOLD_CHARS));
      this.pending = redacted.slice(-HOLD_CHARS);
    }
  }

  /** Writes everything to the file and says where it is; rejects when it could not be written (the file is then removed). */
  async keep(): Promise<SavedOutput> {
    this.done = true;
    if (this.pending !== '') this.accept(this.store.redact(this.pending));
    this.pending = '';
    if (this.dropped > 0) this.memory.push(`\n[… saving stopped at ${size(this.store.maxBytes)}: ${this.dropped} more bytes were not saved]\n`);
    this.spill();
    await this.closeFile();
    if (!this.file) throw new Error('There was no output to save.');
    const file = this.file.path;
    if (this.failure !== undefined) {
      await fs.rm(file, { force: true }).catch(() => undefined);
      throw new Error(`Could not save the whole output to ${file}: ${this.failure}`);
    }
    return { path: file, lines: this.lines + (this.endsWithNewline ? 0 : 1), bytes: this.bytes };
  }

  /** Forgets the output, removing its file if one was started. */
  async discard(): Promise<void> {
    this.done = true;
    this.pending = '';
    this.memory = [];
    await this.closeFile();
    if (this.file) await fs.rm(this.file.path, { force: true }).catch(() => undefined);
  }

  private accept(text: string): void {
    if (text === '') return;
    const size = Buffer.byteLength(text);
    const room = this.store.maxBytes - this.bytes;
    if (size > room) {
      this.dropped += size - Math.max(room, 0);
      if (room <= 0) return;
      text = Buffer.from(text).subarray(0, room).toString();
    }
    const kept = Math.min(size, room);
    this.bytes += kept;
    this.lines += countNewlines(text);
    this.endsWithNewline = text.endsWith('\n');
    this.memory.push(text);
    this.memoryBytes += kept;
    if (this.memoryBytes > MEMORY_BYTES) this.spill();
  }

  /** Sends what memory holds to the file, after the writes before it. */
  private spill(): void {
    if (this.memory.length === 0) return;
    const text = this.memory.join('');
    this.memory = [];
    this.memoryBytes = 0;
    if (!this.file) {
      const target = this.store.newPath(this.tool);
      this.file = { path: target, handle: this.create(target) };
    }
    const file = this.file;
    this.writes = this.writes.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await (await file.handle).write(text);
      } catch (err) {
        this.failure = errorText(err);
      }
    });
  }

  /** Opens a new file (owner only; never an existing file or link) in a folder only the owner may enter. */
  private create(target: string): Promise<fsp.FileHandle> {
    const opened = fs
      .mkdir(this.store.folder, { recursive: true, mode: PRIVATE_DIR_MODE })
      .then(() => fs.open(target, 'wx', PRIVATE_FILE_MODE));
    opened.catch(() => undefined);
    return opened;
  }

  private async closeFile(): Promise<void> {
    await this.writes;
    if (!this.file) return;
    const handle = await this.file.handle.catch(() => undefined);
    await handle?.close().catch(() => undefined);
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${bytes.toLocaleString('en-US')} bytes`;
}
