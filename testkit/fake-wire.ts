/** What the fake LLM server's wire encoders (fake-openai-wire.ts, fake-anthropic-wire.ts) consume. */

/** Defaults: input 10, output = the number of content pieces sent (text and thinking chunks, argument fragments), others 0. */
export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/**
 * How the model's answer ends. `refusal` is a safety refusal (Anthropic's
 * stop reason; OpenAI's `content_filter` finish reason); `pause_turn` is
 * Anthropic's "this long turn was paused, send it back to continue".
 */
export type ScriptedStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'pause_turn';

/** A scripted response with every default decided: what the wire encoders consume. */
export interface WireReply {
  id: string;
  model: string;
  blocks: WireBlock[];
  stopReason: ScriptedStopReason;
  usage: Required<ScriptedUsage>;
}

export type WireBlock =
  | { type: 'text'; chunks: string[] }
  | { type: 'thinking'; chunks: string[]; signature: string }
  /** `fragments` joined is the complete arguments text. */
  /** `signature`: the thought signature a server that signs calls (Gemini) attaches to it. */
  | { type: 'tool_call'; id: string; name: string; fragments: string[]; signature?: string };

import type { Refusal } from './wire-rules';

/** One API's wire encoding. */
export interface WireFormat {
  messageIdPrefix: string;
  toolCallIdPrefix: string;
  /** Complete SSE events in wire order, each ending with its blank line. `request` is the parsed request body. */
  streamEvents(reply: WireReply, request: any): string[];
  /** The JSON body of a non-streaming response. */
  responseBody(reply: WireReply): unknown;
  /** The refusal this API answers with for a scripted HTTP error of `status` (its error type follows the status). */
  refusalFor(status: number, message: string): Refusal;
  /** The JSON body of an error response. */
  errorBody(refusal: Refusal): unknown;
  /** The SSE event that reports an error inside a stream already under way. */
  streamError(refusal: Refusal): string;
}
