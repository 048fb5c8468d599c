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
 */

export interface SseMessage {
  /** The `event` field, undefined when the message had none. */
  event: string | undefined;
  data: string;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** Splits decoded text into messages; feed it in any pieces. */
export class SseParser {
  private pending = '';
  /** The previous piece ended with CR: an LF starting this one belongs to it. */
  private afterCR = false;
  private event: string | undefined;
  private data: string | undefined;

  /** The messages `text` completes, in order. */
  push(text: string): SseMessage[] {
    const messages: SseMessage[] = [];
    // A CR ends a line, so nothing is pending after one: only the LF of a CRLF split across reads is to skip.
    let lineStart = this.afterCR && text.charCodeAt(0) === LF ? 1 : 0;
    this.afterCR = false;
    const buffer = this.pending === '' ? text : this.pending + text;
    // The pending part holds no line end: look for one after it.
    let searchFrom = Math.max(lineStart, this.pending.length);
    this.pending = '';
    const hasCR = buffer.indexOf('\r', searchFrom) !== -1;
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
    if (lineStart < buffer.length) this.pending = buffer.slice(lineStart);
    return messages;
  }

  private line(buffer: string, start: number, end: number, messages: SseMessage[]): void {
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
      const value = buffer.slice(valueStart, end);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    } else if (field === 'event') {
      this.event = buffer.slice(valueStart, end);
    }
  }
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
