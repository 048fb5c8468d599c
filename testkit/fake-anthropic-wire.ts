/**
 * Anthropic Messages wire encoding for the fake LLM server: streamed SSE
 * events with `event:` lines (the SDK ignores data-only events), non-streamed
 * message bodies, and `{ type: 'error', error: { type, message } }` errors,
 * as a response body or as an `error` event inside a stream.
 */
import type { WireBlock, WireFormat, WireReply } from './fake-wire';
import type { Refusal } from './wire-rules';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/**
 * Where a stream reports usage. `anthropic`: as the API does, input counts
 * in message_start and the output count in message_delta. Servers of other
 * vendors that speak the Messages API differ: `no-delta-usage` sends a
 * message_delta without `usage` (MiniMax's api.minimax.io/anthropic, quoted
 * by earendil-works/pi#6567); `input-in-delta` sends the real input count
 * only in message_delta, 0 in message_start (vercel/ai#10671: "many
 * Anthropic compatible providers only return the actual input_tokens in
 * message_delta"); `none` sends no usage at all (proxies in front of other
 * models, Alishahryar1/free-claude-code#209).
 */
export type AnthropicUsageReport = 'anthropic' | 'no-delta-usage' | 'input-in-delta' | 'none';

export function anthropicWire(report: AnthropicUsageReport = 'anthropic'): WireFormat {
  return { ...anthropicEncoding, streamEvents: (reply) => streamEvents(reply, report) };
}

/**
 * message_start, a ping, then start / deltas / stop per content block,
 * message_delta, message_stop. The API sends a ping after message_start
 * and may send more anywhere (https://docs.anthropic.com/en/api/messages-streaming,
 * "Ping events"); a client must skip them.
 */
function streamEvents(reply: WireReply, report: AnthropicUsageReport): string[] {
  const { usage } = reply;
  const startUsage = {
    input_tokens: report === 'input-in-delta' ? 0 : usage.input,
    cache_read_input_tokens: usage.cacheRead,
    cache_creation_input_tokens: usage.cacheWrite,
    output_tokens: 0,
  };
  const deltaUsage = report === 'input-in-delta' ? { input_tokens: usage.input, output_tokens: usage.output } : { output_tokens: usage.output };
  const events = [
    sseEvent({
      type: 'message_start',
      message: {
        id: reply.id,
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...(report === 'none' ? {} : { usage: startUsage }),
      },
    }),
    sseEvent({ type: 'ping' }),
  ];
  reply.blocks.forEach((block, index) => {
    events.push(sseEvent({ type: 'content_block_start', index, content_block: emptyBlock(block) }));
    for (const delta of blockDeltas(block)) events.push(sseEvent({ type: 'content_block_delta', index, delta }));
    events.push(sseEvent({ type: 'content_block_stop', index }));
  });
  events.push(
    sseEvent({
      type: 'message_delta',
      delta: { stop_reason: reply.stopReason, stop_sequence: null },
      ...(report === 'none' || report === 'no-delta-usage' ? {} : { usage: deltaUsage }),
    }),
    sseEvent({ type: 'message_stop' }),
  );
  return events;
}

const anthropicEncoding: Omit<WireFormat, 'streamEvents'> = {
  messageIdPrefix: 'msg_fake_',
  toolCallIdPrefix: 'toolu_',

  responseBody(reply: WireReply): unknown {
    return {
      id: reply.id,
      type: 'message',
      role: 'assistant',
      model: reply.model,
      content: reply.blocks.map(completeBlock),
      stop_reason: reply.stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: reply.usage.input,
        cache_read_input_tokens: reply.usage.cacheRead,
        cache_creation_input_tokens: reply.usage.cacheWrite,
        output_tokens: reply.usage.output,
      },
    };
  },

  refusalFor(status: number, message: string): Refusal {
    return { status, type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message };
  },

  errorBody(refusal: Refusal): unknown {
    return { type: 'error', error: { type: refusal.type, message: refusal.message } };
  },

  /** An `error` event, e.g. overloaded_error, sent with the 200 status already out (the API's "Error events"). */
  streamError(refusal: Refusal): string {
    return sseEvent(this.errorBody(refusal) as { type: string });
  },
};

/** The block as `content_block_start` announces it, before any delta. */
function emptyBlock(block: WireBlock): unknown {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_call':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

/** A thinking block's chunks are followed by a single signature delta. */
function blockDeltas(block: WireBlock): unknown[] {
  switch (block.type) {
    case 'text':
      return block.chunks.map((text) => ({ type: 'text_delta', text }));
    case 'thinking': {
      const deltas: unknown[] = block.chunks.map((thinking) => ({ type: 'thinking_delta', thinking }));
      // A block cut off by max_tokens was never finished, so it was never signed.
      if (block.signature) deltas.push({ type: 'signature_delta', signature: block.signature });
      return deltas;
    }
    case 'tool_call':
      return block.fragments.map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  }
}

/**
 * The block in a non-streamed message. Scripted arguments that are not valid
 * JSON cannot become an `input` object, so they arrive as the raw string.
 */
function completeBlock(block: WireBlock): unknown {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.chunks.join('') };
    case 'thinking':
      return { type: 'thinking', thinking: block.chunks.join(''), signature: block.signature };
    case 'tool_call':
      return { type: 'tool_use', id: block.id, name: block.name, input: parseOrRaw(block.fragments.join('')) };
  }
}

function parseOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sseEvent(data: { type: string; [field: string]: unknown }): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}
