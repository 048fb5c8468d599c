import assert from 'node:assert/strict';
import { toAnthropicParams } from '../../../src/llm/anthropic-format';
import type { LlmRequest, Message } from '../../../src/llm/types';
import { PNG, sampleHistory } from '../../support/sample-history';

const history: Message[] = sampleHistory('toolu_', 'c2lnbmF0dXJl+/==');

const request: LlmRequest = {
  system: 'You are a coding agent.',
  messages: history,
  tools: [
    { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    { name: 'bash', description: 'Run a command.', inputSchema: { properties: { command: { type: 'string' } } } },
  ],
};

describe('toAnthropicParams', () => {
  it('converts a realistic history to the exact Messages API shape', () => {
    const params = toAnthropicParams(request, { model: 'claude-test' });

    assert.deepEqual(params, {
      model: 'claude-test',
      max_tokens: 8192,
      stream: true,
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      tools: [
        {
          name: 'read_file',
          description: 'Read a file.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
        {
          name: 'bash',
          description: 'Run a command.',
          input_schema: { type: 'object', properties: { command: { type: 'string' } } },
          cache_control: { type: 'ephemeral' },
        },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'The add test fails. Fix it.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Read the file, then run the tests.', signature: 'c2lnbmF0dXJl+/==' },
            { type: 'text', text: 'Let me look at the code first.' },
            { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'src/math.ts' } },
            { type: 'tool_use', id: 'toolu_02', name: 'bash', input: { command: 'npm test' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const add = (a, b) => a - b;', is_error: false },
            { type: 'tool_result', tool_use_id: 'toolu_02', content: 'exit code 1: 1 failing', is_error: true },
            { type: 'text', text: 'Here is what I see.' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: PNG },
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
    });
  });

  it('does not mutate the request', () => {
    const before = structuredClone(request);
    toAnthropicParams(request, { model: 'claude-test' });
    assert.deepEqual(request, before);
  });

  it('replays malformed tool arguments as {} and tells the model what it sent', () => {
    const params = toAnthropicParams(
      {
        system: '',
        tools: [],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Write it.' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'toolu_bad', name: 'write_file', arguments: '{"path": "a.ts", "content": "x' }] },
          { role: 'tool_results', results: [{ callId: 'toolu_bad', content: 'Invalid arguments.', isError: true }] },
        ],
      },
      { model: 'claude-test' },
    );

    assert.equal(params.system, undefined);
    assert.equal(params.tools, undefined);
    assert.deepEqual(params.messages[1]!.content, [{ type: 'tool_use', id: 'toolu_bad', name: 'write_file', input: {} }]);
    const [result] = params.messages[2]!.content as { type: string; content: string; is_error: boolean }[];
    assert.equal(result!.is_error, true);
    assert.match(result!.content, /not a valid JSON object/);
    assert.ok(result!.content.includes('You sent: {"path": "a.ts", "content": "x'));
    assert.ok(result!.content.endsWith('\nInvalid arguments.'));
  });

  it('replays empty tool arguments as {} without a note', () => {
    const params = toAnthropicParams(
      {
        system: '',
        tools: [],
        messages: [
          { role: 'assistant', content: [{ type: 'tool_call', id: 'toolu_1', name: 'list_files', arguments: '' }] },
          { role: 'tool_results', results: [{ callId: 'toolu_1', content: 'a.ts', isError: false }] },
        ],
      },
      { model: 'claude-test' },
    );

    assert.deepEqual(params.messages[0]!.content, [{ type: 'tool_use', id: 'toolu_1', name: 'list_files', input: {} }]);
    assert.equal((params.messages[1]!.content as { content: string }[])[0]!.content, 'a.ts');
  });

  it('leaves out what the API would reject: unsigned thinking, empty text, empty messages', () => {
    const params = toAnthropicParams(
      {
        system: 'S',
        tools: [],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          { role: 'assistant', content: [{ type: 'thinking', text: 'cut off before the signature' }, { type: 'text', text: '' }] },
          { role: 'user', content: [{ type: 'text', text: 'Still there?' }] },
          { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'ENCRYPTED' }, { type: 'text', text: 'Yes.' }] },
        ],
      },
      { model: 'claude-test' },
    );

    assert.deepEqual(params.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'Still there?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'ENCRYPTED' },
          { type: 'text', text: 'Yes.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('turns an image type the API does not accept into a note', () => {
    const params = toAnthropicParams(
      { system: '', tools: [], messages: [{ role: 'user', content: [{ type: 'image', mimeType: 'image/bmp', data: 'Qk0=' }] }] },
      { model: 'claude-test' },
    );
    const [block] = params.messages[0]!.content as { type: string; text: string }[];
    assert.equal(block!.type, 'text');
    assert.match(block!.text, /image\/bmp/);
  });

  it('enables thinking with max_tokens above the budget', () => {
    const base = { system: '', tools: [], messages: history.slice(0, 1) };

    const roomy = toAnthropicParams({ ...base, thinkingBudget: 4000, maxOutputTokens: 16000 }, { model: 'm' });
    assert.deepEqual(roomy.thinking, { type: 'enabled', budget_tokens: 4000 });
    assert.equal(roomy.max_tokens, 16000);

    const tight = toAnthropicParams({ ...base, thinkingBudget: 10000 }, { model: 'm', defaultMaxTokens: 4096 });
    assert.deepEqual(tight.thinking, { type: 'enabled', budget_tokens: 10000 });
    assert.equal(tight.max_tokens, 14096);

    const tiny = toAnthropicParams({ ...base, thinkingBudget: 100 }, { model: 'm' });
    assert.deepEqual(tiny.thinking, { type: 'enabled', budget_tokens: 1024 });

    assert.equal(toAnthropicParams({ ...base, thinkingBudget: 0 }, { model: 'm' }).thinking, undefined);
  });

  it("fits max_tokens and the thinking budget under the model's output cap, keeping the room asked for the answer", () => {
    const base = { system: '', tools: [], messages: history.slice(0, 1) };
    // thinking_budget = 60000 on a model whose cap is 64,000: 68,192 would be refused.
    const capped = toAnthropicParams({ ...base, thinkingBudget: 60_000 }, { model: 'claude-sonnet-4-6', outputCap: 64_000 });
    assert.equal(capped.max_tokens, 64_000);
    assert.deepEqual(capped.thinking, { type: 'enabled', budget_tokens: 64_000 - 8192 });

    // A cap so small the answer's room would leave no thinking: the API's minimum budget, the answer gets the rest.
    const small = toAnthropicParams({ ...base, thinkingBudget: 10_000, maxOutputTokens: 8192 }, { model: 'm', outputCap: 8192 });
    assert.equal(small.max_tokens, 8192);
    assert.deepEqual(small.thinking, { type: 'enabled', budget_tokens: 1024 });

    // Without thinking, max_tokens alone is capped; under the cap nothing changes.
    assert.equal(toAnthropicParams({ ...base, maxOutputTokens: 100_000 }, { model: 'm', outputCap: 64_000 }).max_tokens, 64_000);
    assert.equal(toAnthropicParams({ ...base, thinkingBudget: 4000 }, { model: 'm', outputCap: 64_000 }).max_tokens, 8192);
  });
});
