import { open, type FileHandle } from 'node:fs/promises';

/**
 * A session's trace.jsonl read in pieces of whole lines, for a viewer that
 * shows the first spans while the rest is read (`crow trace --serve`, the
 * VS Code trace panel): the file from its start, in pieces that grow from
 * FIRST_PIECE_BYTES to MAX_PIECE_BYTES (a small first piece is the first
 * screen sooner), with the file's last line once more right after the first
 * piece: the session's latest record, so a waterfall's time scale holds
 * from the first screen on (and the first rows are the file's first, where
 * a viewer starts). The file is read up to the end of its last whole line at
 * the time it was opened: lines appended later are a follower's
 * (trace-follow.ts), and a line still being written is left to it. Bytes
 * are handed on as stored: whoever reads them parses each line and checks
 * it (isSpanRecord), as they would any file.
 */
export interface TracePieces {
  /** Where in the file the pieces stop: just past its last newline when it was opened. */
  readonly end: number;
  /** Bytes of all the pieces together (the last line counts twice: early, and again in its place). */
  readonly total: number;
  /**
   * The pieces in order. Throws a TraceChangedError when the file got
   * shorter while it was read (cut or rewritten in place); stops when
   * `signal` aborts.
   */
  pieces(signal?: AbortSignal): AsyncGenerator<Buffer>;
  close(): Promise<void>;
}

export const FIRST_PIECE_BYTES = 64 * 1024;
export const MAX_PIECE_BYTES = 1024 * 1024;
/** How far back the end of the file is searched at a time for the start of its last line. */
const SCAN_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** The file changed under the reader: what was read so far stays good, the rest must be read again. */
export class TraceChangedError extends Error {
  constructor(file: string) {
    super(`${file} got shorter while it was read (cut or rewritten): open the trace again.`);
    this.name = 'TraceChangedError';
  }
}

/** Opens `file` for reading in pieces; a missing file is an empty trace. */
export async function openTracePieces(file: string): Promise<TracePieces> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY;
    throw err;
  }
  try {
    const size = (await handle.stat()).size;
    const end = (await lastNewline(handle, size)) + 1;
    const lastStart = end === 0 ? 0 : (await lastNewline(handle, end - 1)) + 1;
    return new FilePieces(file, handle, lastStart, end);
  } catch (err) {
    await handle.close();
    throw err;
  }
}

const EMPTY: TracePieces = {
  end: 0,
  total: 0,
  async *pieces() {},
  close: async () => undefined,
};

class FilePieces implements TracePieces {
  readonly total: number;

  constructor(
    private readonly file: string,
    private readonly handle: FileHandle,
    /** Where the last whole line starts. */
    private readonly lastStart: number,
    /** Just past the last newline: where reading stops. */
    readonly end: number,
  ) {
    this.total = end === 0 ? 0 : end - lastStart + end;
  }

  async *pieces(signal?: AbortSignal): AsyncGenerator<Buffer> {
    let size = FIRST_PIECE_BYTES;
    for (let at = 0; at < this.end && !signal?.aborted; size = Math.min(size * 2, MAX_PIECE_BYTES)) {
      const piece = await this.wholeLines(at, size);
      yield piece;
      if (at === 0 && !signal?.aborted) yield await this.read(this.lastStart, this.end - this.lastStart);
      at += piece.length;
    }
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /** The whole lines from `at`, about `size` bytes of them; more when one line is longer. */
  private async wholeLines(at: number, size: number): Promise<Buffer> {
    for (let want = size; ; want *= 2) {
      const bytes = await this.read(at, Math.min(want, this.end - at));
      if (at + bytes.length === this.end) return bytes;
      const cut = bytes.lastIndexOf(NEWLINE) + 1;
      if (cut > 0) return bytes.subarray(0, cut);
    }
  }

  private async read(at: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(buffer, filled, length - filled, at + filled);
      if (bytesRead === 0) throw new TraceChangedError(this.file);
      filled += bytesRead;
    }
    return buffer;
  }
}

/** Where the whole lines of `file` end now (just past its last newline); 0 for a missing file. */
export async function wholeLinesEnd(file: string): Promise<number> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  try {
    return (await lastNewline(handle, (await handle.stat()).size)) + 1;
  } finally {
    await handle.close();
  }
}

/** The offset of the last newline before `before`, or -1 when there is none. */
async function lastNewline(handle: FileHandle, before: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(SCAN_BYTES);
  for (let to = before; to > 0; ) {
    const from = Math.max(0, to - SCAN_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, to - from, from);
    const found = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (found >= 0) return from + found;
    to = from;
  }
  return -1;
}
