import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  MessageDeltaUsage,
  RawContentBlockDelta,
  RawContentBlockStartEvent,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
import type { ErrorType } from '@anthropic-ai/sdk/resources/shared';
import { toAnthropicParams } from './anthropic-format';
import { boundedFetch, type Fetch, MODEL_SERVER_LIMITS } from './bounded-body';
import { parseEventData, type SseMessage, wireBatches } from './sse';
import {
  type HttpProviderOptions,
  type PartialResponse,
  type RetryPolicy,
  type WireAccumulator,
  resilientStream,
  retryPolicyOf,
} from './resilient-stream';
import type { ProviderProfile } from './stream-failure';
import { catchingSdkWarnings, withSdkWarnings } from './sdk-warnings';
import { reportedCount } from './token-estimate';
import { sendable } from './tool-text';
import { type AssistantBlock, emptyUsage, type LlmRequest, type ModelPricing, type Provider, type StopReason, type StreamEvent } from './types';

const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/**
 * A Messages API reached through another client with the Anthropic SDK's
 * surface (Amazon Bedrock's, Google Vertex AI's; see bedrock-endpoint.ts, vertex-endpoint.ts):
 * the client, built on the fetch it is given, the SDK error classes its
 * failures are instances of (its own copy of the SDK, in its own bundle),
 * how errors name the server, and what a 401 or 403 tells the user to check.
 */
export interface MessagesEndpoint {
  client: { readonly baseURL: string; messages: { create(body: MessageCreateParamsStreaming, options: { signal: AbortSignal }): { asResponse(): Promise<Response> } } };
  APIError: typeof Anthropic.APIError;
  APIConnectionError: typeof Anthropic.APIConnectionError;
  /** The provider's name in headers and telemetry: OpenTelemetry's gen_ai.provider.name (aws.bedrock, gcp.vertex_ai). */
  name: string;
  label: string;
  credentials: string;
}

/** Streams from the Anthropic Messages API (or anything that speaks it). */
export class AnthropicProvider implements Provider {
  readonly name: string;
  readonly supportsImages: boolean;
  readonly pricing: ModelPricing | undefined;
  readonly model: string;
  private readonly client: MessagesEndpoint['client'];
  private readonly policy: RetryPolicy;
  private readonly profile: ProviderProfile;
  private readonly maxOutputTokens: number | undefined;
  private readonly outputCap: number | undefined;

  /** `endpoint`: another client for the Messages API; default: the Anthropic SDK's, on options.baseURL. */
  constructor(options: HttpProviderOptions, endpoint?: (fetch: Fetch) => MessagesEndpoint) {
    this.model = options.model;
    this.outputCap = options.outputCap;
    this.pricing = options.pricing;
    this.supportsImages = options.supportsImages ?? true;
    this.maxOutputTokens = options.maxOutputTokens;
    this.policy = retryPolicyOf(options);
    // Retries are ours (resilient-stream), so they are visible and stop once output has been shown.
    // Error answers are read whole by the SDK: bounded, so a server cannot make one endless (see bounded-body.ts).
    const bounded = boundedFetch((url, init) => fetch(url, init), MODEL_SERVER_LIMITS);
    const other = endpoint?.(bounded);
    this.name = other?.name ?? 'anthropic';
    this.client = other?.client ?? new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, fetch: bounded });
    this.profile = {
      // With ANTHROPIC_BASE_URL or base_url set, errors name the server actually called, not Anthropic.
      label: other?.label ?? (this.client.baseURL.replace(/\/+$/, '') === ANTHROPIC_BASE_URL ? 'Anthropic' : `the server at ${this.client.baseURL}`),
      apiKeyEnv: other?.credentials ?? options.apiKeyEnv ?? 'ANTHROPIC_API_KEY',
      model: options.model,
      baseURL: this.client.baseURL,
      APIError: other?.APIError ?? Anthropic.APIError,
      APIConnectionError: other?.APIConnectionError ?? Anthropic.APIConnectionError,
    };
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const params = (): MessageCreateParamsStreaming =>
      toAnthropicParams(sendable(request), { model: this.model, defaultMaxTokens: this.maxOutputTokens, outputCap: this.outputCap });
    const warnings: string[] = [];
    const events = resilientStream(
      {
        profile: this.profile,
        open: async (attemptSignal) => {
          const request = catchingSdkWarnings(() => this.client.messages.create(params(), { signal: attemptSignal }), warnings);
          const response = await request.asResponse();
          return wireBatches(response, eventReader(response.headers, this.profile.APIError as typeof Anthropic.APIError));
        },
        newAccumulator: () => new AnthropicAccumulator(),
      },
      signal,
      this.policy,
    );
    return withSdkWarnings(events, warnings);
  }
}

/**
 * Reads the Messages API's stream events (batched by wireBatches). `ping`
 * is skipped, and an `error` event (which the API may send once the stream
 * has begun, e.g. overloaded_error) is thrown as the SDK's APIError, with no
 * status, so it is judged as the SDK would have raised it. Documented at
 * https://docs.anthropic.com/en/api/messages-streaming ("Ping events",
 * "Error events"). Each event's data names its type, so a compatible server
 * that leaves out the `event:` lines (which the SDK's reader needed) is read
 * all the same.
 */
function eventReader(headers: Headers, APIError: typeof Anthropic.APIError): (message: SseMessage) => RawMessageStreamEvent | undefined {
  return ({ event, data }) => {
    if (event === 'error') throw streamError(data, headers, APIError);
    if (event === 'ping' || data === '') return undefined;
    const parsed = parseEventData(data, event);
    if (parsed.type === 'error') throw streamError(data, headers, APIError);
    return parsed.type === 'ping' ? undefined : (parsed as unknown as RawMessageStreamEvent);
  };
}

/** An `error` event as the SDK raises it: its body parsed when it is JSON, else the text as it came. */
function streamError(data: string, headers: Headers, APIError: typeof Anthropic.APIError): InstanceType<typeof Anthropic.APIError> {
  let body: unknown = data;
  try {
    body = JSON.parse(data);
  } catch {
    // Not JSON: the text is all the server said.
  }
  const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
  return new APIError(undefined, body as object, undefined, headers, typeof type === 'string' ? (type as ErrorType) : undefined);
}

const NO_EVENTS: StreamEvent[] = [];

/** The usage fields message_start and message_delta share; a field a server leaves out keeps its earlier value. */
type WireUsage = Partial<Omit<MessageDeltaUsage, 'server_tool_use'>>;

/** Builds the response from Messages API stream events, block by block. */
class AnthropicAccumulator implements WireAccumulator<RawMessageStreamEvent> {
  /** By wire index; blocks we do not model (server tools) leave a hole. */
  private readonly blocks: (AssistantBlock | undefined)[] = [];
  private readonly usage = emptyUsage();
  private readonly finishReasons: string[] = [];
  private stopReason: StopReason | undefined;
  private responseModel: string | undefined;

  accept(event: RawMessageStreamEvent): StreamEvent[] {
    switch (event.type) {
      case 'content_block_delta':
        return this.applyDelta(this.blocks[event.index], event.delta);
      case 'content_block_start':
        return this.startBlock(event);
      // Compatible servers of other vendors leave out parts the API always sends (usage, even the message): what is missing stays unknown.
      case 'message_start':
        if (typeof event.message?.model === 'string') this.responseModel = event.message.model;
        this.readUsage(event.message?.usage);
        return NO_EVENTS;
      case 'message_delta': {
        this.readUsage(event.usage);
        const reason = event.delta?.stop_reason;
        if (typeof reason === 'string' && reason) {
          this.finishReasons.push(reason);
          this.stopReason = toStopReason(reason);
        }
        return NO_EVENTS;
      }
      default:
        return NO_EVENTS;
    }
  }

  snapshot(): PartialResponse {
    const content = this.blocks.flatMap((block): AssistantBlock[] => {
      if (!block || (block.type === 'text' && !block.text)) return [];
      return block.type === 'tool_call' && !block.arguments ? [{ ...block, arguments: '{}' }] : [block];
    });
    const partial: PartialResponse = { content, finishReasons: this.finishReasons, usage: this.usage };
    if (this.stopReason !== undefined) partial.stopReason = this.stopReason;
    if (this.responseModel !== undefined) partial.responseModel = this.responseModel;
    return partial;
  }

  private startBlock({ index, content_block: block }: RawContentBlockStartEvent): StreamEvent[] {
    switch (block.type) {
      case 'text':
        this.blocks[index] = { type: 'text', text: block.text };
        return block.text ? [{ type: 'text_delta', delta: block.text }] : NO_EVENTS;
      case 'thinking':
        this.blocks[index] = block.signature
          ? { type: 'thinking', text: block.thinking, signature: block.signature }
          : { type: 'thinking', text: block.thinking };
        return block.thinking ? [{ type: 'thinking_delta', delta: block.thinking }] : NO_EVENTS;
      case 'redacted_thinking':
        this.blocks[index] = { type: 'redacted_thinking', data: block.data };
        return NO_EVENTS;
      case 'tool_use':
        this.blocks[index] = { type: 'tool_call', id: block.id, name: block.name, arguments: '' };
        return [{ type: 'tool_call_start', id: block.id, name: block.name }];
      default:
        return NO_EVENTS;
    }
  }

  private applyDelta(block: AssistantBlock | undefined, delta: RawContentBlockDelta): StreamEvent[] {
    if (delta.type === 'text_delta' && block?.type === 'text') {
      block.text += delta.text;
      return [{ type: 'text_delta', delta: delta.text }];
    }
    if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
      block.text += delta.thinking;
      return [{ type: 'thinking_delta', delta: delta.thinking }];
    }
    if (delta.type === 'signature_delta' && block?.type === 'thinking') {
      block.signature = (block.signature ?? '') + delta.signature;
    } else if (delta.type === 'input_json_delta' && block?.type === 'tool_call') {
      block.arguments += delta.partial_json;
    }
    return NO_EVENTS;
  }

  /**
   * input_tokens excludes cached tokens; output_tokens is cumulative, so the
   * last report wins. A count a server leaves out (or sends as null, or not
   * as a count) keeps the earlier one; with none at all, the usage stays 0
   * and the context gauge goes by Crow's own estimate (see ContextGauge).
   */
  private readUsage(usage: WireUsage | null | undefined): void {
    if (typeof usage !== 'object' || usage === null) return;
    this.usage.input = reportedCount(usage.input_tokens) ?? this.usage.input;
    this.usage.cacheRead = reportedCount(usage.cache_read_input_tokens) ?? this.usage.cacheRead;
    this.usage.cacheWrite = reportedCount(usage.cache_creation_input_tokens) ?? this.usage.cacheWrite;
    this.usage.output = reportedCount(usage.output_tokens) ?? this.usage.output;
    this.usage.reasoning = reportedCount(usage.output_tokens_details?.thinking_tokens) ?? this.usage.reasoning;
  }
}


/**
 * The API's stop reasons in the engine's terms; `stop_sequence` and any
 * reason added later end the turn. The raw reason stays in finishReasons.
 */
function toStopReason(reason: string): StopReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'pause_turn':
      return 'pause_turn';
    default:
      return 'end_turn';
  }
}
