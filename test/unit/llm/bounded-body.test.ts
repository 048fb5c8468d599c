import assert from 'node:assert/strict';
import { type BodyLimitError, boundedFetch } from '../../../src/llm/bounded-body';

/** A fetch that answers `status` with `chunks` as the body, of `type`. */
const answering =
  (type: string, chunks: string[], status = 200) =>
  async (): Promise<Response> => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { 'content-type': type } });
  };

const limits = (bytes: number) => ({ bodyBytes: bytes, errorBytes: bytes, eventBytes: bytes });
const read = async (response: Response): Promise<string> => response.text();
const unreached = (): never => assert.fail('no limit reached');

describe('bounded response bodies', () => {
  it('passes an event stream of any length whose events stay under the limit, CRLF and CR line ends included', async () => {
    const events = Array.from({ length: 50 }, (_, i) => `data: ${'x'.repeat(10)}${i % 3 === 0 ? '\r\n\r\n' : i % 3 === 1 ? '\n\n' : '\r\r'}`);
    const fetch = boundedFetch(answering('text/event-stream; charset=utf-8', events), limits(40), unreached);
    assert.equal(await read(await fetch('http://x')), events.join(''));
  });

  it('fails an event stream at the first event over the limit, and says so once', async () => {
    const seen: BodyLimitError[] = [];
    const fetch = boundedFetch(answering('text/event-stream', ['data: ok\n\n', 'data: ', 'y'.repeat(30), '\ndata: more\n\n']), limits(20), (err) => seen.push(err));
    await assert.rejects(read(await fetch('http://x')), { name: 'BodyLimitError', message: 'it sent an event of more than 20 bytes (the most Crow reads at once)' });
    assert.equal(seen.length, 1);
  });

  it('counts an event across its lines, and CRLF as one line end, not a blank line', async () => {
    const fetch = boundedFetch(answering('text/event-stream', ['data: 12345\r\n', 'data: 12345\r\n', 'data: 12345\r\n']), limits(30));
    await assert.rejects(read(await fetch('http://x')), { name: 'BodyLimitError' });
  });

  it('leaves an event stream uncounted when no event limit is given (its reader caps it)', async () => {
    const fetch = boundedFetch(answering('text/event-stream', ['data: ', 'z'.repeat(100)]), { bodyBytes: 10, errorBytes: 10 }, unreached);
    assert.equal((await read(await boundedFetch(answering('text/plain', ['z'.repeat(100)]), { errorBytes: 10 }, unreached)('http://x'))).length, 100, 'nor any body without a limit');
    assert.equal((await read(await fetch('http://x'))).length, 106);
  });

  it('caps any other body, and an error answer, as a whole', async () => {
    const ok = boundedFetch(answering('application/json', ['{"a":', '1}']), limits(7), unreached);
    assert.equal(await read(await ok('http://x')), '{"a":1}');
    const fetch = boundedFetch(answering('application/json', ['{"a":', '"', 'z'.repeat(10), '\n\n', '"}']), limits(12));
    await assert.rejects(read(await fetch('http://x')), /it sent a response of more than 12 bytes/);
    const failing = boundedFetch(answering('text/event-stream', ['data: ', 'e'.repeat(50)], 500), { bodyBytes: 1000, errorBytes: 20 });
    await assert.rejects(read(await failing('http://x')), /it sent an error answer of more than 20 bytes/);
  });

  it('keeps the status and headers, and a response without a body as it is', async () => {
    const fetch = boundedFetch(async () => new Response(null, { status: 202, headers: { 'mcp-session-id': 's1' } }), limits(1));
    const response = await fetch('http://x');
    assert.equal(response.status, 202);
    assert.equal(response.headers.get('mcp-session-id'), 's1');
  });
});
