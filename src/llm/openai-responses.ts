/**
 * OpenAI's Responses API (POST /v1/responses) as a provider: the request is
 * built by openai-responses-format.ts; the stream's events are read here.
 * Retries, the idle timeout and failures go through resilient-stream, as
 * for the other wires.
 */
import OpenAI from 'openai';
import type { ResponseOutputItem, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import { isOpenAIItself, modelServerFetch, openaiProfile } from './chat-client';
import { reasoningItemBlock, toResponsesParams } from './openai-responses-format';
import { type HttpProviderOptions, type PartialResponse, type RetryPolicy, type WireAccumulator, resilientStream, retryPolicyOf } from './resilient-stream';
import { parseEventData, type SseMessage, wireBatches } from './sse';
import type { ProviderProfile } from './stream-failure';
import { reportedCount } from './token-estimate';
import { sendable } from './tool-text';
import { type AssistantBlock, emptyUsage, type LlmRequest, type ModelPricing, type Provider, type StopReason, type StreamEvent } from './types';

/** Streams from OpenAI's Responses API, or a server that speaks it, chosen by baseURL. */
export class OpenAIResponsesProvider implements Provider {
  readonly name = 'openai-responses';
  readonly supportsImages: boolean;
  readonly pricing: ModelPricing | undefined;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly profile: ProviderProfile;
  private readonly maxOutputTokens: number | undefined;
  private readonly outputCap: number | undefined;

  constructor(options: HttpProviderOptions) {
    this.model = options.model;
    this.pricing = options.pricing;
    this.maxOutputTokens = options.maxOutputTokens;
    this.outputCap = options.outputCap;
    this.policy = retryPolicyOf(options);
    // Retries are ours (resilient-stream).
    this.client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, fetch: modelServerFetch() });
    this.supportsImages = options.supportsImages ?? isOpenAIItself(this.client);
    this.profile = openaiProfile(this.client, options);
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    return resilientStream(
      {
        profile: this.profile,
        open: async (attemptSignal) => {
          const params = toResponsesParams(sendable(request), { model: this.model, maxOutputTokens: this.maxOutputTokens, outputCap: this.outputCap });
          const response = await this.client.responses.create(params, { signal: attemptSignal }).asResponse();
          return wireBatches(response, eventReader(response.headers));
        },
        newAccumulator: () => new ResponsesAccumulator(),
      },
      signal,
      this.policy,
    );
  }
}

/** Error codes of a failed response that say "try again", as the error types resilient-stream retries. */
const TRANSIENT_CODES: Record<string, string> = { server_error: 'server_error', rate_limit_exceeded: 'rate_limit_error' };

/**
 * Reads the stream's events (batched by wireBatches). An `error` event, and
 * `response.failed` (the response ended in an error after the stream began),
 * are thrown as the SDK's APIError with no status, typed so that a server
 * error or rate limit is judged transient. Each event's data names its type,
 * so a server that leaves out the `event:` lines is read all the same.
 */
function eventReader(headers: Headers): (message: SseMessage) => ResponseStreamEvent | undefined {
  return ({ event, data }) => {
    if (data === '' || data.startsWith('[DONE]')) return undefined;
    const parsed = parseEventData(data, event) as unknown as ResponseStreamEvent;
    if (parsed.type === 'error') throw streamError(parsed.code, parsed.message, headers);
    if (parsed.type === 'response.failed') {
      const failure = parsed.response?.error;
      throw streamError(failure?.code ?? null, failure?.message ?? 'the response failed without saying why', headers);
    }
    return parsed;
  };
}

function streamError(code: string | null, message: unknown, headers: Headers): InstanceType<typeof OpenAI.APIError> {
  const text = typeof message === 'string' ? message : JSON.stringify(message);
  const type = (code !== null && TRANSIENT_CODES[code]) || code || 'error';
  return new OpenAI.APIError(undefined, { message: text, code, type }, undefined, headers);
}

const NO_EVENTS: StreamEvent[] = [];

/** What one output item has become so far, by its `output_index`. */
type ItemSlot =
  | { kind: 'reasoning'; summary: string; block?: AssistantBlock }
  | { kind: 'text'; text: string }
  | { kind: 'call'; id: string; name: string; arguments: string };

/**
 * Builds the response from Responses stream events, item by item in output
 * order. A reasoning item becomes its summary (a thinking block, for people)
 * followed by the item itself (a redacted_thinking block, sent back); text
 * and function calls are assembled from their deltas, and `output_item.done`
 * gives each item's final form.
 */
class ResponsesAccumulator implements WireAccumulator<ResponseStreamEvent> {
  private readonly items: (ItemSlot | undefined)[] = [];
  private readonly usage = emptyUsage();
  private readonly finishReasons: string[] = [];
  private stopReason: StopReason | undefined;
  private responseModel: string | undefined;

  accept(event: ResponseStreamEvent): StreamEvent[] {
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
        this.responseModel ??= event.response?.model;
        return NO_EVENTS;
      case 'response.output_item.added':
        return this.startItem(event.output_index, event.item);
      case 'response.output_item.done':
        this.finishItem(event.output_index, event.item);
        return NO_EVENTS;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.addText(event.output_index, event.delta);
      case 'response.reasoning_summary_part.added':
        // The parts of one summary are paragraphs of their own.
        return event.summary_index > 0 ? this.addSummary(event.output_index, '\n\n') : NO_EVENTS;
      case 'response.reasoning_summary_text.delta':
        return this.addSummary(event.output_index, event.delta);
      case 'response.function_call_arguments.delta': {
        const slot = this.items[event.output_index];
        if (slot?.kind === 'call') slot.arguments += event.delta;
        return NO_EVENTS;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.finish(event.response);
        return NO_EVENTS;
      default:
        return NO_EVENTS;
    }
  }

  /**
   * Blocks in output order. A model that calls a function ends with `tool_use`
   * (the API's status says only "completed").
   */
  snapshot(): PartialResponse {
    const content: AssistantBlock[] = [];
    for (const slot of this.items) {
      if (!slot) continue;
      switch (slot.kind) {
        case 'reasoning':
          if (slot.summary) content.push({ type: 'thinking', text: slot.summary });
          if (slot.block) content.push(slot.block);
          break;
        case 'text':
          if (slot.text) content.push({ type: 'text', text: slot.text });
          break;
        case 'call':
          content.push({ type: 'tool_call', id: slot.id, name: slot.name, arguments: slot.arguments || '{}' });
          break;
      }
    }
    const partial: PartialResponse = { content, finishReasons: this.finishReasons, usage: this.usage };
    if (this.stopReason !== undefined) {
      partial.stopReason = this.stopReason === 'end_turn' && content.some((block) => block.type === 'tool_call') ? 'tool_use' : this.stopReason;
    }
    if (this.responseModel !== undefined) partial.responseModel = this.responseModel;
    return partial;
  }

  private startItem(index: number, item: ResponseOutputItem): StreamEvent[] {
    switch (item.type) {
      case 'reasoning':
        this.items[index] = { kind: 'reasoning', summary: '' };
        return NO_EVENTS;
      case 'message':
        this.items[index] = { kind: 'text', text: '' };
        return NO_EVENTS;
      case 'function_call':
        this.items[index] = { kind: 'call', id: item.call_id, name: item.name, arguments: item.arguments ?? '' };
        return [{ type: 'tool_call_start', id: item.call_id, name: item.name }];
      default:
        // Items Crow does not model (built-in tools it never offers) leave a hole.
        return NO_EVENTS;
    }
  }

  /** The item as the server finished it: a reasoning item is kept whole; a call or text takes its final arguments or text. */
  private finishItem(index: number, item: ResponseOutputItem): void {
    const slot = this.items[index];
    if (item.type === 'reasoning') {
      const summary = item.summary.map((part) => part.text).join('\n\n');
      this.items[index] = { kind: 'reasoning', summary: slot?.kind === 'reasoning' && slot.summary ? slot.summary : summary, block: reasoningItemBlock(item) };
    } else if (item.type === 'function_call') {
      if (slot?.kind === 'call') slot.arguments = item.arguments;
      else this.items[index] = { kind: 'call', id: item.call_id, name: item.name, arguments: item.arguments };
    } else if (item.type === 'message' && slot?.kind === 'text' && !slot.text) {
      slot.text = item.content.map((part) => (part.type === 'output_text' ? part.text : part.refusal)).join('');
    }
  }

  private addText(index: number, delta: string): StreamEvent[] {
    let slot = this.items[index];
    if (!slot) slot = this.items[index] = { kind: 'text', text: '' };
    if (slot.kind !== 'text' || !delta) return NO_EVENTS;
    slot.text += delta;
    return [{ type: 'text_delta', delta }];
  }

  private addSummary(index: number, delta: string): StreamEvent[] {
    let slot = this.items[index];
    if (!slot) slot = this.items[index] = { kind: 'reasoning', summary: '' };
    if (slot.kind !== 'reasoning' || !delta) return NO_EVENTS;
    slot.summary += delta;
    return [{ type: 'thinking_delta', delta }];
  }

  private finish(response: { status?: string; model?: string; usage?: ResponseUsage | null; incomplete_details?: { reason?: string } | null }): void {
    if (response.model) this.responseModel = response.model;
    if (response.usage) this.readUsage(response.usage);
    const reason = response.status === 'incomplete' ? (response.incomplete_details?.reason ?? 'incomplete') : (response.status ?? 'completed');
    this.finishReasons.push(reason);
    this.stopReason = toStopReason(reason);
  }

  /** input_tokens includes cached tokens (and those written to the cache); `input` counts only the rest. */
  private readUsage(usage: ResponseUsage): void {
    const cacheRead = reportedCount(usage.input_tokens_details?.cached_tokens) ?? 0;
    const cacheWrite = reportedCount((usage.input_tokens_details as { cache_write_tokens?: unknown } | undefined)?.cache_write_tokens) ?? 0;
    this.usage.input = Math.max(0, (reportedCount(usage.input_tokens) ?? 0) - cacheRead - cacheWrite);
    this.usage.cacheRead = cacheRead;
    this.usage.cacheWrite = cacheWrite;
    this.usage.output = reportedCount(usage.output_tokens) ?? 0;
    this.usage.reasoning = reportedCount(usage.output_tokens_details?.reasoning_tokens) ?? 0;
  }
}

/** A response's final status (or why it is incomplete) in the engine's terms; the raw one stays in finishReasons. */
function toStopReason(reason: string): StopReason {
  switch (reason) {
    case 'max_output_tokens':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
