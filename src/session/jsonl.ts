import { closeSync, fdatasyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../config/paths';

/**
 * Appends JSON lines with write(2) per line, so a line is in the kernel
 * (durable against a crash or kill -9 of this process) when `append`
 * returns; with `fsync` it is on disk (durable against power loss) too.
 * A new file is readable by its owner only.
 */
export class JsonlAppender {
  private fd: number | undefined;

  constructor(
    readonly file: string,
    private readonly fsync = false,
  ) {}

  append(value: unknown): void {
    this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
    if (this.fsync) fdatasyncSync(this.fd);
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
  const values: T[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      values.push(JSON.parse(line) as T);
    } catch {
      const torn = index === lines.length - 1;
      warn(`${file}:${index + 1}: ${torn ? 'the last line was cut short (a write interrupted by a crash)' : 'unreadable line'}; skipped it`);
    }
  });
  return values;
}
