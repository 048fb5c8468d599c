import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { chatClient, isOpenAIItself, modelServerFetch, openaiProfile } from './chat-client';
import { ReasoningDetails } from './openrouter-reasoning';
import { sentTools, toOpenAIParams } from './openai-format';
import { FLAVOR_TRAITS, flavorOf, type ServerFlavor } from './openai-flavor';
import { estimateTokens, promptTokensRead, reportedCount } from './token-estimate';
import { DroppedPromptWatch } from './dropped-prompt';
import {
  type HttpProviderOptions,
  type PartialResponse,
  type RetryPolicy,
  type WireAccumulator,
  resilientStream,
  retryPolicyOf,
} from './resilient-stream';
import type { ProviderProfile } from './stream-failure';
import { END_OF_STREAM, parseEventData, type SseMessage, wireBatches } from './sse';
import { sendable } from './tool-text';
import { type AssistantBlock, emptyUsage, type LlmRequest, type Message, type ModelPricing, type Provider, type StopReason, type StreamEvent, type ToolCallBlock } from './types';

/** Streams from OpenAI Chat Completions or any compatible server (Ollama, LM Studio, vLLM), chosen by baseURL. */
export class OpenAIProvider implements Provider {
  readonly name = 'openai';
  readonly supportsImages: boolean;
  readonly pricing: ModelPricing | undefined;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly profile: ProviderProfile;
  private readonly maxOutputTokens: number | undefined;
  private readonly outputCap: number | undefined;
  /** Which server this is (OpenAI, Ollama, llama.cpp, vLLM, LM Studio, another). */
  readonly flavor: ServerFlavor;
  private readonly droppedPrompts = new DroppedPromptWatch();

  constructor(options: HttpProviderOptions) {
    this.model = options.model;
    this.pricing = options.pricing;
    this.maxOutputTokens = options.maxOutputTokens;
    this.outputCap = options.outputCap;
    this.policy = retryPolicyOf(options);
    // Retries are ours (resilient-stream), so they are visible and stop once output has been shown.
    // Azure OpenAI gets the SDK's AzureOpenAI client (chat-client.ts).
    this.client = chatClient({ apiKey: options.apiKey, baseURL: options.baseURL, flavor: options.flavor, fetch: modelServerFetch() });
    this.flavor = flavorOf(this.client.baseURL, options.flavor);
    this.supportsImages = options.supportsImages ?? isOpenAIItself(this.client);
    this.profile = openaiProfile(this.client, options);
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const params = (): ChatCompletionCreateParamsStreaming =>
      toOpenAIParams(sendable(request), { model: this.model, flavor: this.flavor, maxOutputTokens: this.maxOutputTokens, outputCap: this.outputCap });
    const events = resilientStream(
      {
        profile: this.profile,
        open: async (attemptSignal) => {
          const response = await this.client.chat.completions.create(params(), { signal: attemptSignal }).asResponse();
          return wireBatches(response, chunkReader(response.headers));
        },
        newAccumulator: () => new OpenAIAccumulator(),
      },
      signal,
      this.policy,
    );
    return FLAVOR_TRAITS[this.flavor].dropsOverflow ? this.noticingDroppedPrompt(events, request) : events;
  }

  /**
   * A server that drops the oldest messages of a prompt too long for its
   * context says nothing (see DroppedPromptWatch). The start of the
   * conversation then never reached the model: its answer is discarded and
   * the call fails as a context overflow, which the engine compacts and retries.
   */
  private async *noticingDroppedPrompt(events: AsyncIterable<StreamEvent>, request: LlmRequest): AsyncGenerator<StreamEvent> {
    for await (const event of events) {
      if (event.type !== 'done' || event.response.stopReason === 'error' || event.response.stopReason === 'aborted') {
        yield event;
        continue;
      }
      const { usage } = event.response;
      const read = promptTokensRead(usage);
      const tools = sentTools(request, this.flavor) ? request.tools : [];
      const sent = estimateTokens({ ...request, tools });
      const overflow = this.droppedPrompts.check(read, sent, estimateTokens({ system: request.system, messages: latestMessage(request.messages), tools }));
      if (!overflow) {
        yield event;
        continue;
      }
      const errorMessage =
        `${this.profile.label} read ${read} prompt tokens of about ${overflow.promptTokens}: it dropped the start of the conversation to fit its context window. ` +
        `Raise the model's context length on the server (Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx), or set context_window for ${this.model} in config.toml so Crow compacts in time.`;
      yield { type: 'done', response: { ...event.response, content: [], stopReason: 'error', overflow, errorMessage } };
    }
  }
}

/** The last message as a server sees it: of tool results, the last one (each is a message of its own on this wire). */
function latestMessage(messages: readonly Message[]): Message[] {
  const last = messages.at(-1);
  if (!last) return [];
  return last.role === 'tool_results' ? [{ role: 'tool_results', results: last.results.slice(-1) }] : [last];
}

/**
 * Reads the chunks of a streamed chat completion (batched by wireBatches).
 * As the SDK's own reader does: `data: [DONE]` ends the stream (anything
 * after it is ignored), and a chunk carrying `error` (how OpenAI and
 * compatible servers report a failure once the stream has begun) is thrown
 * as the SDK's APIError with no status.
 */
function chunkReader(headers: Headers): (message: SseMessage) => ChatCompletionChunk | undefined | typeof END_OF_STREAM {
  return ({ event, data }) => {
    if (data.startsWith('[DONE]')) return END_OF_STREAM;
    if (data === '') return undefined;
    const chunk = parseEventData(data, event) as unknown as ChatCompletionChunk & { error?: unknown };
    if (chunk.error) throw new OpenAI.APIError(undefined, chunk.error as object, undefined, headers);
    return chunk;
  };
}

const NO_EVENTS: StreamEvent[] = [];

/** Local servers stream reasoning in fields the SDK does not type. */
interface ReasoningDelta {
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/**
 * Builds the response from chat.completion.chunk events. Text and reasoning
 * each form one block; tool calls are assembled from fragments by `index`.
 */
class OpenAIAccumulator implements WireAccumulator<ChatCompletionChunk> {
  private thinking = '';
  /** OpenRouter's structured reasoning, sent back with the turn (openrouter-reasoning.ts). */
  private readonly details = new ReasoningDetails();
  private text = '';
  /** By the wire's `index`, which may skip numbers. */
  private readonly toolCalls: (ToolCallBlock | undefined)[] = [];
  private readonly usage = emptyUsage();
  private readonly finishReasons: string[] = [];
  private stopReason: StopReason | undefined;
  private responseModel: string | undefined;

  accept(chunk: ChatCompletionChunk): StreamEvent[] {
    if (chunk.model) this.responseModel ??= chunk.model;
    if (chunk.usage) this.readUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return NO_EVENTS;
    const events = choice.delta ? this.readDelta(choice.delta) : NO_EVENTS;
    if (choice.finish_reason) {
      this.finishReasons.push(choice.finish_reason);
      this.stopReason = toStopReason(choice.finish_reason);
    }
    return events;
  }

  /**
   * Blocks in the order thinking, text, tool calls. A server that reports
   * `stop` although it sent tool calls (some local ones do) gets `tool_use`.
   */
  snapshot(): PartialResponse {
    const content: AssistantBlock[] = [];
    if (this.thinking) content.push({ type: 'thinking', text: this.thinking });
    const details = this.details.block();
    if (details) content.push(details);
    if (this.text) content.push({ type: 'text', text: this.text });
    const toolCalls = this.toolCalls.filter((call): call is ToolCallBlock => call !== undefined);
    for (const call of toolCalls) content.push({ ...call, arguments: call.arguments || '{}' });
    const partial: PartialResponse = { content, finishReasons: this.finishReasons, usage: this.usage };
    if (this.stopReason !== undefined) {
      partial.stopReason = this.stopReason === 'end_turn' && toolCalls.length > 0 ? 'tool_use' : this.stopReason;
    }
    if (this.responseModel !== undefined) partial.responseModel = this.responseModel;
    return partial;
  }

  private readDelta(delta: ChatCompletionChunk.Choice.Delta): StreamEvent[] {
    const events: StreamEvent[] = [];
    this.details.add((delta as { reasoning_details?: unknown }).reasoning_details);
    const reasoning = reasoningOf(delta);
    if (reasoning) {
      this.thinking += reasoning;
      events.push({ type: 'thinking_delta', delta: reasoning });
    }
    const text = delta.content || delta.refusal;
    if (text) {
      this.text += text;
      events.push({ type: 'text_delta', delta: text });
    }
    for (const fragment of delta.tool_calls ?? []) {
      const start = this.readToolCallFragment(fragment);
      if (start) events.push(start);
    }
    return events;
  }

  /**
   * Returns a tool_call_start once the call's name is known. Servers that
   * send each call whole may omit `index`; one without `id` gets one.
   */
  private readToolCallFragment(fragment: ChatCompletionChunk.Choice.Delta.ToolCall): StreamEvent | undefined {
    const index = fragment.index ?? this.toolCalls.length;
    const name = fragment.function?.name ?? '';
    const args = fragment.function?.arguments ?? '';
    const call = this.toolCalls[index];
    const extra = extraContentOf(fragment);
    if (!call) {
      const id = fragment.id || `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      this.toolCalls[index] = { type: 'tool_call', id, name, arguments: args, ...(extra ? { extra } : {}) };
      return name ? { type: 'tool_call_start', id, name } : undefined;
    }
    call.arguments += args;
    if (extra) call.extra = extra;
    if (call.name || !name) return undefined;
    call.name = name;
    return { type: 'tool_call_start', id: call.id, name };
  }

  /** prompt_tokens includes cached tokens; `input` counts only the rest. */
  private readUsage(usage: CompletionUsage): void {
    const cacheRead = reportedCount(usage.prompt_tokens_details?.cached_tokens) ?? 0;
    const cacheWrite = reportedCount(usage.prompt_tokens_details?.cache_write_tokens) ?? 0;
    this.usage.input = Math.max(0, (reportedCount(usage.prompt_tokens) ?? 0) - cacheRead - cacheWrite);
    this.usage.cacheRead = cacheRead;
    this.usage.cacheWrite = cacheWrite;
    this.usage.output = reportedCount(usage.completion_tokens) ?? 0;
    this.usage.reasoning = reportedCount(usage.completion_tokens_details?.reasoning_tokens) ?? 0;
  }
}

/** The `extra_content` a server attached to a tool call (Gemini's thought signature), when it is an object. */
function extraContentOf(fragment: object): Record<string, unknown> | undefined {
  const extra = (fragment as { extra_content?: unknown }).extra_content;
  return typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? (extra as Record<string, unknown>) : undefined;
}

function reasoningOf(delta: object): string | undefined {
  const { reasoning_content, reasoning } = delta as ReasoningDelta;
  const value = reasoning_content ?? reasoning;
  return typeof value === 'string' ? value : undefined;
}

/** Finish reasons in the engine's terms; the raw reason stays in finishReasons. */
function toStopReason(reason: string): StopReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
