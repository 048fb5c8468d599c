/**
 * Server-sent events, read the way the HTML standard's event-stream parser
 * reads them (https://html.spec.whatwg.org/multipage/server-sent-events.html,
 * "Interpreting an event stream"), but handed on in batches: every message
 * that one network read completes comes out in one array. A fast stream then
 * costs the layers above one await per read instead of one per token, which
 * is where the SDKs' own iterators spent most of a streamed answer's time.
 *
 * Rules kept: UTF-8, a byte order mark at the very start ignored; lines end
 * with CRLF, LF or a lone CR (also when the CR and LF arrive in different
 * reads); a line starting with ':' is a comment; `field: value` loses one
 * space after the colon, a line without a colon is a field with an empty
 * value; several `data` lines join with LF; a blank line dispatches, unless
 * no data arrived; a message the stream ends in the middle of is dropped.
 * `id` and `retry` mean nothing to a one-shot request and are ignored.
 *
 * Bounded: a line, and the data lines of one message together, may hold at
 * most MAX_EVENT_CHARS; a server that sends more fails the stream with a
 * StreamLimitError instead of growing Crow's memory without end.
 */

export interface SseMessage {
  /** The `event` field, undefined when the message had none. */
  event: string | undefined;
  data: string;
}

/**
 * The most text one line, or one message's data, may hold: 16 MiB. The
 * largest message a real server sends is a whole answer in one chunk (some
 * OpenAI-compatible servers send a tool call's arguments that way): at most
 * 128k output tokens, about 512 KB of text, which JSON escaping twice over
 * (the arguments are a JSON string inside the chunk's JSON) makes at most 7
 * times longer, 3.5 MB. 16 MiB leaves four times that, and keeps what an
 * endless line can cost to a few times 16 MiB of memory.
 */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** A stream that sent more in one line or one message than the reader takes; the message says what and how much. */
export class StreamLimitError extends Error {
  override name = 'StreamLimitError';
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** Splits decoded text into messages; feed it in any pieces. */
export class SseParser {
  /** The start of a line no read has ended yet, in the pieces it came in (joined once its end arrives: a long line costs no copy per read). */
  private pending: string[] = [];
  private pendingChars = 0;
  /** The previous piece ended with CR: an LF starting this one belongs to it. */
  private afterCR = false;
  private event: string | undefined;
  private data: string | undefined;
  private failure: StreamLimitError | undefined;

  /** `maxEventChars`: the most a line, or a message's data lines together, may hold (see MAX_EVENT_CHARS). */
  constructor(private readonly maxEventChars = MAX_EVENT_CHARS) {}

  /**
   * The messages `text` completes, in order. A line or message that grows
   * past the limit fails the stream: this push still returns the messages
   * completed before it (as a cut between reads would have), and throws the
   * StreamLimitError from the next push on.
   */
  push(text: string): SseMessage[] {
    if (this.failure) throw this.failure;
    const messages: SseMessage[] = [];
    try {
      this.split(text, messages);
    } catch (error) {
      if (!(error instanceof StreamLimitError) || messages.length === 0) throw error;
      this.failure = error;
    }
    return messages;
  }

  private split(text: string, messages: SseMessage[]): void {
    // A CR ends a line, so nothing is pending after one: only the LF of a CRLF split across reads is to skip.
    let lineStart = this.afterCR && text.charCodeAt(0) === LF ? 1 : 0;
    this.afterCR = false;
    const hasCR = text.indexOf('\r', lineStart) !== -1;
    if (!hasCR && text.indexOf('\n', lineStart) === -1) {
      this.hold(lineStart === 0 ? text : text.slice(lineStart));
      return;
    }
    const held = this.pendingChars;
    const buffer = held === 0 ? text : this.pending.join('') + text;
    // The pending part holds no line end: look for one after it.
    let searchFrom = held === 0 ? lineStart : held;
    if (held > 0) lineStart = 0;
    this.pending = [];
    this.pendingChars = 0;
    for (;;) {
      const end = hasCR ? lineEnd(buffer, searchFrom) : buffer.indexOf('\n', searchFrom);
      if (end === -1) break;
      let next = end + 1;
      if (buffer.charCodeAt(end) === CR) {
        if (next === buffer.length) this.afterCR = true;
        else if (buffer.charCodeAt(next) === LF) next++;
      }
      this.line(buffer, lineStart, end, messages);
      lineStart = searchFrom = next;
    }
    if (lineStart < buffer.length) this.hold(buffer.slice(lineStart));
  }

  /** Keeps `piece` of a line still open, failing once the line (or the message it would join) is over the limit. */
  private hold(piece: string): void {
    if (piece === '') return;
    this.pending.push(piece);
    this.pendingChars += piece.length;
    if (this.pendingChars > this.maxEventChars) throw this.overLimit('a line');
  }

  private line(buffer: string, start: number, end: number, messages: SseMessage[]): void {
    if (end - start > this.maxEventChars) throw this.overLimit('a line');
    if (start === end) {
      if (this.data !== undefined) messages.push({ event: this.event, data: this.data });
      this.event = undefined;
      this.data = undefined;
      return;
    }
    const first = buffer.charCodeAt(start);
    if (first === COLON) return;
    let colon = buffer.indexOf(':', start);
    if (colon === -1 || colon > end) colon = end;
    let valueStart = colon === end ? end : colon + 1;
    if (valueStart < end && buffer.charCodeAt(valueStart) === SPACE) valueStart++;
    const field = buffer.slice(start, colon);
    if (field === 'data') {
      if (this.data !== undefined && this.data.length + 1 + (end - valueStart) > this.maxEventChars) throw this.overLimit('an event');
      const value = buffer.slice(valueStart, end);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    } else if (field === 'event') {
      this.event = buffer.slice(valueStart, end);
    }
  }

  /** The error for a line or event over the limit; what was held is let go (the stream is over). */
  private overLimit(what: 'a line' | 'an event'): StreamLimitError {
    this.pending = [];
    this.pendingChars = 0;
    this.data = undefined;
    this.failure = new StreamLimitError(`sent ${what} of more than ${size(this.maxEventChars)} (the most Crow reads in ${what === 'a line' ? 'one line' : 'one event'})`);
    return this.failure;
  }
}

/** A limit in words: "16 MiB", or characters for small test limits. */
function size(chars: number): string {
  return chars >= 1024 * 1024 ? `${Number((chars / (1024 * 1024)).toFixed(1))} MiB` : `${chars} characters`;
}

/** The index of the first CR or LF at or after `from`, or -1. */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === LF || code === CR) return i;
  }
  return -1;
}

/**
 * The messages of a response body, one array per read that completed any.
 * Leaving early (or failing) cancels the body, which closes the connection.
 */
export async function* sseBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage[], void, undefined> {
  const reader = body.getReader();
  // The decoder drops one byte order mark at the start of the stream (and only there), as the standard asks.
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const messages = parser.push(decoder.decode(value, { stream: true }));
      if (messages.length > 0) yield messages;
    }
    finished = true;
    const rest = parser.push(decoder.decode());
    if (rest.length > 0) yield rest;
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
  }
}

/** What a reader returns for a message after which the rest of the stream is ignored (OpenAI's `[DONE]`). */
export const END_OF_STREAM = Symbol('end of stream');

/**
 * A streamed response's wire events, a batch per network read: `read` turns
 * each message into an event, or undefined to skip it, or END_OF_STREAM, or
 * throws for a message that fails the stream. Events a read brought before a
 * failing message are handed on first, as they would be had they come in a
 * read of their own: what a person sees does not depend on how the bytes
 * were cut.
 */
export async function* wireBatches<W>(
  response: Response,
  read: (message: SseMessage) => W | undefined | typeof END_OF_STREAM,
): AsyncGenerator<W[], void, undefined> {
  if (!response.body) throw new Error('the response to a streamed request had no body');
  let ended = false;
  for await (const messages of sseBatches(response.body)) {
    if (ended) continue;
    const events: W[] = [];
    let failure: { error: unknown } | undefined;
    for (const message of messages) {
      try {
        const event = read(message);
        if (event === END_OF_STREAM) {
          ended = true;
          break;
        }
        if (event !== undefined) events.push(event);
      } catch (error) {
        failure = { error };
        break;
      }
    }
    if (events.length > 0) yield events;
    if (failure) throw failure.error;
  }
}

/** A message's data as a JSON object; a server that sends anything else is broken, and the error says where. */
export function parseEventData(data: string, event: string | undefined): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  const excerpt = data.length > 120 ? `${data.slice(0, 120)}…` : data;
  throw new Error(`${event ? `a "${event}" event` : 'an event'} that is not a JSON object: ${excerpt}`);
}
