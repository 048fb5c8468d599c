import assert from 'node:assert/strict';
import { toOpenAIParams } from '../../../src/llm/openai-format';
import type { ServerFlavor } from '../../../src/llm/openai-flavor';
import type { LlmRequest, Message } from '../../../src/llm/types';
import { PNG, sampleHistory } from '../../support/sample-history';

const history: Message[] = sampleHistory('call_', 'c2lnbmF0dXJl');

const readFileSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

const request: LlmRequest = {
  system: 'You are a coding agent.',
  messages: history,
  tools: [{ name: 'read_file', description: 'Read a file.', inputSchema: readFileSchema }],
};

describe('toOpenAIParams', () => {
  it('converts a realistic history to the exact Chat Completions shape', () => {
    const params = toOpenAIParams(request, { model: 'gpt-test', flavor: 'openai' });

    assert.deepEqual(params, {
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: readFileSchema } }],
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'The add test fails. Fix it.' },
        {
          role: 'assistant',
          content: 'Let me look at the code first.',
          tool_calls: [
            { id: 'call_01', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/math.ts"}' } },
            { id: 'call_02', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_01', content: 'export const add = (a, b) => a - b;' },
        { role: 'tool', tool_call_id: 'call_02', content: 'exit code 1: 1 failing' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here is what I see.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
  });

  it('sends thinking back only where the server requires it: DeepSeek, on assistant messages with tool calls', () => {
    for (const flavor of ['openai', 'vllm', 'gemini', 'generic'] as const) {
      const serialized = JSON.stringify(toOpenAIParams(request, { model: 'gpt-test', flavor }));
      assert.ok(!serialized.includes('Read the file, then run the tests.'), flavor);
      assert.ok(!serialized.includes('c2lnbmF0dXJl'), flavor);
    }
    const assistant = toOpenAIParams(request, { model: 'deepseek-v4-pro', flavor: 'deepseek' }).messages.filter((message) => message.role === 'assistant');
    const echoed = assistant.map((message) => (message as { tool_calls?: unknown[]; reasoning_content?: string }));
    assert.equal(echoed[0]!.reasoning_content, 'Read the file, then run the tests.', 'the thinking of the turn that called the tool');
    for (const message of echoed) assert.equal(typeof message.reasoning_content === 'string', Boolean(message.tool_calls), 'a string exactly on messages with tool calls');
  });

  it("sends what a server attached to a call (Gemini's thought signature) back with it, except to OpenAI itself", () => {
    const signed: LlmRequest = {
      ...request,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read_file', arguments: '{}', extra: { google: { thought_signature: 'SIG' } } }] },
        { role: 'tool_results', results: [{ callId: 'c1', content: 'ok', isError: false }] },
      ],
    };
    const callOf = (flavor: ServerFlavor) => (toOpenAIParams(signed, { model: 'm', flavor }).messages[2] as unknown as { tool_calls: Record<string, unknown>[] }).tool_calls[0]!;
    assert.deepEqual(callOf('gemini').extra_content, { google: { thought_signature: 'SIG' } });
    assert.deepEqual(callOf('generic').extra_content, { google: { thought_signature: 'SIG' } });
    assert.equal(callOf('openai').extra_content, undefined);
  });

  it('sends max_completion_tokens only when a limit is set, the request first', () => {
    const base: LlmRequest = { system: '', tools: [], messages: history.slice(0, 1) };

    const unlimited = toOpenAIParams(base, { model: 'm', flavor: 'openai' });
    assert.equal('max_completion_tokens' in unlimited, false);
    assert.equal('tools' in unlimited, false);
    assert.deepEqual(unlimited.messages, [{ role: 'user', content: 'The add test fails. Fix it.' }]);

    assert.equal(toOpenAIParams(base, { model: 'm', flavor: 'openai', maxOutputTokens: 2048 }).max_completion_tokens, 2048);
    assert.equal(toOpenAIParams({ ...base, maxOutputTokens: 512 }, { model: 'm', flavor: 'openai', maxOutputTokens: 2048 }).max_completion_tokens, 512);
  });

  it('sends the cap in the field each server reads, never both', () => {
    const base: LlmRequest = { system: '', tools: [], messages: history.slice(0, 1), maxOutputTokens: 300 };
    const capOf = (flavor: ServerFlavor) => {
      const params = toOpenAIParams(base, { model: 'm', flavor }) as unknown as Record<string, unknown>;
      return Object.keys(params).filter((key) => key.startsWith('max_')).map((key) => `${key}=${params[key]}`);
    };
    assert.deepEqual(capOf('openai'), ['max_completion_tokens=300']);
    assert.deepEqual(capOf('vllm'), ['max_completion_tokens=300']);
    for (const flavor of ['ollama', 'llama.cpp', 'lmstudio', 'generic'] as const) assert.deepEqual(capOf(flavor), ['max_tokens=300'], flavor);
  });

  it('asks for an answer without tool calls with tool_choice none, or without tools where the server ignores tool_choice', () => {
    const tool = { name: 'bash', description: 'Run.', inputSchema: { type: 'object', properties: {} } };
    const request: LlmRequest = { system: '', tools: [tool], toolChoice: 'none', messages: history };
    const openai = toOpenAIParams(request, { model: 'm', flavor: 'openai' });
    assert.equal(openai.tool_choice, 'none');
    assert.equal(openai.tools?.length, 1);
    const ollama = toOpenAIParams(request, { model: 'm', flavor: 'ollama' });
    assert.equal('tool_choice' in ollama, false);
    assert.equal('tools' in ollama, false);
    assert.equal('tool_choice' in toOpenAIParams({ ...request, toolChoice: undefined }, { model: 'm', flavor: 'openai' }), false);
  });

  it('sends tool-only turns with null content and skips turns with nothing to send', () => {
    const params = toOpenAIParams(
      {
        system: '',
        tools: [],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
          { role: 'assistant', content: [{ type: 'thinking', text: 'Only thought, then aborted.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'bash', arguments: '{"command":' }] },
        ],
      },
      { model: 'm', flavor: 'openai' },
    );

    assert.deepEqual(params.messages, [
      { role: 'user', content: 'Go.' },
      { role: 'user', content: 'Go on.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":' } }],
      },
    ]);
  });
});
