import assert from 'node:assert/strict';
import { END_OF_STREAM, MAX_EVENT_CHARS, parseEventData, SseParser, sseBatches, type SseMessage, StreamLimitError, wireBatches } from '../../../src/llm/sse';

/** Every message of `pieces` fed one after another. */
function parse(...pieces: string[]): SseMessage[] {
  const parser = new SseParser();
  return pieces.flatMap((piece) => parser.push(piece));
}

/** A response body that delivers exactly these byte chunks, one per read. */
function body(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else controller.close();
    },
  });
}

async function batchesOf(stream: ReadableStream<Uint8Array>): Promise<SseMessage[][]> {
  const batches: SseMessage[][] = [];
  for await (const batch of sseBatches(stream)) batches.push(batch);
  return batches;
}

const STREAM = 'event: message_start\ndata: {"a":1}\n\n: a comment\nevent: ping\ndata: {}\n\ndata: only data\n\n';
const MESSAGES: SseMessage[] = [
  { event: 'message_start', data: '{"a":1}' },
  { event: 'ping', data: '{}' },
  { event: undefined, data: 'only data' },
];

describe('server-sent events', () => {
  it('reads named and unnamed messages and skips comments', () => {
    assert.deepEqual(parse(STREAM), MESSAGES);
  });

  it('gives the same messages whatever the stream is cut into', () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      assert.deepEqual(parse(STREAM.slice(0, cut), STREAM.slice(cut)), MESSAGES, `cut at ${cut}`);
    }
    assert.deepEqual(parse(...STREAM), MESSAGES, 'one character at a time');
  });

  for (const [name, end] of [['CRLF', '\r\n'], ['CR', '\r']] as const) {
    it(`accepts ${name} line ends, also split between reads`, () => {
      const stream = STREAM.replaceAll('\n', end);
      assert.deepEqual(parse(stream), MESSAGES);
      for (let cut = 1; cut < stream.length; cut++) {
        assert.deepEqual(parse(stream.slice(0, cut), stream.slice(cut)), MESSAGES, `cut at ${cut}`);
      }
    });
  }

  it('joins data lines with a line feed and keeps all but one leading space', () => {
    assert.deepEqual(parse('data:a\ndata:  b\ndata\n\n'), [{ event: undefined, data: 'a\n b\n' }]);
  });

  it('takes a line without a colon as a field with an empty value, and ignores fields it does not know', () => {
    assert.deepEqual(parse('event\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n'), [{ event: '', data: 'x' }]);
  });

  it('dispatches nothing for a message without data, and forgets its event name', () => {
    assert.deepEqual(parse('event: ping\n\ndata: x\n\n'), [{ event: undefined, data: 'x' }]);
  });

  it('keeps a colon inside the value', () => {
    assert.deepEqual(parse('data: {"url":"http://x"}\n\n'), [{ event: undefined, data: '{"url":"http://x"}' }]);
  });

  it('hands on a batch per read, with a character split across reads put together', async () => {
    const bytes = new TextEncoder().encode('data: päth ✓ 🎯\n\ndata: two\n\n');
    // Cut inside the four bytes of the emoji, and inside the last message.
    const emoji = bytes.indexOf(0xf0);
    const chunks = [bytes.slice(0, emoji + 2), bytes.slice(emoji + 2, bytes.length - 3), bytes.slice(bytes.length - 3)];
    assert.deepEqual(await batchesOf(body(chunks)), [[{ event: undefined, data: 'päth ✓ 🎯' }], [{ event: undefined, data: 'two' }]]);
  });

  it('ignores a byte order mark at the start only', async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const rest = new TextEncoder().encode('data: \uFEFFx\n\n');
    assert.deepEqual(await batchesOf(body([bom, rest])), [[{ event: undefined, data: '\uFEFFx' }]]);
  });

  it('drops a message the stream ends in the middle of', async () => {
    const bytes = new TextEncoder().encode('data: whole\n\ndata: cut short\n');
    assert.deepEqual(await batchesOf(body([bytes])), [[{ event: undefined, data: 'whole' }]]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode('data: again\n\n')),
      cancel: () => void (cancelled = true),
    });
    for await (const batch of sseBatches(stream)) {
      assert.equal(batch[0]?.data, 'again');
      break;
    }
    assert.equal(cancelled, true);
  });

  it('names the event whose data is not a JSON object', () => {
    assert.deepEqual(parseEventData('{"a":[1]}', 'x'), { a: [1] });
    assert.throws(() => parseEventData('{"type": "content_block_delta", oops', 'content_block_delta'), {
      message: 'a "content_block_delta" event that is not a JSON object: {"type": "content_block_delta", oops',
    });
    for (const data of ['null', '42', '"text"', '[1]']) assert.throws(() => parseEventData(data, 'x'), /that is not a JSON object/);
    assert.throws(() => parseEventData('x'.repeat(500), undefined), /^Error: an event that is not a JSON object: x{120}…$/);
  });

  describe('limits', () => {
    /** The messages of `pieces` fed to a parser that takes `limit` characters, and the error that stopped it. */
    function bounded(limit: number, pieces: string[]): { messages: SseMessage[]; error?: unknown } {
      const parser = new SseParser(limit);
      const messages: SseMessage[] = [];
      try {
        for (const piece of pieces) messages.push(...parser.push(piece));
        return { messages };
      } catch (error) {
        return { messages, error };
      }
    }

    it('takes a line and an event of exactly the limit, whatever the pieces', () => {
      const line = `data: ${'x'.repeat(14)}`;
      assert.equal(line.length, 20);
      assert.deepEqual(bounded(20, [`${line}\n\n`]), { messages: [{ event: undefined, data: 'x'.repeat(14) }] });
      assert.deepEqual(bounded(20, [...`${line}\n\n`]), { messages: [{ event: undefined, data: 'x'.repeat(14) }] });
      assert.deepEqual(bounded(20, ['data: 0123456789\ndata: 012345678\n\n']), { messages: [{ event: undefined, data: '0123456789\n012345678' }] });
    });

    it('fails on a line longer than the limit that never ends, one piece or many', () => {
      for (const pieces of [['x'.repeat(21)], [...'x'.repeat(21)], ['data: ', 'x'.repeat(10), 'x'.repeat(10)]]) {
        const { messages, error } = bounded(20, pieces);
        assert.deepEqual(messages, []);
        assert.ok(error instanceof StreamLimitError, `${pieces.length} pieces: ${String(error)}`);
        assert.equal(error.message, 'sent a line of more than 20 characters (the most Crow reads in one line)');
      }
    });

    it('fails on a long line that ends in the same read, and on a comment line too', () => {
      for (const text of [`data: ${'x'.repeat(30)}\n\n`, `: ${'x'.repeat(30)}\r\n`, `event: ${'x'.repeat(30)}\r`]) {
        assert.ok(bounded(20, [text]).error instanceof StreamLimitError, JSON.stringify(text));
      }
    });

    it('fails on an event whose data lines add up to more than the limit', () => {
      const { messages, error } = bounded(20, [`${'data: 0123456789\n'.repeat(3)}\n`]);
      assert.deepEqual(messages, []);
      assert.ok(error instanceof StreamLimitError);
      assert.equal(error.message, 'sent an event of more than 20 characters (the most Crow reads in one event)');
    });

    it('hands on the messages a read completed before the line over the limit, then fails every later read', () => {
      const parser = new SseParser(20);
      assert.deepEqual(parser.push(`data: a\n\ndata: b\n\n${'x'.repeat(25)}`), [
        { event: undefined, data: 'a' },
        { event: undefined, data: 'b' },
      ]);
      assert.throws(() => parser.push('data: c\n\n'), StreamLimitError);
      assert.throws(() => parser.push(''), StreamLimitError);
    });

    it('ends a body that sends one endless line once it passes 16 MiB, without reading the rest', async () => {
      assert.equal(MAX_EVENT_CHARS, 16 * 1024 * 1024);
      const chunk = new Uint8Array(64 * 1024).fill(0x61);
      let sent = 0;
      let cancelled = false;
      const endless = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          sent += chunk.length;
          controller.enqueue(chunk);
        },
        cancel: () => void (cancelled = true),
      });
      await assert.rejects(batchesOf(endless), { name: 'StreamLimitError', message: 'sent a line of more than 16 MiB (the most Crow reads in one line)' });
      assert.ok(sent <= MAX_EVENT_CHARS + 2 * chunk.length, `read ${sent} bytes`);
      assert.equal(cancelled, true, 'the body was cancelled, which closes the connection');
    });
  });

  describe('wire batches', () => {
    const encoded = (text: string): Uint8Array => new TextEncoder().encode(text);
    /** What the reader made of each read, and the error that ended the stream, if any. */
    async function read(chunks: string[], reader: Parameters<typeof wireBatches<string>>[1]): Promise<{ batches: string[][]; error?: string }> {
      const batches: string[][] = [];
      try {
        for await (const batch of wireBatches(new Response(body(chunks.map(encoded))), reader)) batches.push(batch);
        return { batches };
      } catch (error) {
        return { batches, error: (error as Error).message };
      }
    }
    const upper = ({ data }: SseMessage): string | undefined => (data === 'skip' ? undefined : data.toUpperCase());

    it('hands on what a read brought before a failing message, then fails', async () => {
      const failing = (message: SseMessage): string | undefined => {
        if (message.data === 'bad') throw new Error('bad message');
        return upper(message);
      };
      assert.deepEqual(await read(['data: a\n\ndata: skip\n\ndata: b\n\ndata: bad\n\ndata: c\n\n'], failing), { batches: [['A', 'B']], error: 'bad message' });
    });

    it('ignores everything after the end of the stream, in that read and the next ones', async () => {
      const ending = (message: SseMessage): string | typeof END_OF_STREAM | undefined => (message.data === '[DONE]' ? END_OF_STREAM : upper(message));
      assert.deepEqual(await read(['data: a\n\ndata: [DONE]\n\ndata: b\n\n', 'data: c\n\n'], ending), { batches: [['A']] });
    });

    it('gives no batch for a read whose messages were all skipped', async () => {
      assert.deepEqual(await read(['data: skip\n\n', 'data: x\n\n'], upper), { batches: [['X']] });
    });
  });
});
