/** What a test scripts the fake LLM server to answer: content blocks, usage, stop reason, pacing, faults or HTTP errors. */
import type { ScriptedStopReason, ScriptedUsage } from './fake-wire';

export type ScriptedBlock =
  /** A string is split into chunks of `chunkSize` characters; an array is sent as exactly these chunks. */
  | { type: 'text'; text: string | string[] }
  /** Chunked like text. `signature` (Anthropic only) defaults to `sig-<n>`. */
  | { type: 'thinking'; text: string | string[]; signature?: string }
  /**
   * A string `arguments` is sent verbatim (it may be invalid JSON); anything
   * else is JSON.stringify'd. The text is split into up to `fragments` pieces
   * (default 3). `id` defaults to `call_<tag><n>` (OpenAI) or `toolu_<tag><n>` (Anthropic), the tag drawn per server.
   */
  | { type: 'tool_call'; id?: string; name: string; arguments: unknown; fragments?: number };

/**
 * A connection-level failure. Event counts are SSE events as sent on the wire
 * (for OpenAI the role chunk is event 1); a non-streaming response is one event.
 */
export type Fault =
  /** Destroy the socket before sending any response bytes. */
  | { kind: 'drop_before_first_byte' }
  /** Send nothing at all, not even headers, until the client goes away or the server closes. */
  | { kind: 'stall_before_first_byte' }
  /** Send headers and N events, then destroy the socket. */
  | { kind: 'drop_after'; events: number }
  /** Send N events, then end the response cleanly, without the rest (stop reason, [DONE], message_stop). */
  | { kind: 'truncate_after'; events: number }
  /** Send N events, then nothing more until the client goes away or the server closes. */
  | { kind: 'stall_after'; events: number }
  /**
   * Send N events, then the error a server sends once the stream has begun
   * (status 200 already sent), then end the response. Its type follows
   * `status` as an HTTP error's would (default 529: Anthropic's
   * overloaded_error, OpenAI's server_error).
   */
  | { kind: 'error_after'; events: number; status?: number; message?: string };


export interface ScriptedResponse {
  kind?: 'response';
  blocks: ScriptedBlock[];
  usage?: ScriptedUsage;
  /** Defaults to 'tool_use' when any block is a tool call, else 'end_turn'. */
  stopReason?: ScriptedStopReason;
  /** Defaults to the request's `model`. */
  model?: string;
  /** Characters per chunk when a text is a single string; default 4. */
  chunkSize?: number;
  /** Wait before each event; default 0, which writes the whole reply at once. */
  latencyMs?: number;
  /**
   * Holds the stream just before the first event carrying `before` (a text,
   * thinking or argument piece, as chunked) until `until` settles: a test
   * sees what arrived so far, then releases the rest. Give pieces that occur
   * once in the reply.
   */
  pauses?: { before: string; until: Promise<unknown> }[];
  fault?: Fault;
}

export interface ScriptedHttpError {
  kind: 'http_error';
  status: number;
  message?: string;
  /** Sent as the `retry-after-ms` header. */
  retryAfterMs?: number;
  /** Sent as the `retry-after` header. */
  retryAfterSeconds?: number;
  /**
   * Sent as the body instead of the API's JSON error, as text/html: the page a
   * proxy or gateway in front of the server answers with (nginx's "502 Bad Gateway").
   */
  html?: string;
}

export type ScriptedReply = ScriptedResponse | ScriptedHttpError;
