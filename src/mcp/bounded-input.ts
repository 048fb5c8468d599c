/**
 * How much Crow reads from an MCP server at once: one message of at most
 * MAX_MCP_MESSAGE_BYTES, on every transport. A stdio server's line stops
 * there with an McpInputLimitError; an event of a streamable HTTP or SSE
 * server's event stream, and any other HTTP body, with a BodyLimitError
 * (llm/bounded-body.ts). A server that sends an endless line costs a
 * bounded amount of memory and is told apart from one that crashed.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type BodyLimits, sizeText } from '../llm/bounded-body';

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

function overLimit(what: string, limit: number): McpInputLimitError {
  return new McpInputLimitError(`it sent ${what} of more than ${sizeText(limit)} (the most Crow reads at once)`);
}

/** What an HTTP server may send: every body, event and error answer at most MAX_MCP_MESSAGE_BYTES (see boundedFetch). */
export const MCP_BODY_LIMITS: BodyLimits = { bodyBytes: MAX_MCP_MESSAGE_BYTES, errorBytes: MAX_MCP_MESSAGE_BYTES, eventBytes: MAX_MCP_MESSAGE_BYTES };

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
