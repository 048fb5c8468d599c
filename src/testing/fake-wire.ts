/** What the fake LLM server's wire encoders (fake-openai-wire.ts, fake-anthropic-wire.ts) consume. */

/** Defaults: input 10, output = the number of content pieces sent (text and thinking chunks, argument fragments), others 0. */
export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export type ScriptedStopReason = 'end_turn' | 'tool_use' | 'max_tokens';

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
  | { type: 'tool_call'; id: string; name: string; fragments: string[] };

/** One API's wire encoding. */
export interface WireFormat {
  messageIdPrefix: string;
  toolCallIdPrefix: string;
  /** Complete SSE events in wire order, each ending with its blank line. `request` is the parsed request body. */
  streamEvents(reply: WireReply, request: any): string[];
  /** The JSON body of a non-streaming response. */
  responseBody(reply: WireReply): unknown;
  /** The JSON body of an error response. */
  errorBody(status: number, message: string): unknown;
}
