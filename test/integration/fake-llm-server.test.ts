import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FakeApi, FakeLlmServer, ScriptedReply } from '../../testkit/fake-llm-server';
import { assertPromptly } from '../support/promptly';

describe('FakeLlmServer', () => {
  let server: FakeLlmServer;

  beforeEach(async () => {
    server = await FakeLlmServer.start();
  });

  afterEach(() => server.close());

  const openai = () => new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseUrl, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseUrl, maxRetries: 0 });

  const openaiStream = (signal?: AbortSignal) =>
    openai().chat.completions.create(
      {
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal },
    );

  const anthropicStream = (signal?: AbortSignal) =>
    anthropic().messages.create(
      { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal },
    );

  /** Opens a stream through the API's real SDK; its events are the SDK's parsed SSE events. */
  const openStream: Record<'openai' | 'anthropic', (signal?: AbortSignal) => Promise<AsyncIterable<any>>> = {
    openai: openaiStream,
    anthropic: anthropicStream,
  };

  /** Whether an SDK stream event carries the finish / stop reason. */
  const isStop: Record<'openai' | 'anthropic', (event: any) => boolean> = {
    openai: (chunk) => Boolean(chunk.choices[0]?.finish_reason),
    anthropic: (event) => event.type === 'message_delta',
  };

  const text12: ScriptedReply = { blocks: [{ type: 'text', text: 'abcdefghijkl' }] };

  describe('OpenAI chat completions through the openai SDK', () => {
    it('streams text, reasoning, tool calls, usage and the finish reason', async () => {
      const args = { path: 'src/a.ts', lines: [1, 2, 3], note: 'päth ✓' };
      server.enqueue('openai', {
        blocks: [
          { type: 'thinking', text: 'Let me think.' },
          { type: 'text', text: ['Hel', 'lo', ' world'] },
          { type: 'tool_call', name: 'read_file', arguments: args, fragments: 4 },
          { type: 'tool_call', id: 'call_custom', name: 'bad', arguments: '{"unterminated' },
        ],
        usage: { input: 100, output: 42, cacheRead: 30, cacheWrite: 5, reasoning: 7 },
      });

      const chunks = await collect(await openaiStream());

      const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
      assert.equal(deltas[0]?.role, 'assistant');
      assert.equal(chunks[0]?.model, 'gpt-test');
      assert.equal(deltas.map((delta: any) => delta.reasoning_content ?? '').join(''), 'Let me think.');
      assert.deepEqual(
        deltas.map((delta) => delta.content).filter(Boolean),
        ['Hel', 'lo', ' world'],
      );

      const calls = new Map<number, { id?: string; name?: string; args: string; fragments: number }>();
      for (const call of deltas.flatMap((delta) => delta.tool_calls ?? [])) {
        const entry = calls.get(call.index) ?? { args: '', fragments: 0 };
        entry.id ??= call.id;
        entry.name ??= call.function?.name;
        if (call.function?.arguments) entry.fragments++;
        entry.args += call.function?.arguments ?? '';
        calls.set(call.index, entry);
      }
      assert.match(String(calls.get(0)?.id), /^call_[a-zA-Z0-9]+1$/, 'generated: the prefix, a tag drawn for the server, the count');
      assert.deepEqual({ ...calls.get(0), id: undefined }, { id: undefined, name: 'read_file', args: JSON.stringify(args), fragments: 4 });
      assert.deepEqual(calls.get(1), { id: 'call_custom', name: 'bad', args: '{"unterminated', fragments: 3 });

      const finishes = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean);
      assert.deepEqual(finishes, ['tool_calls']);
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, []);
      assert.deepEqual(last.usage, {
        prompt_tokens: 135,
        completion_tokens: 42,
        total_tokens: 177,
        prompt_tokens_details: { cached_tokens: 30 },
        completion_tokens_details: { reasoning_tokens: 7 },
      });
    });

    it('defaults usage and stop reason, and omits the usage chunk unless asked', async () => {
      server.enqueue('openai', { blocks: [{ type: 'text', text: 'abcdefghij' }], model: 'other-model' });
      server.enqueue('openai', { blocks: [{ type: 'text', text: 'abcdefghij' }] });

      const chunks = await collect(await openaiStream());
      assert.equal(chunks[0]?.model, 'other-model');
      assert.deepEqual(chunks.map((chunk) => chunk.choices[0]?.delta.content).filter(Boolean), ['abcd', 'efgh', 'ij']);
      assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop');
      assert.equal(chunks.at(-1)?.usage?.prompt_tokens, 10);
      assert.equal(chunks.at(-1)?.usage?.completion_tokens, 3);

      const plain = await collect(await openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }));
      assert.ok(plain.every((chunk) => chunk.choices.length === 1 && !chunk.usage));
    });

    it('answers a non-streaming request with a chat.completion', async () => {
      server.enqueue('openai', {
        blocks: [
          { type: 'thinking', text: 'hmm' },
          { type: 'text', text: 'Done.' },
          { type: 'tool_call', name: 'ls', arguments: { dir: '.' } },
        ],
        stopReason: 'max_tokens',
      });
      const completion = await openai().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(completion.object, 'chat.completion');
      const choice = completion.choices[0]!;
      assert.equal(choice.finish_reason, 'length');
      assert.equal(choice.message.content, 'Done.');
      assert.equal((choice.message as any).reasoning_content, 'hmm');
      assert.match(choice.message.tool_calls?.[0]?.id ?? '', /^call_[a-zA-Z0-9]+1$/);
      assert.deepEqual(choice.message.tool_calls?.map((call) => ({ ...call, id: 'id' })), [
        { id: 'id', type: 'function', function: { name: 'ls', arguments: '{"dir":"."}' } },
      ]);
      assert.equal(completion.usage?.completion_tokens, 6);
    });
  });

  describe('Anthropic messages through the @anthropic-ai/sdk SDK', () => {
    it('streams text, thinking with its signature, tool calls, usage and the stop reason', async () => {
      const args = { command: 'ls -la', timeout: 5 };
      server.enqueue('anthropic', {
        blocks: [
          { type: 'thinking', text: ['Think', 'ing.'], signature: 'sig-abc' },
          { type: 'thinking', text: 'more' },
          { type: 'text', text: 'Hello world' },
          { type: 'tool_call', name: 'bash', arguments: args },
        ],
        chunkSize: 5,
        usage: { input: 50, output: 20, cacheRead: 400, cacheWrite: 60 },
      });

      const events = await collect(await anthropicStream());

      assert.deepEqual(events.map((event) => event.type).filter((type) => type !== 'content_block_delta'), [
        'message_start',
        'content_block_start',
        'content_block_stop',
        'content_block_start',
        'content_block_stop',
        'content_block_start',
        'content_block_stop',
        'content_block_start',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      const start = events[0]!;
      assert.ok(start.type === 'message_start');
      assert.equal(start.message.model, 'claude-test');
      assert.deepEqual(start.message.usage, {
        input_tokens: 50,
        cache_read_input_tokens: 400,
        cache_creation_input_tokens: 60,
        output_tokens: 0,
      });

      const deltas = events.flatMap((event) => (event.type === 'content_block_delta' ? [event] : []));
      const ofBlock = (index: number) => deltas.filter((event) => event.index === index).map((event) => event.delta);
      assert.deepEqual(ofBlock(0), [
        { type: 'thinking_delta', thinking: 'Think' },
        { type: 'thinking_delta', thinking: 'ing.' },
        { type: 'signature_delta', signature: 'sig-abc' },
      ]);
      assert.deepEqual(ofBlock(1).at(-1), { type: 'signature_delta', signature: 'sig-1' });
      assert.deepEqual(ofBlock(2), [
        { type: 'text_delta', text: 'Hello' },
        { type: 'text_delta', text: ' worl' },
        { type: 'text_delta', text: 'd' },
      ]);

      const toolStart = events.find((event) => event.type === 'content_block_start' && event.index === 3);
      const started = toolStart?.type === 'content_block_start' ? toolStart.content_block : undefined;
      assert.match(started?.type === 'tool_use' ? started.id : '', /^toolu_[a-zA-Z0-9]+1$/);
      assert.deepEqual(started?.type === 'tool_use' && { ...started, id: 'id' }, {
        type: 'tool_use',
        id: 'id',
        name: 'bash',
        input: {},
      });
      const fragments = ofBlock(3).map((delta) => (delta.type === 'input_json_delta' ? delta.partial_json : ''));
      assert.equal(fragments.length, 3);
      assert.deepEqual(JSON.parse(fragments.join('')), args);

      const messageDelta = events.find((event) => event.type === 'message_delta');
      assert.ok(messageDelta?.type === 'message_delta');
      assert.deepEqual(messageDelta.delta, { stop_reason: 'tool_use', stop_sequence: null });
      assert.equal(messageDelta.usage.output_tokens, 20);
    });

    it('is readable by the SDK stream helper, which accumulates the final message', async () => {
      server.enqueue('anthropic', {
        blocks: [
          { type: 'thinking', text: 'why not' },
          { type: 'text', text: 'Hi there' },
        ],
      });
      const message = await anthropic()
        .messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage();
      assert.deepEqual(message.content, [
        { type: 'thinking', thinking: 'why not', signature: 'sig-1' },
        { type: 'text', text: 'Hi there' },
      ]);
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(message.usage.output_tokens, 4);
    });

    it('answers a non-streaming request with a message', async () => {
      server.enqueue('anthropic', {
        blocks: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'toolu_x', name: 'read', arguments: { path: 'a' } },
        ],
        model: 'claude-other',
      });
      const message = await anthropic().messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(message.model, 'claude-other');
      assert.equal(message.stop_reason, 'tool_use');
      assert.deepEqual(message.content, [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_x', name: 'read', input: { path: 'a' } },
      ]);
      assert.deepEqual(message.usage, {
        input_tokens: 10,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens: 5,
      });
    });
  });

  describe('requests and queues', () => {
    it('records every request with its parsed body, including failed ones', async () => {
      server.enqueue('anthropic', { kind: 'http_error', status: 500 });
      server.enqueue('openai', { blocks: [], fault: { kind: 'drop_before_first_byte' } });
      await assert.rejects(anthropicStream());
      await assert.rejects(openaiStream());

      const [first, second] = server.requests;
      assert.equal(server.requests.length, 2);
      assert.equal(first?.api, 'anthropic');
      assert.equal(first?.path, '/v1/messages');
      assert.equal(first?.headers.authorization, 'Bearer test'); // not x-api-key: @anthropic-ai/sdk 1.x sends a bearer token
      assert.ok(first?.headers['anthropic-version']);
      assert.deepEqual(first?.body.messages, [{ role: 'user', content: 'hi' }]);
      assert.equal(second?.api, 'openai');
      assert.equal(second?.method, 'POST');
      assert.equal(second?.path, '/v1/chat/completions');
      assert.equal(second?.headers.authorization, 'Bearer test');
      assert.deepEqual(second?.body.stream_options, { include_usage: true });
      assert.deepEqual(server.requestsFor('openai'), [second]);
    });

    it('counts pending replies and forgets everything on reset', async () => {
      server.enqueue('openai', text12, text12).enqueue('anthropic', text12);
      assert.equal(server.pending('openai'), 2);
      await openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(server.pending('openai'), 1);
      assert.equal(server.pending('anthropic'), 1);

      server.reset();
      assert.equal(server.pending('openai'), 0);
      assert.equal(server.pending('anthropic'), 0);
      assert.deepEqual(server.requests, []);
    });

    for (const api of ['openai', 'anthropic'] as const) {
      it(`answers an ${api} request with an empty queue with a 400 naming the API`, async () => {
        server.enqueue(api, text12);
        await collect(await openStream[api]());
        const error = await openStream[api]().then(
          () => assert.fail('expected a rejection'),
          (error: unknown) => error,
        );
        assert.ok(error instanceof (api === 'openai' ? OpenAI.BadRequestError : Anthropic.BadRequestError));
        assert.match(error.message, new RegExp(`no scripted reply left for ${api} \\(request #2\\)`));
      });
    }

    it('answers other paths and methods with a 404 that says what it serves', async () => {
      for (const [method, path] of [
        ['POST', '/v1/completions'],
        ['GET', '/v1/messages'],
      ] as const) {
        const response = await fetch(`${server.url}${path}`, { method });
        assert.equal(response.status, 404);
        const { error } = (await response.json()) as { error: { message: string } };
        assert.equal(
          error.message,
          `fake LLM server: no route for ${method} ${path} (serves POST /v1/chat/completions, POST /v1/messages, POST /v1/responses and GET /v1/models)`,
        );
      }
      assert.deepEqual(server.requests, []);
    });

    it('rejects malformed scripts when they are enqueued', () => {
      assert.throws(() => server.enqueue('openai', { blocks: [], chunkSize: 0 }), /chunkSize/);
      assert.throws(
        () => server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 't', arguments: {}, fragments: 0 }] }),
        /fragments/,
      );
      assert.throws(() => server.enqueue('openai', { blocks: [], fault: { kind: 'stall_after', events: -1 } }), /fault\.events/);
      assert.equal(server.pending('openai'), 0);
    });
  });

  describe('HTTP errors', () => {
    it('gives the openai SDK an APIError with the status, message and retry headers', async () => {
      server.enqueue('openai', { kind: 'http_error', status: 429, message: 'slow down', retryAfterMs: 1, retryAfterSeconds: 2 });
      const error = await openaiStream().catch((error: unknown) => error);
      assert.ok(error instanceof OpenAI.RateLimitError);
      assert.equal(error.status, 429);
      assert.equal(error.headers?.get('retry-after-ms'), '1');
      assert.equal(error.headers?.get('retry-after'), '2');
      assert.deepEqual(error.error, { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' });
    });

    it('gives the anthropic SDK an APIError with the status, type and retry headers', async () => {
      server.enqueue('anthropic', { kind: 'http_error', status: 529, message: 'busy', retryAfterMs: 1 });
      const error = await anthropicStream().catch((error: unknown) => error);
      assert.ok(error instanceof Anthropic.APIError);
      assert.equal(error.status, 529);
      assert.equal(error.headers?.get('retry-after-ms'), '1');
      assert.equal(error.headers?.get('retry-after'), null);
      assert.deepEqual(error.error, { type: 'error', error: { type: 'overloaded_error', message: 'busy' } });
    });

    it('lets the SDK retry after the scripted delay', async () => {
      server.enqueue('openai', { kind: 'http_error', status: 503, retryAfterMs: 1 }, text12);
      const client = new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseUrl, maxRetries: 1 });
      const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(completion.choices[0]?.message.content, 'abcdefghijkl');
      assert.equal(server.requests.length, 2);
    });
  });

  describe('faults', () => {
    /** Of the first `n` wire events, those an SDK yields: Anthropic's ping (event 2) is skipped. */
    const yielded = (api: FakeApi, n: number): number => (api === 'anthropic' && n >= 2 ? n - 1 : n);

    for (const api of ['openai', 'anthropic'] as const) {
      describe(`through the ${api} SDK`, () => {
        it('drop_before_first_byte makes the SDK throw a connection error', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'drop_before_first_byte' } });
          const error = await openStream[api]().catch((error: unknown) => error);
          assert.ok(error instanceof (api === 'openai' ? OpenAI.APIConnectionError : Anthropic.APIConnectionError));
          assert.equal(server.requests.length, 1);
        });

        it('drop_after ends the stream with an error after N events', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'drop_after', events: 3 } });
          const events: unknown[] = [];
          const error = await collect(await openStream[api](), events).catch((error: unknown) => error);
          // Not an APIError: undici's own error for a body cut short.
          assert.ok(error instanceof TypeError);
          assert.equal(error.message, 'terminated');
          assert.equal(events.length, yielded(api, 3));
        });

        it('truncate_after ends the stream cleanly without a stop reason', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'truncate_after', events: 4 } });
          const events = await collect(await openStream[api]());
          assert.equal(events.length, yielded(api, 4));
          assert.ok(!events.some(isStop[api]));
        });

        it('stall_before_first_byte sends not even headers: the request waits until it aborts', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'stall_before_first_byte' } });
          const abort = new AbortController();
          let settled = false;
          const opened = openStream[api](abort.signal).then(
            () => 'opened',
            () => 'aborted',
          ).finally(() => (settled = true));

          await delay(200);
          assert.equal(settled, false, 'the request should still be waiting for its response');
          abort.abort();
          assert.equal(await opened, 'aborted');
        });

        it('stall_after leaves the client waiting until it aborts', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'stall_after', events: 3 } });
          const abort = new AbortController();
          const events: unknown[] = [];
          let settled = false;
          const consumed = collect(await openStream[api](abort.signal), events)
            .catch(() => undefined)
            .finally(() => (settled = true));

          await delay(200);
          assert.equal(settled, false, 'the client should still be waiting');
          assert.equal(events.length, yielded(api, 3));
          abort.abort();
          await consumed;
          assert.ok(!events.some(isStop[api]));
        });

        it('error_after sends the API’s in-stream error after N events, which the SDK raises without a status', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'error_after', events: 3, message: 'Overloaded' } });
          const events: unknown[] = [];
          const error = await collect(await openStream[api](), events).catch((error: unknown) => error);
          const APIError = api === 'openai' ? OpenAI.APIError : Anthropic.APIError;
          assert.ok(error instanceof APIError, String(error));
          assert.equal(error.status, undefined);
          assert.match(error.message, /Overloaded/);
          if (error instanceof Anthropic.APIError) assert.equal(error.type, 'overloaded_error');
          else assert.equal((error.error as { type?: string }).type, 'server_error');
          assert.equal(events.length, yielded(api, 3));
        });

        it('error_after on a request that does not stream answers with the error status', async () => {
          server.enqueue(api, { ...text12, fault: { kind: 'error_after', events: 0, status: 500, message: 'boom' } });
          const request = api === 'openai'
            ? openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
            : anthropic().messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
          const error = await request.then(() => undefined, (error: unknown) => error);
          assert.ok(error instanceof (api === 'openai' ? OpenAI.APIError : Anthropic.APIError));
          assert.equal(error.status, 500);
        });
      });
    }

    it('sends a ping after message_start on the anthropic stream, as the API does', async () => {
      server.enqueue('anthropic', text12);
      const response = await fetch(`${server.anthropicBaseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'm', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const names = (await response.text()).split('\n\n').filter(Boolean).map((event) => event.split('\n')[0]);
      assert.deepEqual(names.slice(0, 3), ['event: message_start', 'event: ping', 'event: content_block_start']);
    });

    it('counts the requests open at the same time: overlapping ones, not ones made one after the other', async () => {
      server.enqueue('openai', text12, text12);
      await collect(await openaiStream());
      await collect(await openaiStream());
      assert.equal(server.peakConcurrency('openai'), 1, 'one after the other');

      server.reset();
      server.enqueue('openai', { ...text12, fault: { kind: 'stall_after', events: 1 } }, { ...text12, fault: { kind: 'stall_after', events: 1 } });
      const controller = new AbortController();
      const first = await openaiStream(controller.signal);
      const second = await openaiStream(controller.signal);
      assert.equal(server.peakConcurrency('openai'), 2, 'the first was still open when the second came');
      controller.abort();
      await Promise.allSettled([collect(first), collect(second)]);
    });

    it('close() returns promptly while a client holds a stalled stream open', async () => {
      server.enqueue('openai', { ...text12, fault: { kind: 'stall_after', events: 1 } });
      const stream = await openaiStream();
      const consumed = collect(stream).then(
        () => 'ended',
        () => 'failed',
      );
      await delay(50);

      const started = performance.now();
      await server.close();
      assertPromptly(started, 'close() returned', () => performance.now());
      assert.equal(await consumed, 'failed');
      await server.close();
    });

    it('counts a non-streaming response as one event', async () => {
      server.enqueue('anthropic', { ...text12, fault: { kind: 'truncate_after', events: 0 } });
      await assert.rejects(anthropic().messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }));
    });
  });

  describe('pacing and throughput', () => {
    it('waits latencyMs before each event', async () => {
      server.enqueue('anthropic', { blocks: [{ type: 'text', text: ['a', 'b'] }], latencyMs: 15 });
      const started = performance.now();
      const arrivals: number[] = [];
      for await (const _ of await anthropicStream()) arrivals.push(performance.now() - started);
      // message_start, block start, 2 deltas, block stop, message_delta, message_stop (and a ping the SDK skips)
      assert.equal(arrivals.length, 7);
      assert.ok(arrivals.at(-1)! >= 8 * 15 - 5, `all events arrived after ${arrivals.at(-1)} ms`);
      assert.ok(arrivals.at(-1)! - arrivals[0]! >= 6 * 15 - 5, 'events arrived spread out');
    });

    for (const api of ['openai', 'anthropic'] as const) {
      it(`holds a ${api} reply before a paused piece until the test releases it`, async () => {
        let release!: () => void;
        const until = new Promise<void>((done) => (release = done));
        server.enqueue(api, { blocks: [{ type: 'text', text: ['first ', 'second'] }], pauses: [{ before: 'second', until }] });
        const events: unknown[] = [];
        const consumed = collect(await openStream[api](), events);
        await eventually(() => JSON.stringify(events).includes('first '));
        await delay(100);
        assert.doesNotMatch(JSON.stringify(events), /second/, 'nothing after the pause arrives before it is released');
        assert.ok(!events.some(isStop[api]));
        release();
        await consumed;
        assert.match(JSON.stringify(events), /second/);
        assert.ok(events.some(isStop[api]), 'the rest of the reply follows the release');
      });
    }

    const paths: Record<'openai' | 'anthropic', string> = { openai: '/v1/chat/completions', anthropic: '/v1/messages' };
    // role chunk, finish chunk, [DONE] | message_start, ping, block start and stop, message_delta, message_stop
    const framingEvents: Record<'openai' | 'anthropic', number> = { openai: 3, anthropic: 6 };

    for (const api of ['openai', 'anthropic'] as const) {
      // Throughput is measured in bench/ (timings never decide a test); here: every chunk arrives, framed.
      it(`streams a 20,000-chunk ${api} reply whole`, async () => {
        const tokens = Array.from({ length: 20_000 }, (_, i) => `t${i % 10}`);
        server.enqueue(api, { blocks: [{ type: 'text', text: tokens }] });
        const response = await fetch(`${server.url}${paths[api]}`, {
          method: 'POST',
          headers: api === 'openai' ? { authorization: 'Bearer sk-test' } : { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: 'm', max_tokens: 30_000, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        });
        const body = await response.text();
        assert.equal(body.split('\n\n').filter(Boolean).length, tokens.length + framingEvents[api]);
      });
    }
  });
});

/** Every item of `stream`, pushed to `into` as it arrives (so a caller keeps what came before a failure). */
async function collect<T>(stream: AsyncIterable<T>, into: T[] = []): Promise<T[]> {
  for await (const item of stream) into.push(item);
  return into;
}

/** Polls `condition` until it holds. */
async function eventually(condition: () => boolean): Promise<void> {
  while (!condition()) await delay(10);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
