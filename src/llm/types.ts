
/**
 * The provider-neutral language of the LLM layer. Providers translate these
 * to and from their wire formats; nothing above src/llm knows a wire format.
 */

/** Token counts, normalised across providers. */
export interface Usage {
  /** Input tokens that were neither read from nor written to a prompt cache. */
  input: number;
  /** Output tokens, reasoning included. */
  output: number;
  /** Input tokens served from the prompt cache. */
  cacheRead: number;
  /** Input tokens written to the prompt cache. */
  cacheWrite: number;
  /** Output tokens spent on reasoning (a subset of `output`). */
  reasoning: number;
}

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
}

export function addUsage(into: Usage, more: Usage): Usage {
  into.input += more.input;
  into.output += more.output;
  into.cacheRead += more.cacheRead;
  into.cacheWrite += more.cacheWrite;
  into.reasoning += more.reasoning;
  return into;
}

export interface TextBlock {
  type: 'text';
  text: string;
}

/** Model reasoning. `signature` (Anthropic) must be sent back unchanged. */
export interface ThinkingBlock {
  type: 'thinking';
  text: string;
  signature?: string;
}

/** Reasoning the provider encrypted; only ever echoed back. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * A tool call as the model produced it. `arguments` is the raw JSON text,
 * kept verbatim so that a malformed call can be reported and replayed as is;
 * providers give '{}' when the model sent no arguments at all.
 */
export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: string;
  /**
   * What a Chat Completions server attached to the call as `extra_content`
   * (Gemini's thought signature, `{google: {thought_signature}}`), sent back
   * with the call unchanged: Gemini refuses a call of the current turn
   * without it.
   */
  extra?: Record<string, unknown>;
}

export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock;

export interface ImageBlock {
  type: 'image';
  mimeType: string;
  /** base64 without a data: prefix */
  data: string;
}

export type UserBlock = TextBlock | ImageBlock;

export interface ToolResultItem {
  callId: string;
  /** What the model reads: the output, or the error text. */
  content: string;
  isError: boolean;
  /** Images the tool returned (e.g. read_file on a PNG), for models that can see them. */
  images?: ImageBlock[];
}

export type Message =
  | { role: 'user'; content: UserBlock[] }
  | { role: 'assistant'; content: AssistantBlock[] }
  | { role: 'tool_results'; results: ToolResultItem[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: Record<string, unknown>;
}

export interface LlmRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /**
   * `none`: the model may not call a tool in this answer, though `tools` are
   * still sent (the APIs refuse tool calls in the history of a request
   * without them, and keeping them keeps the cached prompt prefix).
   * Absent: the model decides.
   */
  toolChoice?: 'none';
  maxOutputTokens?: number;
  /** Budget for extended thinking where the provider supports it; 0 or absent = off. */
  thinkingBudget?: number;
  /** Sampling temperature; absent = the provider's default. Checked against the model when the agent is built. */
  temperature?: number;
}

/**
 * Why a model response ended. `error` and `aborted` are values, not exceptions.
 * `refusal`: the model (or the provider's safety system) declined to go on.
 * `pause_turn`: the provider paused a long turn; sending the conversation
 * back as it is lets the model continue.
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'pause_turn' | 'error' | 'aborted';

/**
 * A prompt that did not fit the model's context window: the server refused
 * it, or read only part of it. Compacting may help; the numbers, when the
 * server gave them, say by how much (in the server's own tokens).
 */
export interface ContextOverflow {
  /** The window the server stated; for a server that silently read only part of the prompt, what it read. */
  windowTokens?: number;
  /** The prompt's size as the server counted it. */
  promptTokens?: number;
}

/** The complete result of one LLM call. */
export interface AssistantResponse {
  content: AssistantBlock[];
  stopReason: StopReason;
  /** The model the server says answered. */
  responseModel?: string;
  /** Raw provider finish reason(s), for telemetry. */
  finishReasons: string[];
  usage: Usage;
  /** Set when stopReason is `error`. */
  errorMessage?: string;
  /** Set when stopReason is `error` because the prompt did not fit the context window. */
  overflow?: ContextOverflow;
  /**
   * Milliseconds from the start of the attempt that produced this response
   * to its first streamed token (retry waits excluded), if any arrived.
   */
  timeToFirstTokenMs?: number;
}

/** A tool call the output cap cut off: its arguments are not a whole JSON value, so it cannot run. */
export function isCutOff(call: ToolCallBlock, response: AssistantResponse): boolean {
  if (response.stopReason !== 'max_tokens') return false;
  try {
    JSON.parse(call.arguments);
    return false;
  } catch {
    return true;
  }
}

/**
 * What a provider stream yields, in order. Exactly one `done` ends every
 * stream, carrying everything that arrived (even when it ended in error).
 */
export type StreamEvent =
  | { type: 'text_delta'; delta: string }
  | { type: 'thinking_delta'; delta: string }
  | { type: 'tool_call_start'; id: string; name: string }
  /** A failed request will be retried: `attempt` 1 is the first retry, after `delayMs`. */
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  /** Something the person should know about the provider that is no failure (e.g. the SDK's warning that the model is deprecated). */
  | { type: 'notice'; message: string }
  | { type: 'done'; response: AssistantResponse };

export interface Provider {
  /** Provider family, e.g. "anthropic", "openai", "scripted". */
  readonly name: string;
  readonly model: string;
  /** Whether the model accepts images (in user messages and tool results). */
  readonly supportsImages: boolean;
  /** Prices per million tokens, when configured; telemetry turns usage into cost with them. */
  readonly pricing?: ModelPricing;
  /** Never throws: failures end the stream with a `done` whose stopReason is `error` or `aborted`. */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent>;
}

/** Prices in US dollars per million tokens. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Cost of one call; cache reads and writes fall back to the input price when not given. */
export function costOf(usage: Usage, pricing: ModelPricing): number {
  const perToken = (price: number): number => price / 1_000_000;
  return (
    usage.input * perToken(pricing.input) +
    usage.cacheRead * perToken(pricing.cacheRead ?? pricing.input) +
    usage.cacheWrite * perToken(pricing.cacheWrite ?? pricing.input) +
    usage.output * perToken(pricing.output)
  );
}
