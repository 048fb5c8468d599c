import { closeSync, fdatasyncSync, fstatSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../config/paths';

/**
 * Appends JSON lines with write(2) per line, so a line is in the kernel
 * (durable against a crash or kill -9 of this process) when `append`
 * returns; with `fsync` it is on disk (durable against power loss) too.
 * A new file is readable by its owner only.
 */
export class JsonlAppender {
  private fd: number | undefined;
  /** The file's size after this appender's last write (undefined before its first). */
  private end: number | undefined;

  constructor(
    readonly file: string,
    private readonly fsync = false,
  ) {}

  append(value: unknown): void {
    if (this.fd === undefined) {
      this.fd = openSync(this.file, 'a', PRIVATE_FILE_MODE);
      this.end = fstatSync(this.fd).size;
    }
    this.end! += writeSync(this.fd, `${JSON.stringify(value)}\n`);
    if (this.fsync) fdatasyncSync(this.fd);
  }

  /** Bytes in the file once this appender's last line is in; undefined when it has written nothing yet. */
  get size(): number | undefined {
    return this.end;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Reads a JSON-lines file. A line that does not parse is skipped with a
 * warning naming file and line; a torn last line (a write cut short) is the
 * usual case. A missing file reads as empty.
 */
export function readJsonl<T>(file: string, warn: (message: string) => void): T[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseLines<T>(text, file, warn);
}

/**
 * The values of the JSON lines in `text`, as readJsonl reads them. `from`:
 * the byte of the file where `text` starts, when it is not the start (the
 * warning then names the byte, since the line number is not known).
 */
export function parseLines<T>(text: string, file: string, warn: (message: string) => void, from?: number): T[] {
  return parsedLines<T>(text, file, warn, from).values;
}

/**
 * As parseLines, with the byte of the file where each value's line starts
 * (`from` is where `text` starts: a line boundary).
 */
export function parsedLines<T>(text: string, file: string, warn: (message: string) => void, from?: number): { values: T[]; offsets: number[] } {
  const values: T[] = [];
  const offsets: number[] = [];
  let char = 0;
  let byte = from ?? 0;
  for (let index = 0; char <= text.length; index++) {
    const end = text.indexOf('\n', char);
    const line = text.slice(char, end < 0 ? text.length : end);
    const at = byte;
    char += line.length + 1;
    byte += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line) as T);
      offsets.push(at);
    } catch {
      const torn = end < 0;
      const where = from === undefined ? `${file}:${index + 1}` : `${file} (the line at byte ${at})`;
      warn(`${where}: ${torn ? 'the last line was cut short (a write interrupted by a crash)' : 'unreadable line'}; skipped it`);
    }
  }
  return { values, offsets };
}

/** Bytes `from` to `to` of the open file `fd` (fewer when it ends sooner). */
export function readBytes(fd: number, from: number, to: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, to - from));
  let read = 0;
  while (read < buffer.length) {
    const got = readSync(fd, buffer, read, buffer.length - read, from + read);
    if (got === 0) break;
    read += got;
  }
  return buffer.subarray(0, read);
}

/**
 * The values of a JSON-lines file from byte `offset` on (a line boundary),
 * and the file's size then (none when it is shorter than `offset`); as
 * readJsonl for unreadable lines. A missing file reads as empty.
 */
export function readJsonlFrom<T>(file: string, offset: number, warn: (message: string) => void): { values: T[]; size: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { values: [], size: 0 };
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    if (size < offset) return { values: [], size };
    const bytes = readBytes(fd, offset, size);
    return { values: parseLines<T>(bytes.toString('utf8'), file, warn), size: offset + bytes.length };
  } finally {
    closeSync(fd);
  }
}
