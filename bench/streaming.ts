/**
 * Streaming overhead: 20,000 one-token chunks from the fake LLM server,
 * consumed by the bare SDK and through BaseAgent.executeTurn, side by side —
 * chunks/s and the ratio (a diagnostic: the engine runs in this process; the
 * ACP bench times the same through `crow acp`). The engine joins deltas
 * that arrive together, so its rate is the scripted chunks over the time to
 * deliver all of their text, which the run checks arrived whole.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { BaseAgent } from '../src/engine/base-agent';
import { AnthropicProvider } from '../src/llm/anthropic';
import { OpenAIProvider } from '../src/llm/openai';
import type { Provider } from '../src/llm/types';
import { InternalSession } from '../src/session/internal-session';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import type { NodeWorkspace } from '../src/tools/node-workspace';
import { fmt, median, timed } from './common';

const CHUNKS = 20_000;
const RUNS = 5;

async function bareOpenAI(server: FakeLlmServer): Promise<number> {
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.openaiBaseUrl, maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'bench',
    messages: [{ role: 'user', content: 'go' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let count = 0;
  for await (const chunk of stream) if (chunk.choices[0]?.delta.content) count++;
  return count;
}

async function bareAnthropic(server: FakeLlmServer): Promise<number> {
  const client = new Anthropic({ apiKey: 'bench', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
  const stream = await client.messages.create({
    model: 'bench',
    max_tokens: 100_000,
    messages: [{ role: 'user', content: 'go' }],
    stream: true,
  });
  let count = 0;
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') count++;
  return count;
}

/** The text the engine streamed, as one string. */
async function throughEngine(provider: Provider, workspace: NodeWorkspace): Promise<string> {
  const agent = new BaseAgent({ name: 'bench', provider, tools: [], systemPrompt: 'bench', workspace });
  const session = new InternalSession('bench');
  session.addUserMessage('go');
  let text = '';
  for await (const event of agent.executeTurn(session, { signal: new AbortController().signal })) {
    if (event.type === 'text_delta') text += event.delta;
  }
  return text;
}

async function timedText(stream: () => Promise<string>): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const text = await stream();
  return { text, ms: performance.now() - started };
}

export async function streamingBenchmark(workspace: NodeWorkspace): Promise<void> {
  const server = await FakeLlmServer.start();
  const tokens = Array.from({ length: CHUNKS }, (_, i) => `t${i % 10} `);
  const reply = { blocks: [{ type: 'text' as const, text: tokens }] };
  // The (strict) fake stops at the output cap a request sets, as the real APIs do: leave room for the whole reply.
  const maxOutputTokens = CHUNKS * 2;
  const providers: Record<'openai' | 'anthropic', () => Provider> = {
    openai: () => new OpenAIProvider({ apiKey: 'bench', baseURL: server.openaiBaseUrl, model: 'bench', maxRetries: 0, maxOutputTokens }),
    anthropic: () => new AnthropicProvider({ apiKey: 'bench', baseURL: server.anthropicBaseUrl, model: 'bench', maxRetries: 0, maxOutputTokens }),
  };
  const bare: Record<'openai' | 'anthropic', () => Promise<number>> = {
    openai: () => bareOpenAI(server),
    anthropic: () => bareAnthropic(server),
  };
  console.log(`Streaming overhead: ${CHUNKS.toLocaleString()} one-token chunks over loopback, median of ${RUNS} runs`);
  try {
    for (const api of ['openai', 'anthropic'] as const) {
      const bareRates: number[] = [];
      const engineRates: number[] = [];
      // One warm-up of each, then alternate so both see the same machine conditions.
      for (let run = 0; run <= RUNS; run++) {
        server.enqueue(api, reply, reply);
        const a = await timed(bare[api]);
        const b = await timedText(() => throughEngine(providers[api](), workspace));
        if (a.count !== CHUNKS || b.text !== tokens.join('')) {
          throw new Error(`${api}: expected ${CHUNKS} chunks and all their text, got ${a.count} chunks and ${b.text.length} of ${tokens.join('').length} characters`);
        }
        if (run === 0) continue;
        bareRates.push(CHUNKS / (a.ms / 1000));
        engineRates.push(CHUNKS / (b.ms / 1000));
      }
      const bareRate = median(bareRates);
      const engineRate = median(engineRates);
      const ratio = engineRate / bareRate;
      console.log(
        `  ${api.padEnd(9)} bare SDK ${fmt(bareRate)} chunks/s · executeTurn ${fmt(engineRate)} chunks/s · ratio ${ratio.toFixed(2)} (diagnostic, in-process)`,
      );
    }
  } finally {
    await server.close();
  }
}

