/**
 * The fake's server behaviour beyond refusals, through the real SDKs: each
 * Chat Completions server reads its own output-cap field and streams tool
 * calls and reasoning its own way; Ollama drops the oldest messages of a
 * prompt past its window; Anthropic's prompt cache is simulated.
 */
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { CHAT_SERVERS, type ChatServerName } from '../../testkit/chat-servers';
import { FakeLlmServer } from '../../testkit/fake-llm-server';

const TWENTY_PIECES = { blocks: [{ type: 'text' as const, text: Array.from({ length: 20 }, (_, i) => `w${i} `) }] };

async function chatStream(server: FakeLlmServer, body: Record<string, unknown>): Promise<any[]> {
  const client = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseUrl, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model: 'qwen3', messages: [{ role: 'user', content: 'Hi.' }], stream: true, ...body } as any);
  const chunks: any[] = [];
  for await (const chunk of stream as any) chunks.push(chunk);
  return chunks;
}

const finishOf = (chunks: any[]) => chunks.flatMap((chunk) => chunk.choices.map((choice: any) => choice.finish_reason)).filter(Boolean);

describe('the fake Chat Completions servers', () => {
  const reads: Record<ChatServerName, string[]> = {
    openai: ['max_completion_tokens', 'max_tokens'],
    azure: ['max_completion_tokens', 'max_tokens'],
    openrouter: ['max_tokens'],
    ollama: ['max_tokens'],
    'llama.cpp': ['max_tokens'],
    vllm: ['max_completion_tokens', 'max_tokens'],
    lmstudio: ['max_tokens'],
    deepseek: ['max_tokens'],
    gemini: ['max_completion_tokens', 'max_tokens'],
  };

  for (const name of CHAT_SERVERS) {
    it(`${name} stops at the cap in the field it reads, and ignores the others`, async () => {
      const server = await FakeLlmServer.start({ chatServer: name });
      try {
        for (const field of ['max_completion_tokens', 'max_tokens']) {
          server.enqueue('openai', TWENTY_PIECES);
          const chunks = await chatStream(server, { [field]: 5 });
          const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
          if (reads[name].includes(field)) {
            assert.deepEqual(finishOf(chunks), ['length'], `${name} reads ${field}`);
            assert.equal(text, 'w0 w1 w2 w3 w4 ');
          } else {
            assert.deepEqual(finishOf(chunks), ['stop'], `${name} ignores ${field}: the cap silently vanishes`);
            assert.equal(text.split(' ').filter(Boolean).length, 20);
          }
        }
      } finally {
        await server.close();
      }
    });
  }

  it('Ollama sends each tool call whole and reasoning as `reasoning`; vLLM streams fragments and `reasoning`', async () => {
    const reply = {
      blocks: [
        { type: 'thinking' as const, text: 'Weather, then.' },
        { type: 'tool_call' as const, name: 'get_weather', arguments: { location: 'Paris' }, fragments: 4 },
      ],
    };
    for (const [name, pieces] of [['ollama', 1], ['vllm', 5], ['llama.cpp', 5]] as const) {
      const server = await FakeLlmServer.start({ chatServer: name });
      try {
        server.enqueue('openai', reply);
        const deltas = (await chatStream(server, {})).map((chunk) => chunk.choices[0]?.delta ?? {});
        const calls = deltas.flatMap((delta) => delta.tool_calls ?? []);
        assert.equal(calls.length, pieces, `${name}: tool call chunks`);
        assert.equal(calls.map((call: any) => call.function?.arguments ?? '').join(''), '{"location":"Paris"}');
        const field = name === 'llama.cpp' ? 'reasoning_content' : 'reasoning';
        assert.equal(deltas.map((delta) => delta[field] ?? '').join(''), 'Weather, then.', `${name} streams reasoning as ${field}`);
      } finally {
        await server.close();
      }
    }
  });

  it('Ollama drops the oldest messages of a prompt past its window, keeps the system prompt, and reports what it read', async () => {
    const server = await FakeLlmServer.start({ chatServer: 'ollama', contextWindow: 200 });
    try {
      server.enqueue('openai', { blocks: [{ type: 'text', text: 'ok' }] });
      const messages = [
        { role: 'system', content: 'You are terse.' },
        ...Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `Message ${i}: ${'words '.repeat(40)}` })),
        { role: 'user', content: 'The latest question.' },
      ];
      const chunks = await chatStream(server, { messages, stream_options: { include_usage: true } });
      const usage = chunks.at(-1).usage;
      assert.ok(usage.prompt_tokens <= 200, `read ${usage.prompt_tokens} tokens`);
      assert.ok(usage.prompt_tokens > 20, 'the system prompt and the latest message were read');
      assert.deepEqual(server.takeRefusals(), [], 'Ollama says nothing');
    } finally {
      await server.close();
    }
  });
});

describe("the fake's Anthropic prompt cache", () => {
  const system = [{ type: 'text', text: `You are a coding agent. ${'Rules. '.repeat(1200)}`, cache_control: { type: 'ephemeral' } }];
  const tools = [{ name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } }];
  /** A conversation of `turns` questions and answers, the last question marked for caching as Crow marks it. */
  const request = (turns: number, extra: Record<string, unknown> = {}) => {
    const messages: any[] = Array.from({ length: turns }, (_, n) => [
      { role: 'user', content: [{ type: 'text', text: `Question ${n}.` }] },
      { role: 'assistant', content: [{ type: 'text', text: `Answer ${n}.` }] },
    ]).flat();
    messages.push({ role: 'user', content: [{ type: 'text', text: `Question ${turns}.`, cache_control: { type: 'ephemeral' } }] });
    return { model: 'claude-sonnet-4-6', max_tokens: 100, system, tools, messages, ...extra };
  };

  async function usageOf(server: FakeLlmServer, body: any): Promise<Anthropic.Usage> {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'ok' }] });
    const client = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
    return (await client.messages.create(body)).usage;
  }

  it('writes the prefix up to each breakpoint, then reads the longest one a later request repeats', async () => {
    const server = await FakeLlmServer.start({ promptCache: true });
    try {
      const first = await usageOf(server, request(1));
      assert.equal(first.cache_read_input_tokens, 0);
      assert.ok(first.cache_creation_input_tokens! > 1000, 'written');
      const second = await usageOf(server, request(2));
      assert.ok(second.cache_read_input_tokens! >= first.cache_creation_input_tokens!, 'the whole earlier prompt is read back');
      assert.ok(second.cache_creation_input_tokens! < 50, 'only the new turn is written');
      assert.ok(second.input_tokens < 10, 'nothing follows the last breakpoint');
    } finally {
      await server.close();
    }
  });

  it('keeps tools and system but not the messages when tool_choice changes, and caches nothing under the minimum', async () => {
    const server = await FakeLlmServer.start({ promptCache: true });
    try {
      await usageOf(server, request(3));
      const toolless = await usageOf(server, request(3, { tool_choice: { type: 'none' } }));
      const prefixOnly = await usageOf(server, { ...request(0), messages: [{ role: 'user', content: 'x' }] });
      assert.ok(toolless.cache_read_input_tokens! > 0 && toolless.cache_read_input_tokens! <= prefixOnly.cache_read_input_tokens! + 5, 'tools and system read, messages not');
      assert.ok(toolless.cache_creation_input_tokens! > 0, 'the messages are written again');

      const small = { model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi.', cache_control: { type: 'ephemeral' } }] }] };
      await usageOf(server, small);
      const again = await usageOf(server, small);
      assert.equal(again.cache_read_input_tokens, 0, 'a prefix under the model minimum (2,048 tokens for Sonnet 4.6) is never cached');
      assert.equal(again.cache_creation_input_tokens, 0);
    } finally {
      await server.close();
    }
  });
});
