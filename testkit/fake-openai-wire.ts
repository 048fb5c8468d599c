/**
 * OpenAI Chat Completions wire encoding for the fake LLM server: streamed
 * `chat.completion.chunk` SSE data lines ending in `data: [DONE]`, non-streamed
 * `chat.completion` bodies, and `{ error: { message, type, code } }` errors.
 * Reasoning travels in an untyped field (`reasoning_content` or `reasoning`), as the profile's server names it.
 */
import type { ChatServerProfile, ChatStreaming } from './chat-servers';
import type { ScriptedStopReason, WireBlock, WireFormat, WireReply } from './fake-wire';
import type { Refusal } from './wire-rules';

/** `pause_turn` has no Chat Completions counterpart; the server refuses to script it (see validateFor). */
const FINISH_REASONS: Record<ScriptedStopReason, string> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  pause_turn: 'stop',
};

type Delta = Record<string, unknown>;

/** The Chat Completions wire as `profile`'s server speaks it. */
export function openaiWire(profile: ChatServerProfile): WireFormat {
  return {
    messageIdPrefix: 'chatcmpl-fake-',
    toolCallIdPrefix: 'call_',

    /** Role chunk, one chunk per content piece, finish chunk, usage chunk if `stream_options.include_usage`, [DONE]. */
    streamEvents(reply: WireReply, request: any): string[] {
      const envelope = { id: reply.id, object: 'chat.completion.chunk', created: unixSeconds(), model: reply.model };
      const finish = FINISH_REASONS[reply.stopReason];
      const deltaChunk = deltaChunkEncoder(envelope);

      const events = [deltaChunk({ role: 'assistant', content: '' })];
      for (const delta of contentDeltas(reply.blocks, profile.streaming)) events.push(deltaChunk(delta));
      events.push(dataEvent({ ...envelope, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finish }] }));
      if (request.stream_options?.include_usage === true) {
        events.push(dataEvent({ ...envelope, choices: [], usage: usageOf(reply) }));
      }
      events.push('data: [DONE]\n\n');
      return events;
    },

    responseBody(reply: WireReply): unknown {
      const text = joined(reply.blocks, 'text');
      const reasoning = joined(reply.blocks, 'thinking');
      const toolCalls = reply.blocks.flatMap((block) =>
        block.type === 'tool_call'
          ? [
              {
                id: block.id,
                type: 'function',
                function: { name: block.name, arguments: block.fragments.join('') },
                ...(block.signature ? { extra_content: { google: { thought_signature: block.signature } } } : {}),
              },
            ]
          : [],
      );
      const message = {
        role: 'assistant',
        content: text,
        refusal: null,
        ...(reasoning !== null && { [profile.streaming.reasoningField]: reasoning }),
        ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      };
      return {
        id: reply.id,
        object: 'chat.completion',
        created: unixSeconds(),
        model: reply.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH_REASONS[reply.stopReason] }],
        usage: usageOf(reply),
      };
    },

    refusalFor(status: number, message: string): Refusal {
      if (status === 429) return { status, message, type: 'requests', code: 'rate_limit_exceeded' };
      return { status, message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
    },

    errorBody: (refusal: Refusal): unknown => profile.errorBody(refusal),

    /** A data line holding the error object, which the SDK raises as an APIError; no [DONE] follows. */
    streamError: (refusal: Refusal): string => dataEvent(profile.errorBody(refusal) as object),
  };
}

/**
 * One delta per content piece. A tool call opens with a delta carrying its
 * id, name and empty arguments; its argument fragments follow under the same
 * `index` (the call's position among the reply's tool calls). A server that
 * sends calls whole sends each in one delta, arguments complete.
 */
function* contentDeltas(blocks: WireBlock[], streaming: ChatStreaming): Generator<Delta> {
  let toolIndex = 0;
  let detailIndex = 0;
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        for (const content of block.chunks) yield { content };
        break;
      case 'thinking': {
        const index = detailIndex++;
        for (const reasoning of block.chunks) {
          const details = streaming.reasoningDetails ? { reasoning_details: [{ type: 'reasoning.text', text: reasoning, format: DETAILS_FORMAT, index }] } : {};
          yield { [streaming.reasoningField]: reasoning, ...details };
        }
        // The signature comes last, in an entry of its own under the same index.
        if (streaming.reasoningDetails && block.signature) {
          yield { reasoning_details: [{ type: 'reasoning.text', signature: block.signature, format: DETAILS_FORMAT, index }] };
        }
        break;
      }
      case 'tool_call': {
        const index = toolIndex++;
        const signed = block.signature ? { extra_content: { google: { thought_signature: block.signature } } } : {};
        if (streaming.toolCalls === 'whole') {
          const call = { index, id: block.id, type: 'function', function: { name: block.name, arguments: block.fragments.join('') }, ...signed };
          yield { tool_calls: [call] };
          break;
        }
        yield { tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' }, ...signed }] };
        for (const fragment of block.fragments) yield { tool_calls: [{ index, function: { arguments: fragment } }] };
        break;
      }
    }
  }
}

/** The `format` OpenRouter gives reasoning details of an Anthropic model. */
const DETAILS_FORMAT = 'anthropic-claude-v1';

/** Marks where the delta goes in a serialised chunk. */
const DELTA_SLOT = '\u0000delta';

/**
 * Encodes mid-stream chunks (no finish reason) of one reply. The chunk is
 * serialised once around a placeholder and each delta spliced in: serialising
 * the whole chunk each time would dominate the cost of long replies.
 */
function deltaChunkEncoder(envelope: Record<string, unknown>): (delta: Delta) => string {
  const template = { ...envelope, choices: [{ index: 0, delta: DELTA_SLOT, logprobs: null, finish_reason: null }] };
  const [before, after] = JSON.stringify(template).split(JSON.stringify(DELTA_SLOT));
  return (delta) => `data: ${before}${JSON.stringify(delta)}${after}\n\n`;
}

/** `prompt_tokens` includes cached tokens, as OpenAI counts them. */
function usageOf({ usage }: WireReply): Record<string, unknown> {
  const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.output,
    total_tokens: promptTokens + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}

/** All chunks of the given kind concatenated, or null when the reply has no such block. */
function joined(blocks: WireBlock[], type: 'text' | 'thinking'): string | null {
  const matching = blocks.filter((block): block is Extract<WireBlock, { chunks: string[] }> => block.type === type);
  return matching.length > 0 ? matching.map((block) => block.chunks.join('')).join('') : null;
}

function dataEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
