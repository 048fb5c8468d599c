/**
 * The lines an agent process writes, for `crow acp-bridge`: each LF-ended
 * line (a CR before the LF dropped) is one message for the client. A line
 * may hold at most `limit` bytes; one that grows past it (an agent that
 * writes without end) is reported once as 'overflow' and nothing more is
 * read, so the bridge's memory stays bounded whatever the agent does.
 */
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';

const LF = 0x0a;

export interface AgentLineEvents {
  line: [text: string];
  overflow: [];
}

export class AgentLines extends EventEmitter<AgentLineEvents> {
  /** The start of a line still open, in the pieces it came in. */
  private open: Buffer[] = [];
  private openBytes = 0;
  private overflowed = false;

  constructor(
    private readonly input: Readable,
    private readonly limit: number,
  ) {
    super();
    input.on('data', (chunk: Buffer) => this.push(chunk));
  }

  /** Stops reading the agent's output (the lines of the chunk at hand still come). */
  pause(): void {
    this.input.pause();
  }

  resume(): void {
    if (!this.overflowed) this.input.resume();
  }

  private push(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      if (!this.keep(chunk.subarray(start, end))) return;
      const line = Buffer.concat(this.open, this.openBytes).toString('utf8');
      this.open = [];
      this.openBytes = 0;
      start = end + 1;
      this.emit('line', line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** Adds to the open line; false (after saying so) when that takes it past the limit. */
  private keep(piece: Buffer): boolean {
    if (this.openBytes + piece.length > this.limit) {
      this.overflowed = true;
      this.open = [];
      this.openBytes = 0;
      this.input.pause();
      this.emit('overflow');
      return false;
    }
    this.open.push(piece);
    this.openBytes += piece.length;
    return true;
  }
}
