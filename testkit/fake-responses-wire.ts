/**
 * OpenAI Responses API wire encoding for the fake LLM server
 * (platform.openai.com/docs/api-reference/responses-streaming): named SSE
 * events, each with a `sequence_number`, from `response.created` to
 * `response.completed` (or `response.incomplete` when the output cap or a
 * content filter ended it). Each scripted block is one output item:
 * thinking a `reasoning` item, text a `message`, a tool call a
 * `function_call`. As the API does, a reasoning item's summary streams only
 * when the request asks for one (`reasoning.summary`), and its
 * `encrypted_content` is sent only when the request includes
 * `reasoning.encrypted_content` (see responses-seal.ts).
 */
import type { ScriptedStopReason, WireBlock, WireFormat, WireReply } from './fake-wire';
import { seal } from './responses-seal';
import type { Refusal } from './wire-rules';

type Item = Record<string, unknown>;

/** The id of the output item at `index` of a reply: `rs_`, `msg_` or `fc_`, then the reply's serial, as OpenAI's ids are prefixed by kind. */
export function outputItemId(reply: Pick<WireReply, 'id'>, index: number, block: WireBlock): string {
  const prefix = block.type === 'thinking' ? 'rs' : block.type === 'text' ? 'msg' : 'fc';
  return `${prefix}_${reply.id.replace(/^resp_/, '')}_${index}`;
}

/** Why a response ended incomplete, for the stop reasons that end one. */
const INCOMPLETE: Partial<Record<ScriptedStopReason, string>> = { max_tokens: 'max_output_tokens', refusal: 'content_filter' };

export const responsesWire: WireFormat = {
  messageIdPrefix: 'resp_fake_',
  toolCallIdPrefix: 'call_',

  streamEvents(reply: WireReply, request: any): string[] {
    let sequence = 0;
    const event = (type: string, fields: Record<string, unknown>): string =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence++ })}\n\n`;
    const summaries = typeof request?.reasoning?.summary === 'string';
    const events = [
      event('response.created', { response: envelope(reply, 'in_progress', []) }),
      event('response.in_progress', { response: envelope(reply, 'in_progress', []) }),
    ];
    const output: Item[] = [];
    reply.blocks.forEach((block, output_index) => {
      const item_id = outputItemId(reply, output_index, block);
      const done = finishedItem(reply, output_index, block, request);
      events.push(event('response.output_item.added', { output_index, item: startedItem(done) }));
      switch (block.type) {
        case 'thinking':
          if (!summaries || block.chunks.length === 0) break;
          events.push(event('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } }));
          for (const delta of block.chunks) events.push(event('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta }));
          events.push(event('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: block.chunks.join('') }));
          break;
        case 'text':
          events.push(event('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
          for (const delta of block.chunks) events.push(event('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] }));
          events.push(event('response.output_text.done', { item_id, output_index, content_index: 0, text: block.chunks.join(''), logprobs: [] }));
          break;
        case 'tool_call':
          for (const delta of block.fragments) events.push(event('response.function_call_arguments.delta', { item_id, output_index, delta }));
          events.push(event('response.function_call_arguments.done', { item_id, output_index, name: block.name, arguments: block.fragments.join('') }));
          break;
      }
      events.push(event('response.output_item.done', { output_index, item: done }));
      output.push(done);
    });
    const incomplete = INCOMPLETE[reply.stopReason];
    const final = { ...envelope(reply, incomplete ? 'incomplete' : 'completed', output, incomplete), usage: usageOf(reply) };
    events.push(event(incomplete ? 'response.incomplete' : 'response.completed', { response: final }));
    return events;
  },

  responseBody(reply: WireReply): unknown {
    const output = reply.blocks.map((block, index) => finishedItem(reply, index, block, {}));
    const incomplete = INCOMPLETE[reply.stopReason];
    return { ...envelope(reply, incomplete ? 'incomplete' : 'completed', output, incomplete), usage: usageOf(reply) };
  },

  refusalFor(status: number, message: string): Refusal {
    if (status === 429) return { status, message, type: 'requests', code: 'rate_limit_exceeded' };
    return { status, message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  },

  errorBody: (refusal: Refusal): unknown => ({
    error: { message: refusal.message, type: refusal.type, param: refusal.param ?? null, code: refusal.code ?? null },
  }),

  /**
   * A failure after the stream began ends the response with
   * `response.failed`, its `error` holding a code the API documents
   * (`server_error`, `rate_limit_exceeded`, ...).
   */
  streamError(refusal: Refusal): string {
    const code = refusal.status === 429 ? 'rate_limit_exceeded' : refusal.status >= 500 ? 'server_error' : (refusal.code ?? 'invalid_prompt');
    const response = { id: 'resp_failed', object: 'response', status: 'failed', output: [], error: { code, message: refusal.message } };
    return `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', response, sequence_number: 0 })}\n\n`;
  },
};

function envelope(reply: WireReply, status: string, output: Item[], incompleteReason?: string): Item {
  return {
    id: reply.id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: reply.model,
    output,
    incomplete_details: incompleteReason ? { reason: incompleteReason } : null,
    error: null,
  };
}

/** The item as `response.output_item.done` gives it (and as it may be sent back, but for `status`). */
function finishedItem(reply: WireReply, index: number, block: WireBlock, request: any): Item {
  const id = outputItemId(reply, index, block);
  switch (block.type) {
    case 'thinking': {
      const text = block.chunks.join('');
      const summaries = typeof request?.reasoning?.summary === 'string';
      const encrypted = Array.isArray(request?.include) && request.include.includes('reasoning.encrypted_content');
      return {
        id,
        type: 'reasoning',
        summary: summaries && text ? [{ type: 'summary_text', text }] : [],
        ...(encrypted ? { encrypted_content: seal(id, text) } : {}),
        status: 'completed',
      };
    }
    case 'text':
      return { id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: block.chunks.join(''), annotations: [] }] };
    case 'tool_call':
      return { id, type: 'function_call', call_id: block.id, name: block.name, arguments: block.fragments.join(''), status: 'completed' };
  }
}

/** The item as `response.output_item.added` announces it: nothing produced yet. */
function startedItem(done: Item): Item {
  switch (done.type) {
    case 'reasoning':
      return { id: done.id, type: 'reasoning', summary: [], status: 'in_progress' };
    case 'message':
      return { ...done, content: [], status: 'in_progress' };
    default:
      return { ...done, arguments: '', status: 'in_progress' };
  }
}

/** `input_tokens` includes cached tokens, as OpenAI counts them. */
function usageOf({ usage }: WireReply): Item {
  const input = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: input + usage.output,
  };
}
