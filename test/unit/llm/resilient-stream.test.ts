import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  type PartialResponse,
  type WireAccumulator,
  type WireSource,
  resilientStream,
} from '../../../src/llm/resilient-stream';
import type { AssistantResponse, StreamEvent } from '../../../src/llm/types';
import { emptyUsage } from '../../../src/llm/types';

/** Wire events of the test protocol: text, 'CALL' for the start of a tool call, or 'STOP' for the model's end of turn. */
type Wire = string;

class TextAccumulator implements WireAccumulator<Wire> {
  private text = '';
  private stopped = false;

  accept(event: Wire): StreamEvent[] {
    if (event === 'CALL') return [{ type: 'tool_call_start', id: 'call_1', name: 'read_file' }];
    if (event === 'STOP') this.stopped = true;
    else this.text += event;
    return event === 'STOP' ? [] : [{ type: 'text_delta', delta: event }];
  }

  snapshot(): PartialResponse {
    const content: PartialResponse['content'] = this.text ? [{ type: 'text', text: this.text }] : [];
    const partial: PartialResponse = { content, finishReasons: [], usage: emptyUsage() };
    if (this.stopped) partial.stopReason = 'end_turn';
    return partial;
  }
}

/** What one attempt streams: an event alone, or a batch of events that one network read brought. */
type Attempt = (signal: AbortSignal) => AsyncIterable<Wire | Wire[]>;

/** A source that plays one scripted attempt per open() and records each attempt's signal. */
function scriptedSource(...attempts: Attempt[]): WireSource<Wire> & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    signals,
    profile: {
      label: 'Test',
      apiKeyEnv: 'TEST_API_KEY',
      model: 'test-model',
      baseURL: 'http://test',
      APIError: Anthropic.APIError,
      APIConnectionError: Anthropic.APIConnectionError,
    },
    open: async (signal) => {
      signals.push(signal);
      const attempt = attempts.shift();
      assert.ok(attempt, 'no attempt left');
      return batches(attempt(signal));
    },
    newAccumulator: () => new TextAccumulator(),
  };
}

async function* batches(events: AsyncIterable<Wire | Wire[]>): AsyncIterable<Wire[]> {
  for await (const event of events) yield Array.isArray(event) ? event : [event];
}

async function* play(...events: (Wire | Wire[])[]): AsyncIterable<Wire | Wire[]> {
  yield* events;
}

async function* failAfter(error: Error, ...events: Wire[]): AsyncIterable<Wire> {
  yield* events;
  throw error;
}

/** Waits until the signal aborts, then ends like the SDKs do: quietly. */
async function* hang(signal: AbortSignal): AsyncIterable<Wire> {
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
}

/** An error event inside a 200 stream, as the Anthropic SDK raises it. */
const overloaded = (): Error => {
  const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
  return new Anthropic.APIError(undefined, body, undefined, new Headers(), 'overloaded_error');
};

const rateLimited = (headers: Record<string, string>): Error => {
  const body = { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } };
  return new Anthropic.RateLimitError(429, body, undefined, new Headers(headers));
};

const policy = { maxRetries: 3, retryBaseDelayMs: 1, idleTimeoutMs: 5_000 };

async function collect(
  stream: AsyncIterable<StreamEvent>,
  onEvent?: (event: StreamEvent) => void,
): Promise<{ events: StreamEvent[]; response: AssistantResponse }> {
  const events: StreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  const last = events.at(-1);
  assert.equal(last?.type, 'done');
  return { events, response: (last as Extract<StreamEvent, { type: 'done' }>).response };
}

describe('resilientStream', () => {
  it('retries an error sent inside the stream before any output, with backoff', async () => {
    const source = scriptedSource(() => failAfter(overloaded()), () => play('Hi', 'STOP'));
    const { events, response } = await collect(resilientStream(source, new AbortController().signal, policy));

    assert.deepEqual(events.map((event) => event.type), ['retry', 'text_delta', 'done']);
    assert.match((events[0] as { reason: string }).reason, /Test sent an error in the stream: Overloaded/);
    assert.equal(response.stopReason, 'end_turn');
  });

  it('keeps the output and does not retry once something was emitted', async () => {
    const source = scriptedSource(() => failAfter(overloaded(), 'Hi'));
    const { events, response } = await collect(resilientStream(source, new AbortController().signal, policy));

    assert.deepEqual(events.map((event) => event.type), ['text_delta', 'done']);
    assert.equal(response.stopReason, 'error');
    assert.equal(response.errorMessage, 'Test sent an error in the stream: Overloaded; partial output kept');
    assert.deepEqual(response.content, [{ type: 'text', text: 'Hi' }]);
  });

  for (const [headers, expected] of [
    [{ 'retry-after': '2' }, 2_000],
    [{ 'retry-after': '3600' }, 60_000],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
  ] as const) {
    it(`waits ${expected} ms for ${JSON.stringify(headers)}`, async () => {
      const controller = new AbortController();
      const source = scriptedSource(() => failAfter(rateLimited(headers)));
      const stream = resilientStream(source, controller.signal, policy);
      const { events, response } = await collect(stream, () => controller.abort());

      assert.equal((events[0] as { delayMs: number }).delayMs, expected);
      assert.equal(response.stopReason, 'aborted');
    });
  }

  it('counts the idle timeout from the request start, and retries a stall before any output', async () => {
    const source = scriptedSource((signal) => hang(signal), (signal) => hang(signal));
    const stream = resilientStream(source, new AbortController().signal, { ...policy, maxRetries: 1, idleTimeoutMs: 50 });
    const { events, response } = await collect(stream);

    assert.deepEqual(events.map((event) => event.type), ['retry', 'done']);
    assert.equal(response.stopReason, 'error');
    assert.equal(response.errorMessage, 'the stream stalled: nothing arrived from Test for 0.1 s (gave up after 1 retry)');
  });

  it('does not retry a stall after output, and keeps the output', async () => {
    async function* stallAfterOne(signal: AbortSignal): AsyncIterable<Wire> {
      yield 'a';
      yield* hang(signal);
    }
    const source = scriptedSource(stallAfterOne);
    const { events, response } = await collect(resilientStream(source, new AbortController().signal, { ...policy, idleTimeoutMs: 50 }));

    assert.deepEqual(events.map((event) => event.type), ['text_delta', 'done']);
    assert.equal(response.errorMessage, 'the stream stalled: nothing arrived from Test for 0.1 s; partial output kept');
  });

  it('releases the attempt when the consumer stops early', async () => {
    const source = scriptedSource(() => play('a', 'b', 'STOP'));
    for await (const event of resilientStream(source, new AbortController().signal, policy)) {
      if (event.type === 'text_delta') break;
    }
    assert.equal(source.signals[0]?.aborted, true);
  });

  it('ends as aborted when the signal was aborted before the start', async () => {
    const controller = new AbortController();
    controller.abort();
    const source = scriptedSource((signal) => hang(signal));
    const { events, response } = await collect(resilientStream(source, controller.signal, policy));

    assert.equal(events.length, 1);
    assert.equal(response.stopReason, 'aborted');
  });

  it('joins the text deltas of one network read, up to the next event of another kind', async () => {
    const source = scriptedSource(() => play(['Hel', 'lo', ' there', 'CALL', 'a', 'b'], ['c'], ['STOP']));
    const { events, response } = await collect(resilientStream(source, new AbortController().signal, policy));

    assert.deepEqual(events.slice(0, -1), [
      { type: 'text_delta', delta: 'Hello there' },
      { type: 'tool_call_start', id: 'call_1', name: 'read_file' },
      { type: 'text_delta', delta: 'ab' },
      { type: 'text_delta', delta: 'c' },
    ]);
    assert.deepEqual(response.content, [{ type: 'text', text: 'Hello thereabc' }]);
  });
});
