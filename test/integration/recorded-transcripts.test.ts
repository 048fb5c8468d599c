/**
 * The conversations of each provider's own tool-use documentation, replayed:
 * the model's answers are the documented ones (played by the strict fake,
 * through the real SDK), the tools are Crow tools, and the requests Crow
 * sends must have the documented shape, message for message.
 * Anthropic: docs.claude.com, "Tool use" (get_weather, and get_time beside
 * it as parallel calls). OpenAI: platform.openai.com, "Function calling"
 * with Chat Completions (get_weather for Paris).
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AnthropicProvider } from '../../src/llm/anthropic';
import { OpenAIProvider } from '../../src/llm/openai';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { defineTool } from '../../src/tools/define-tool';
import { runTurn } from '../support/engine';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  kind: 'fetch',
  permission: 'none',
  parameters: z.object({ location: z.string().describe('The city and state, e.g. San Francisco, CA') }),
  async execute({ location }) {
    return { output: location.startsWith('Paris') ? '14' : '15 degrees' };
  },
});

const getTime = defineTool({
  name: 'get_time',
  description: 'Get the current time in a given time zone',
  kind: 'fetch',
  permission: 'none',
  parameters: z.object({ timezone: z.string().describe('The IANA time zone name, e.g. America/Los_Angeles') }),
  async execute() {
    return { output: '11:32 AM' };
  },
});

/** A request body without what only marks it for caching. */
function withoutCacheMarks(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, field: unknown) => (key === 'cache_control' ? undefined : field)));
}

describe("each provider's documented tool-use conversation, sent by Crow", () => {
  let server: FakeLlmServer;
  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());

  it('Anthropic: a text and two parallel tool_use blocks, answered by tool_result blocks in one user message', async () => {
    server.enqueue(
      'anthropic',
      {
        blocks: [
          { type: 'text', text: "I'll check the current weather and time in San Francisco for you." },
          { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: { location: 'San Francisco, CA' } },
          { type: 'tool_call', id: 'toolu_01B09q90qw90lq917835lq9', name: 'get_time', arguments: { timezone: 'America/Los_Angeles' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'It is currently 15 degrees in San Francisco, and the time is 11:32 AM.' }] },
    );
    const provider = new AnthropicProvider({ apiKey: 'k', model: 'claude-sonnet-4-6', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
    const { result } = await runTurn(provider, [getWeather, getTime], "What's the weather like in San Francisco, and what time is it there?");
    assert.equal(result.text, 'It is currently 15 degrees in San Francisco, and the time is 11:32 AM.');

    const [first, second] = server.requestsFor('anthropic').map((request) => withoutCacheMarks(request.body) as Record<string, any>);
    assert.deepEqual(first!.tools, [
      {
        name: 'get_weather',
        description: 'Get the current weather in a given location',
        input_schema: {
          type: 'object',
          properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
          required: ['location'],
        },
      },
      {
        name: 'get_time',
        description: 'Get the current time in a given time zone',
        input_schema: {
          type: 'object',
          properties: { timezone: { type: 'string', description: 'The IANA time zone name, e.g. America/Los_Angeles' } },
          required: ['timezone'],
        },
      },
    ]);
    assert.deepEqual(first!.messages, [{ role: 'user', content: [{ type: 'text', text: "What's the weather like in San Francisco, and what time is it there?" }] }]);
    assert.deepEqual(second!.messages, [
      { role: 'user', content: [{ type: 'text', text: "What's the weather like in San Francisco, and what time is it there?" }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: "I'll check the current weather and time in San Francisco for you." },
          { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'San Francisco, CA' } },
          { type: 'tool_use', id: 'toolu_01B09q90qw90lq917835lq9', name: 'get_time', input: { timezone: 'America/Los_Angeles' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_01B09q90qw90lq917835lq9', content: '11:32 AM', is_error: false },
        ],
      },
    ]);
    for (const body of [first!, second!]) {
      assert.equal(body.stream, true);
      assert.equal(typeof body.max_tokens, 'number');
      assert.equal(body.system[0].type, 'text');
    }
  });

  it('OpenAI: an assistant message with tool_calls, answered by a tool message for its tool_call_id', async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', id: 'call_12345xyz', name: 'get_weather', arguments: { location: 'Paris, France' } }] },
      { blocks: [{ type: 'text', text: 'The current temperature in Paris is 14°C.' }] },
    );
    const provider = new OpenAIProvider({ apiKey: 'k', model: 'gpt-4.1', baseURL: server.openaiBaseUrl, flavor: 'openai', maxRetries: 0 });
    const { result } = await runTurn(provider, [getWeather], 'What is the weather like in Paris today?');
    assert.equal(result.text, 'The current temperature in Paris is 14°C.');

    const [first, second] = server.requestsFor('openai').map((request) => request.body as Record<string, any>);
    assert.deepEqual(first!.tools, [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Get the current weather in a given location',
          parameters: {
            type: 'object',
            properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
            required: ['location'],
          },
        },
      },
    ]);
    assert.deepEqual(second!.messages.slice(1), [
      { role: 'user', content: 'What is the weather like in Paris today?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_12345xyz', content: '14' },
    ]);
    assert.equal(second!.messages[0].role, 'system');
    assert.deepEqual(second!.stream_options, { include_usage: true });
  });
});
