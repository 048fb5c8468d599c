import assert from 'node:assert/strict';
import type { ResponseReasoningItem } from 'openai/resources/responses/responses';
import { providerFor } from '../../../src/llm';
import { effortFor, isReasoningItemData, reasoningItemBlock, toResponsesParams } from '../../../src/llm/openai-responses-format';
import type { LlmRequest, Message } from '../../../src/llm/types';
import { PNG, sampleHistory } from '../../support/sample-history';

const TOOLS = [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }];
const ASK: Message = { role: 'user', content: [{ type: 'text', text: 'Go on.' }] };
const ITEM: ResponseReasoningItem = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'gAAAAsealed', status: 'completed' };

const request = (messages: Message[], more: Partial<LlmRequest> = {}): LlmRequest => ({ system: 'Be brief.', messages, tools: TOOLS, ...more });
const inputOf = (messages: Message[], model = 'gpt-5.4') => toResponsesParams(request(messages), { model }).input as unknown as Record<string, unknown>[];

describe('Responses API request format', () => {
  it('keeps a reasoning item whole but for its output-only status, as JSON Anthropic data never looks like', () => {
    const block = reasoningItemBlock(ITEM);
    assert.deepEqual(JSON.parse(block.data), { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'gAAAAsealed' });
    assert.equal(isReasoningItemData(block.data), true);
    assert.equal(isReasoningItemData('EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw'), false);
    assert.deepEqual(JSON.parse(reasoningItemBlock({ id: 'rs_2', type: 'reasoning', summary: [] }).data), { type: 'reasoning', id: 'rs_2', summary: [] });
  });

  it('sends a reasoning item before the call it came with, and drops one nothing followed', () => {
    const history: Message[] = [
      ASK,
      { role: 'assistant', content: [{ type: 'thinking', text: 'Plan.' }, reasoningItemBlock(ITEM), { type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{}' }] },
      { role: 'tool_results', results: [{ callId: 'call_1', content: 'x', isError: false }] },
      // Cut off after reasoning: the API refuses a reasoning item without its following item.
      { role: 'assistant', content: [reasoningItemBlock({ ...ITEM, id: 'rs_orphan' })] },
      ASK,
    ];
    const input = inputOf(history);
    assert.deepEqual(
      input.map((item) => item.type),
      ['message', 'reasoning', 'function_call', 'function_call_output', 'message'],
    );
    assert.equal(input[1]!.id, 'rs_1');
    assert.deepEqual(input[2], { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{}' });
  });

  it("sends no other provider's thinking: Anthropic's signed and redacted thinking stay out", () => {
    const history = sampleHistory('toolu_', 'c2lnbmF0dXJl+/==');
    (history[1] as Extract<Message, { role: 'assistant' }>).content.unshift({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3p' });
    const input = inputOf(history);
    assert.deepEqual(
      input.map((item) => `${item.type}${item.role ? `:${item.role}` : ''}`),
      ['message:user', 'message:assistant', 'function_call', 'function_call', 'function_call_output', 'function_call_output', 'message:user'],
    );
    assert.deepEqual(input.at(-1)!.content, [
      { type: 'input_text', text: 'Here is what I see.' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
    ]);
  });

  it('sends images a tool returned in a user message after the outputs', () => {
    const history: Message[] = [
      ASK,
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path":"a.png"}' }] },
      { role: 'tool_results', results: [{ callId: 'call_1', content: 'an image', isError: false, images: [{ type: 'image', mimeType: 'image/png', data: PNG }] }] },
    ];
    const input = inputOf(history);
    assert.deepEqual(input.at(-1), {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'Image returned by tool call call_1:' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      ],
    });
  });

  it('asks a reasoning model for its encrypted reasoning, and a thinking budget for an effort with summaries', () => {
    const plain = toResponsesParams(request([ASK]), { model: 'gpt-4.1', maxOutputTokens: 8 });
    assert.equal(plain.include, undefined);
    assert.equal(plain.reasoning, undefined);
    assert.equal(plain.max_output_tokens, 16, 'the least the API takes');
    assert.equal(plain.store, false);

    const reasoning = toResponsesParams(request([ASK], { thinkingBudget: 30_000, toolChoice: 'none' }), { model: 'gpt-5.4' });
    assert.deepEqual(reasoning.include, ['reasoning.encrypted_content']);
    assert.deepEqual(reasoning.reasoning, { effort: 'high', summary: 'auto' });
    assert.equal(reasoning.tool_choice, 'none');
    assert.deepEqual([effortFor(1_024), effortFor(4_096), effortFor(10_000), effortFor(16_384), effortFor(16_385)], ['low', 'low', 'medium', 'medium', 'high']);
  });

  it('is built for providers of type openai-responses', () => {
    const provider = providerFor({ entry: { name: 'gpt', type: 'openai-responses', apiKeyEnv: 'OPENAI_API_KEY', models: {} }, model: 'gpt-5.4', apiKey: 'k' }, {});
    assert.equal(provider.name, 'openai-responses');
    assert.equal(provider.supportsImages, true);
  });
});
