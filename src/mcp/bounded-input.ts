/**
 * How much Crow reads from an MCP server at once: one message of at most
 * MAX_MCP_MESSAGE_BYTES, on every transport. A stdio server's line, an
 * event of a streamable HTTP or SSE server's event stream, and any other
 * HTTP body each stop there with an McpInputLimitError, so a server that
 * sends an endless line costs a bounded amount of memory and is told apart
 * from one that crashed.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * 16 MiB. What a server sends goes to the model, whose APIs take requests
 * of about 32 MB at most and images of 5 MB (6.7 MB in base64); Crow keeps
 * 50,000 characters of a text result. Two images at that cap fit, with room.
 */
export const MAX_MCP_MESSAGE_BYTES = 16 * 1024 * 1024;

export class McpInputLimitError extends Error {
  override name = 'McpInputLimitError';
}

const LF = 0x0a;
const CR = 0x0d;

function overLimit(what: string, limit: number): McpInputLimitError {
  const size = limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`;
  return new McpInputLimitError(`it sent ${what} of more than ${size} (the most Crow reads in one message)`);
}

/**
 * The lines of a stdio server's output as JSON-RPC messages, the way the
 * SDK's ReadBuffer reads them (one message per LF-ended line, a CR before
 * the LF dropped), but in time linear in what arrives and with each line
 * capped: `append` throws an McpInputLimitError for a line over `limit`.
 * `parse` turns a line into a message (the SDK's deserializeMessage).
 */
export class BoundedLineBuffer {
  /** Whole lines not yet read. */
  private readonly lines: Buffer[] = [];
  /** The start of the line still open, in the pieces it came in. */
  private open: Buffer[] = [];
  private openBytes = 0;

  constructor(
    private readonly parse: (line: string) => JSONRPCMessage,
    private readonly limit = MAX_MCP_MESSAGE_BYTES,
  ) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      this.keep(chunk.subarray(start, end));
      this.lines.push(this.open.length === 1 ? this.open[0]! : Buffer.concat(this.open, this.openBytes));
      this.open = [];
      this.openBytes = 0;
      start = end + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** The next whole line's message; null when no line is whole yet. Throws for a line that is not a JSON-RPC message. */
  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    if (line === undefined) return null;
    const text = line.toString('utf8');
    return this.parse(text.endsWith('\r') ? text.slice(0, -1) : text);
  }

  clear(): void {
    this.lines.length = 0;
    this.open = [];
    this.openBytes = 0;
  }

  private keep(piece: Buffer): void {
    if (this.openBytes + piece.length > this.limit) {
      this.clear();
      throw overLimit('a line', this.limit);
    }
    this.open.push(piece);
    this.openBytes += piece.length;
  }
}

/**
 * `fetch`, with every response body cut off at the limit: an event stream
 * (text/event-stream) may carry any number of events, each at most `limit`
 * bytes (counted from one blank line to the next, which bounds a line too);
 * any other body at most `limit` bytes in all. Going over errors the body
 * with an McpInputLimitError and calls `onLimit` with it.
 */
export function boundedFetch(
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>,
  onLimit: (error: McpInputLimitError) => void,
  limit = MAX_MCP_MESSAGE_BYTES,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const events = /^\s*text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');
    const counter = events ? new EventBytes(limit) : new TotalBytes(limit);
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const error = counter.add(chunk);
          if (error) {
            onLimit(error);
            return controller.error(error);
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Counts a whole body. */
class TotalBytes {
  private bytes = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Uint8Array): McpInputLimitError | undefined {
    this.bytes += chunk.length;
    return this.bytes > this.limit ? overLimit('a response', this.limit) : undefined;
  }
}

/** Counts the bytes since the last blank line of an event stream (line ends CRLF, LF or CR, as the SSE standard reads them). */
class EventBytes {
  private bytes = 0;
  /** Bytes of the current line. */
  private line = 0;
  /** The last byte was a CR: an LF now ends no second line. */
  private afterCR = false;

  constructor(private readonly limit: number) {}

  add(chunk: Uint8Array): McpInputLimitError | undefined {
    for (const byte of chunk) {
      if (byte === LF && this.afterCR) {
        this.afterCR = false;
        continue;
      }
      this.afterCR = byte === CR;
      if (byte === LF || byte === CR) {
        // A blank line ends the event: what the parser holds starts again from nothing.
        if (this.line === 0) this.bytes = 0;
        this.line = 0;
        continue;
      }
      this.line++;
      if (++this.bytes > this.limit) return overLimit('an event', this.limit);
    }
    return undefined;
  }
}
