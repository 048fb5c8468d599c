import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicProvider } from '../../src/llm/anthropic';
import { OpenAIProvider } from '../../src/llm/openai';
import type { HttpProviderOptions } from '../../src/llm/resilient-stream';
import type { AssistantResponse, LlmRequest, Provider, StreamEvent } from '../../src/llm/types';
import { type FakeApi, FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { assertPromptly } from '../support/promptly';

const request: LlmRequest = {
  system: 'You are a test agent.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello?' }] }],
  tools: [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
};

interface Run {
  events: StreamEvent[];
  response: AssistantResponse;
}

/** Drains a stream, checking the contract that exactly one `done` comes last. */
async function run(
  provider: Provider,
  signal = new AbortController().signal,
  onEvent?: (event: StreamEvent) => void,
): Promise<Run> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(request, signal)) {
    events.push(event);
    onEvent?.(event);
  }
  const done = events.filter((event) => event.type === 'done');
  assert.equal(done.length, 1, 'exactly one done');
  assert.equal(events.at(-1)?.type, 'done', 'done comes last');
  return { events, response: (done[0] as Extract<StreamEvent, { type: 'done' }>).response };
}

function deltas(events: StreamEvent[], type: 'text_delta' | 'thinking_delta'): string[] {
  return events.flatMap((event) => (event.type === type ? [event.delta] : []));
}

function retries(events: StreamEvent[]): Extract<StreamEvent, { type: 'retry' }>[] {
  return events.filter((event): event is Extract<StreamEvent, { type: 'retry' }> => event.type === 'retry');
}

interface ProviderCase {
  api: FakeApi;
  envVar: string;
  /** SSE events the fake sends before the first text delta. */
  eventsBeforeText: number;
  create(server: FakeLlmServer, options?: Partial<HttpProviderOptions>): Provider;
}

/** Short backoff keeps the retry tests fast. */
const testOptions = { apiKey: 'test-key', model: 'test-model', retryBaseDelayMs: 5 };

const cases: ProviderCase[] = [
  {
    api: 'openai',
    envVar: 'OPENAI_API_KEY',
    eventsBeforeText: 1,
    create: (server, options) => new OpenAIProvider({ ...testOptions, baseURL: server.openaiBaseUrl, ...options }),
  },
  {
    api: 'anthropic',
    envVar: 'ANTHROPIC_API_KEY',
    // message_start, ping, content_block_start.
    eventsBeforeText: 3,
    create: (server, options) => new AnthropicProvider({ ...testOptions, baseURL: server.anthropicBaseUrl, ...options }),
  },
];

describe('LLM providers against the fake server', () => {
  let server: FakeLlmServer;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  afterEach(() => server.reset());
  after(() => server.close());

  for (const { api, envVar, eventsBeforeText, create } of cases) {
    describe(api, () => {
      const enqueue = (...replies: ScriptedReply[]): void => void server.enqueue(api, ...replies);
      const textReply: ScriptedReply = { blocks: [{ type: 'text', text: 'Hello, streaming world!' }], chunkSize: 5 };

      it('streams text deltas as they arrive and ends with the full response', async () => {
        enqueue({ ...textReply, model: 'served-model', latencyMs: 10 });
        const { events, response } = await run(create(server));

        const streamed = deltas(events, 'text_delta');
        assert.equal(streamed.join(''), 'Hello, streaming world!');
        assert.ok(streamed.length > 1, `one delta for a paced stream: ${JSON.stringify(streamed)}`);
        // Pieces that reached the client together may be one delta, but a delta never splits a piece the server sent.
        const cuts = streamed.slice(0, -1).map((_, i) => streamed.slice(0, i + 1).join('').length);
        for (const cut of cuts) assert.equal(cut % 5, 0, `a delta ends inside a piece: ${JSON.stringify(streamed)}`);
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, streaming world!' }]);
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(response.responseModel, 'served-model');
        assert.equal(response.errorMessage, undefined);
        assert.equal(typeof response.timeToFirstTokenMs, 'number');
        const [sent] = server.requestsFor(api);
        assert.equal(sent!.body.model, 'test-model');
        assert.equal(sent!.body.stream, true);
      });

      it('passes on the text of one network read as one delta', async () => {
        enqueue(textReply);
        const { events, response } = await run(create(server));

        assert.deepEqual(deltas(events, 'text_delta'), ['Hello, streaming world!']);
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, streaming world!' }]);
      });

      it('streams thinking before text and keeps it in the response', async () => {
        enqueue({ blocks: [{ type: 'thinking', text: 'Think first.', signature: 'sig-abc' }, { type: 'text', text: 'Done.' }] });
        const { events, response } = await run(create(server));

        const kinds = events.map((event) => event.type).filter((type) => type.endsWith('_delta'));
        assert.equal(kinds.lastIndexOf('thinking_delta') < kinds.indexOf('text_delta'), true);
        assert.equal(deltas(events, 'thinking_delta').join(''), 'Think first.');
        // Only Anthropic signs thinking.
        const signature = api === 'anthropic' ? { signature: 'sig-abc' } : {};
        assert.deepEqual(response.content, [
          { type: 'thinking', text: 'Think first.', ...signature },
          { type: 'text', text: 'Done.' },
        ]);
      });

      it('reassembles fragmented tool-call arguments', async () => {
        const first = { path: 'src/a very long path/that is split.ts', encoding: 'utf8' };
        const second = { command: 'npm test -- --grep "providers"' };
        enqueue({
          blocks: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_call', id: 'call_a', name: 'read_file', arguments: first, fragments: 5 },
            { type: 'tool_call', id: 'call_b', name: 'bash', arguments: second, fragments: 4 },
          ],
        });
        const { events, response } = await run(create(server));

        const starts = events.filter((event) => event.type === 'tool_call_start');
        assert.deepEqual(starts, [
          { type: 'tool_call_start', id: 'call_a', name: 'read_file' },
          { type: 'tool_call_start', id: 'call_b', name: 'bash' },
        ]);
        assert.equal(response.stopReason, 'tool_use');
        const calls = response.content.filter((block) => block.type === 'tool_call');
        assert.deepEqual(calls.map((call) => [call.id, call.name, JSON.parse(call.arguments)]), [
          ['call_a', 'read_file', first],
          ['call_b', 'bash', second],
        ]);
      });

      it('normalises usage, cache and reasoning counts included', async () => {
        // OpenAI reports no cache writes; the fake's Anthropic wire sends no thinking-token count.
        const cacheWrite = api === 'anthropic' ? 50 : 0;
        enqueue({ ...textReply, usage: { input: 100, output: 42, cacheRead: 900, cacheWrite, reasoning: 7 } });
        const { response } = await run(create(server));

        assert.deepEqual(response.usage, { input: 100, output: 42, cacheRead: 900, cacheWrite, reasoning: api === 'openai' ? 7 : 0 });
      });

      it('retries a 429 after the server-requested delay', async () => {
        enqueue({ kind: 'http_error', status: 429, message: 'slow down', retryAfterMs: 1 }, textReply);
        const { events, response } = await run(create(server));

        const [retry] = retries(events);
        assert.equal(retry?.attempt, 1);
        assert.equal(retry?.delayMs, 1);
        assert.match(retry!.reason, /429.*slow down/);
        assert.equal(events[0]?.type, 'retry', 'the retry is announced before any content');
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(server.requestsFor(api).length, 2);
      });

      it('retries a 500 with backoff', async () => {
        enqueue({ kind: 'http_error', status: 500 }, textReply);
        const { events, response } = await run(create(server));

        assert.equal(retries(events).length, 1);
        assert.match(retries(events)[0]!.reason, /500/);
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(server.requestsFor(api).length, 2);
      });

      it('retries a connection dropped before the first byte', async () => {
        enqueue({ ...textReply, fault: { kind: 'drop_before_first_byte' } }, textReply);
        const { events, response } = await run(create(server));

        assert.match(retries(events)[0]!.reason, /connection/);
        assert.equal(response.stopReason, 'end_turn');
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, streaming world!' }]);
        assert.equal(server.requestsFor(api).length, 2);
      });

      for (const [when, fault] of [
        ['before the first byte', { kind: 'stall_before_first_byte' }],
        ['after the headers, before any output', { kind: 'stall_after', events: eventsBeforeText }],
      ] as const) {
        it(`retries a stream that stalls ${when}, like a dropped connection`, async () => {
          enqueue({ ...textReply, fault }, textReply);
          const { events, response } = await run(create(server, { idleTimeoutMs: 300 }));

          assert.equal(retries(events).length, 1);
          assert.match(retries(events)[0]!.reason, /stalled: nothing arrived .* for 0\.3 s$/);
          assert.equal(response.stopReason, 'end_turn');
          assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, streaming world!' }]);
          assert.equal(server.requestsFor(api).length, 2);
        });
      }

      it('gives up after maxRetries', async () => {
        enqueue({ kind: 'http_error', status: 503 }, { kind: 'http_error', status: 503 });
        const { events, response } = await run(create(server, { maxRetries: 1 }));

        assert.equal(retries(events).length, 1);
        assert.equal(response.stopReason, 'error');
        assert.match(response.errorMessage!, /503.*gave up after 1 retry/);
        assert.equal(server.requestsFor(api).length, 2);
      });

      it('does not retry a drop after output and keeps the partial text', async () => {
        enqueue({ ...textReply, fault: { kind: 'drop_after', events: eventsBeforeText + 2 } }, textReply);
        const { events, response } = await run(create(server));

        assert.equal(retries(events).length, 0);
        assert.equal(response.stopReason, 'error');
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, str' }]);
        assert.match(response.errorMessage!, /connection.*partial output kept/);
        assert.equal(server.requestsFor(api).length, 1);
      });

      it('retries an error the server sends inside the stream before any output', async () => {
        enqueue({ ...textReply, fault: { kind: 'error_after', events: eventsBeforeText, message: 'Overloaded' } }, textReply);
        const { events, response } = await run(create(server));

        assert.match(retries(events)[0]!.reason, /sent an error in the stream: Overloaded$/);
        assert.equal(response.stopReason, 'end_turn');
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, streaming world!' }]);
        assert.equal(server.requestsFor(api).length, 2);
      });

      it('keeps the partial text when the server sends an error inside the stream after output', async () => {
        enqueue({ ...textReply, fault: { kind: 'error_after', events: eventsBeforeText + 2, message: 'Overloaded' } }, textReply);
        const { events, response } = await run(create(server));

        assert.equal(retries(events).length, 0);
        assert.equal(response.stopReason, 'error');
        assert.match(response.errorMessage!, /sent an error in the stream: Overloaded; partial output kept$/);
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, str' }]);
        assert.equal(server.requestsFor(api).length, 1);
      });

      it('reports a stream that ends before the model finished', async () => {
        enqueue({ ...textReply, fault: { kind: 'truncate_after', events: eventsBeforeText + 2 } });
        const { response } = await run(create(server));

        assert.equal(response.stopReason, 'error');
        assert.equal(response.errorMessage, 'the stream ended before the model finished; partial output kept');
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello, str' }]);
        assert.equal(server.requestsFor(api).length, 1);
      });

      it('abandons a stalled stream after the idle timeout', async () => {
        enqueue({ ...textReply, fault: { kind: 'stall_after', events: eventsBeforeText + 1 } });
        const started = Date.now();
        const { response } = await run(create(server, { idleTimeoutMs: 300 }));
        const elapsed = Date.now() - started;

        assert.equal(response.stopReason, 'error');
        assert.match(response.errorMessage!, /stalled.* 0\.3 s; partial output kept/);
        assert.deepEqual(response.content, [{ type: 'text', text: 'Hello' }]);
        assert.ok(elapsed >= 280, `ended after ${elapsed} ms, before the idle timeout`);
        assertPromptly(started, 'gave up on the stalled stream');
      });

      it('ends promptly with aborted when the signal aborts mid-stream', async () => {
        enqueue({ blocks: [{ type: 'text', text: 'x'.repeat(400) }], chunkSize: 5, latencyMs: 20 });
        const controller = new AbortController();
        let abortedAt = 0;
        const { response } = await run(create(server), controller.signal, (event) => {
          if (event.type === 'text_delta' && abortedAt === 0) {
            abortedAt = Date.now();
            controller.abort();
          }
        });

        assert.equal(response.stopReason, 'aborted');
        assertPromptly(abortedAt, 'ended the stream');
        assert.equal(server.requestsFor(api).length, 1);
      });

      it('ends promptly with aborted when the signal aborts during a backoff wait', async () => {
        enqueue({ kind: 'http_error', status: 429, retryAfterMs: 30_000 }, textReply);
        const controller = new AbortController();
        const started = Date.now();
        const { events, response } = await run(create(server), controller.signal, (event) => {
          if (event.type === 'retry') controller.abort();
        });

        assert.equal(retries(events)[0]?.delayMs, 30_000);
        assert.equal(response.stopReason, 'aborted');
        assertPromptly(started, 'ended the 30 s backoff');
        assert.equal(server.requestsFor(api).length, 1);
      });

      it('does not retry a 401 and names the API key variable', async () => {
        enqueue({ kind: 'http_error', status: 401, message: 'invalid x-api-key' }, textReply);
        const { events, response } = await run(create(server));

        assert.equal(retries(events).length, 0);
        assert.equal(response.stopReason, 'error');
        assert.match(response.errorMessage!, /HTTP 401: invalid x-api-key\. Check /);
        assert.ok(response.errorMessage!.includes(envVar));
        assert.equal(server.requestsFor(api).length, 1);
      });

      it('explains a 404 with the model name and base URL', async () => {
        enqueue({ kind: 'http_error', status: 404, message: 'model not found' });
        const { response } = await run(create(server));

        assert.equal(response.stopReason, 'error');
        assert.match(response.errorMessage!, /HTTP 404: model not found\. Check the model name \("test-model"\) and the base URL \(http:\/\/127\.0\.0\.1:/);
        assert.equal(server.requestsFor(api).length, 1);
      });
    });
  }
});

/**
 * Streams a body the fake server would never send, word for word: what a
 * broken proxy or an unusual server may put on the wire. Answers every
 * request with it; `url` is the base URL.
 */
async function rawServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((closed) => server.close(() => closed())) };
}

const anthropicEvent = (data: object): string => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
const openaiChunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A whole answer, "Hi there", in each wire format, event by event. */
const WHOLE: Record<'openai' | 'anthropic', string[]> = {
  anthropic: [
    anthropicEvent({ type: 'message_start', message: { id: 'm1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 3, output_tokens: 0 } } }),
    anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
    anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' there' } }),
    anthropicEvent({ type: 'content_block_stop', index: 0 }),
    anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
    anthropicEvent({ type: 'message_stop' }),
  ],
  openai: [openaiChunk({ role: 'assistant', content: '' }), openaiChunk({ content: 'Hi' }), openaiChunk({ content: ' there' }), openaiChunk({}, 'stop'), 'data: [DONE]\n\n'],
};

describe('LLM providers against servers that bend the wire format', () => {
  const providers: Record<'openai' | 'anthropic', (url: string) => Provider> = {
    anthropic: (url) => new AnthropicProvider({ ...testOptions, baseURL: url }),
    openai: (url) => new OpenAIProvider({ ...testOptions, baseURL: `${url}/v1` }),
  };

  for (const api of ['anthropic', 'openai'] as const) {
    describe(api, () => {
      it('reads CRLF line ends, comments and keep-alives', async () => {
        const body = `: connected\n\n${WHOLE[api].join('')}`.replaceAll('\n', '\r\n').replace('\r\n\r\n', '\r\n\r\n: keep-alive\r\n\r\n');
        const server = await rawServer(body);
        try {
          const { response } = await run(providers[api](server.url));
          assert.equal(response.errorMessage, undefined);
          assert.deepEqual(response.content, [{ type: 'text', text: 'Hi there' }]);
        } finally {
          await server.close();
        }
      });

      for (const [what, data] of [['not JSON', '{"type": oops'], ['JSON but not an object', 'null']] as const) {
        it(`keeps the text before an event that is ${what}, says which event it was, and does not retry`, async () => {
          const broken = api === 'anthropic' ? `event: content_block_delta\ndata: ${data}\n\n` : `data: ${data}\n\n`;
          const hi = WHOLE[api].findIndex((event) => event.includes('"Hi"')) + 1;
          const hostile = await rawServer([...WHOLE[api].slice(0, hi), broken, ...WHOLE[api].slice(hi)].join(''));
          try {
            const { events, response } = await run(providers[api](hostile.url));
            assert.equal(retries(events).length, 0);
            assert.equal(response.stopReason, 'error');
            assert.deepEqual(response.content, [{ type: 'text', text: 'Hi' }]);
            const which = api === 'anthropic' ? 'a "content_block_delta" event' : 'an event';
            assert.ok(response.errorMessage!.endsWith(`stream failed: ${which} that is not a JSON object: ${data}; partial output kept`), response.errorMessage);
          } finally {
            await hostile.close();
          }
        });
      }
    });
  }

  it('reads usage a server sends as no count (a string, null, a negative number) as unknown, on both wires', async () => {
    const odd = { prompt_tokens: 'many', completion_tokens: -3, prompt_tokens_details: { cached_tokens: null } };
    const openaiBody = [...WHOLE.openai.slice(0, -1), `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: odd })}\n\n`, WHOLE.openai.at(-1)!].join('');
    const anthropicBody = WHOLE.anthropic.join('').replace('"usage":{"input_tokens":3,"output_tokens":0}', '"usage":{"input_tokens":"3","output_tokens":-1}');
    const servers = { openai: await rawServer(openaiBody), anthropic: await rawServer(anthropicBody) };
    try {
      for (const api of ['openai', 'anthropic'] as const) {
        const { response } = await run(providers[api](servers[api].url));
        assert.equal(response.errorMessage, undefined, api);
        assert.ok(Object.values(response.usage).every((value) => Number.isFinite(value) && value >= 0), `${api}: ${JSON.stringify(response.usage)}`);
      }
    } finally {
      await Promise.all([servers.openai.close(), servers.anthropic.close()]);
    }
  });

  it('reads an anthropic stream without event lines by the type its data names, errors included', async () => {
    const dataOnly = (events: string[]): string => events.map((event) => event.replace(/^event: .*\n/, '')).join('');
    const error = 'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const hi = WHOLE.anthropic.findIndex((event) => event.includes('"Hi"')) + 1;
    const whole = await rawServer(`data: {"type":"ping"}\n\n${dataOnly(WHOLE.anthropic)}`);
    const failing = await rawServer(dataOnly(WHOLE.anthropic.slice(0, hi)) + error);
    try {
      const read = await run(providers.anthropic(whole.url));
      assert.equal(read.response.errorMessage, undefined);
      assert.deepEqual(read.response.content, [{ type: 'text', text: 'Hi there' }]);

      const failed = await run(providers.anthropic(failing.url));
      assert.equal(failed.response.stopReason, 'error');
      assert.match(failed.response.errorMessage!, /sent an error in the stream: Overloaded; partial output kept$/);
      assert.deepEqual(failed.response.content, [{ type: 'text', text: 'Hi' }]);
    } finally {
      await Promise.all([whole.close(), failing.close()]);
    }
  });
});
