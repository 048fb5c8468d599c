import assert from 'node:assert/strict';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { BoundedLineBuffer, MAX_MCP_MESSAGE_BYTES, McpInputLimitError } from '../../../src/mcp/bounded-input';

const messages = (buffer: BoundedLineBuffer): unknown[] => {
  const read: unknown[] = [];
  for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) read.push(message);
  return read;
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
        assert.throws(() => pieces.forEach((piece) => over.append(Buffer.from(piece))), (err: Error) => err instanceof McpInputLimitError && err.message === `it sent a line of more than ${line.length} bytes (the most Crow reads at once)`);
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
});
