import assert from 'node:assert/strict';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { BoundedLineBuffer, boundedFetch, MAX_MCP_MESSAGE_BYTES, McpInputLimitError } from '../../../src/mcp/bounded-input';

const messages = (buffer: BoundedLineBuffer): unknown[] => {
  const read: unknown[] = [];
  for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) read.push(message);
  return read;
};

/** A fetch that answers with `chunks` as the body, of `type`. */
const answering = (type: string, chunks: string[]) => async (): Promise<Response> => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': type } });
};

describe('bounded MCP input', () => {
  describe('stdio lines', () => {
    it('reads the messages of LF-ended lines, a CR before the LF dropped, whatever the pieces', () => {
      const text = '{"jsonrpc":"2.0","id":1,"result":{}}\r\n{"jsonrpc":"2.0","method":"notifications/x"}\n';
      for (let cut = 0; cut <= text.length; cut++) {
        const buffer = new BoundedLineBuffer(deserializeMessage, 100);
        buffer.append(Buffer.from(text.slice(0, cut)));
        buffer.append(Buffer.from(text.slice(cut)));
        assert.deepEqual(messages(buffer), [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', method: 'notifications/x' }], `cut at ${cut}`);
      }
    });

    it('throws for a line that is not a JSON-RPC message, and reads on after it', () => {
      const buffer = new BoundedLineBuffer(deserializeMessage, 100);
      buffer.append(Buffer.from('not json\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
      assert.throws(() => buffer.readMessage(), SyntaxError);
      assert.deepEqual(messages(buffer), [{ jsonrpc: '2.0', id: 2, result: {} }]);
    });

    it('takes a line of exactly the limit and fails one byte over it, in one piece or many', () => {
      const line = `{"jsonrpc":"2.0","id":1,"result":{"t":"${'x'.repeat(60)}"}}`;
      const exact = new BoundedLineBuffer(deserializeMessage, line.length);
      exact.append(Buffer.from(`${line}\n`));
      assert.equal(messages(exact).length, 1);
      for (const pieces of [[`${line}x`], [...`${line}x`]]) {
        const over = new BoundedLineBuffer(deserializeMessage, line.length);
        assert.throws(() => pieces.forEach((piece) => over.append(Buffer.from(piece))), (err: Error) => err instanceof McpInputLimitError && err.message === `it sent a line of more than ${line.length} bytes (the most Crow reads in one message)`);
      }
    });

    it('holds at most the limit of a line that never ends (16 MiB by default)', () => {
      const buffer = new BoundedLineBuffer(deserializeMessage);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let taken = 0;
      assert.throws(() => {
        for (;;) {
          buffer.append(chunk);
          taken += chunk.length;
        }
      }, /it sent a line of more than 16 MiB/);
      assert.equal(taken, MAX_MCP_MESSAGE_BYTES);
    });
  });

  describe('HTTP bodies', () => {
    const read = async (response: Response): Promise<string> => response.text();

    it('passes an event stream of any length whose events stay under the limit, CRLF and CR line ends included', async () => {
      const events = Array.from({ length: 50 }, (_, i) => `data: ${'x'.repeat(10)}${i % 3 === 0 ? '\r\n\r\n' : i % 3 === 1 ? '\n\n' : '\r\r'}`);
      const fetch = boundedFetch(answering('text/event-stream; charset=utf-8', events), () => assert.fail('no limit reached'), 40);
      assert.equal(await read(await fetch('http://x')), events.join(''));
    });

    it('fails an event stream at the first event over the limit, and says so once', async () => {
      const limits: McpInputLimitError[] = [];
      const fetch = boundedFetch(answering('text/event-stream', ['data: ok\n\n', 'data: ', 'y'.repeat(30), '\ndata: more\n\n']), (err) => limits.push(err), 20);
      await assert.rejects(read(await fetch('http://x')), /it sent an event of more than 20 bytes/);
      assert.equal(limits.length, 1);
    });

    it('counts an event across its lines, and CRLF as one line end, not a blank line', async () => {
      const fetch = boundedFetch(answering('text/event-stream', ['data: 12345\r\n', 'data: 12345\r\n', 'data: 12345\r\n']), () => undefined, 30);
      await assert.rejects(read(await fetch('http://x')), McpInputLimitError);
    });

    it('caps any other body as a whole', async () => {
      const ok = boundedFetch(answering('application/json', ['{"a":', '1}']), () => assert.fail('no limit reached'), 7);
      assert.equal(await read(await ok('http://x')), '{"a":1}');
      const fetch = boundedFetch(answering('application/json', ['{"a":', '"', 'z'.repeat(10), '\n\n', '"}']), () => undefined, 12);
      await assert.rejects(read(await fetch('http://x')), /it sent a response of more than 12 bytes/);
    });

    it('keeps the status and headers, and a response without a body as it is', async () => {
      const fetch = boundedFetch(async () => new Response(null, { status: 202, headers: { 'mcp-session-id': 's1' } }), () => undefined);
      const response = await fetch('http://x');
      assert.equal(response.status, 202);
      assert.equal(response.headers.get('mcp-session-id'), 's1');
    });
  });
});
