import { open, stat } from 'node:fs/promises';
import type { SpanRecord } from './span';
import { wholeLinesEnd } from './trace-pieces';
import { isSpanRecord } from './stored-spans';

export interface TraceFollowOptions {
  /** A session's trace.jsonl (SessionStore.traceFile). */
  file: string;
  /** Each span record appended from now on: a start record, later the ended one. */
  onRecord(record: SpanRecord): void;
  /** Whether a live process still writes the file (SessionStore.isRecording); checked every round. */
  isRecording?(): boolean;
  /** Told the first answer of `isRecording` at once, then each change. */
  onRecording?(recording: boolean): void;
  /** Default 250 ms. */
  pollMs?: number;
}

export interface TraceFollower {
  /**
   * Where the lines handed on so far end: every record before this offset
   * was handed on (to whoever listened then), or was there when following
   * began; every record after it will be.
   */
  readonly offset: number;
  stop(): void;
}

/**
 * Follows a trace.jsonl from the end of its whole lines by polling its size, which
 * works the same for a file written by this process or by another one (a
 * `crow run` in a terminal). Each complete new line that is a span record is
 * handed on; a line still being written waits for its newline; a missing
 * file counts as empty until it appears; a file that shrank is followed from
 * its new end. A line being written when following begins is the
 * follower's once it ends (a stored read stops before it: trace-pieces.ts).
 * The timer does not keep the process alive.
 */
export async function followTrace(options: TraceFollowOptions): Promise<TraceFollower> {
  // A file that cannot be read now (a folder, no permission) is followed from its size, as before, once it can be.
  const follower = new Follower(options, await wholeLinesEnd(options.file).catch(() => sizeOf(options.file)));
  follower.checkRecording();
  follower.schedule();
  return follower;
}

class Follower implements TraceFollower {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private recording: boolean | undefined;

  constructor(
    private readonly options: TraceFollowOptions,
    public offset: number,
  ) {}

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.round().finally(() => this.schedule()), this.options.pollMs ?? 250);
    this.timer.unref();
  }

  checkRecording(): void {
    if (!this.options.isRecording || this.stopped) return;
    const recording = this.options.isRecording();
    if (recording === this.recording) return;
    this.recording = recording;
    this.options.onRecording?.(recording);
  }

  private async round(): Promise<void> {
    try {
      await this.readNewLines();
    } catch {
      // A file briefly unreadable (being replaced, a permission change) is read again next round.
    }
    this.checkRecording();
  }

  private async readNewLines(): Promise<void> {
    const size = await sizeOf(this.options.file);
    if (size < this.offset) this.offset = size;
    if (size === this.offset) return;
    const handle = await open(this.options.file, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      const complete = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      this.offset += complete;
      for (const line of buffer.subarray(0, complete).toString('utf8').split('\n')) {
        if (this.stopped) return;
        const record = parse(line);
        if (record) this.options.onRecord(record);
      }
    } finally {
      await handle.close();
    }
  }
}

/**
 * The span records of the whole lines between `from` and `to` in `file`
 * (offsets the follower or the stored pieces gave, so line ends); a piece
 * of a line at either end, or a line that is no span record, is left out.
 */
export async function readRecords(file: string, from: number, to: number): Promise<SpanRecord[]> {
  if (to <= from) return [];
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    const complete = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
    return buffer
      .subarray(0, complete)
      .toString('utf8')
      .split('\n')
      .flatMap((line) => parse(line) ?? []);
  } finally {
    await handle.close();
  }
}

function parse(line: string): SpanRecord | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isSpanRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
