import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { clientRequests, RequestDenied } from '../../../src/mcp/client-requests';
import type { SamplingAnswer } from '../../../src/mcp/sampling-request';

/** A server and a client with `requests` installed, connected in memory. */
async function connected(requests: ReturnType<typeof clientRequests>) {
  const server = new Server({ name: 'srv', version: '1' }, { capabilities: {} });
  const client = new Client({ name: 'crow', version: '1' }, { capabilities: requests.capabilities });
  requests.install(client, 'srv');
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return { server, close: () => Promise.all([client.close(), server.close()]) };
}

const SAMPLE = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }], maxTokens: 10 };

describe('MCP client requests', () => {
  it('declares only what has a handler: form (+ url) elicitation, sampling', () => {
    assert.deepEqual(clientRequests({}).capabilities, {});
    const form = async () => ({ action: 'decline' as const });
    assert.deepEqual(clientRequests({ form }).capabilities, { elicitation: { form: {} } });
    assert.deepEqual(clientRequests({ form, url: async () => ({ action: 'cancel' as const }), sample: async () => ({ text: '', model: 'm', stopReason: 'endTurn' }) }).capabilities, {
      elicitation: { form: {}, url: {} },
      sampling: {},
    });
  });

  it('runs one model request of a server at a time: a flood is refused at once, never queued', async () => {
    let release!: () => void;
    let calls = 0;
    const sample = async (): Promise<SamplingAnswer> => {
      calls += 1;
      await new Promise<void>((resolve) => (release = resolve));
      return { text: 'done', model: 'm', stopReason: 'endTurn' };
    };
    const { server, close } = await connected(clientRequests({ sample }));
    try {
      const first = server.request({ method: 'sampling/createMessage', params: SAMPLE }, CreateMessageResultSchema);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const flood = await Promise.allSettled(Array.from({ length: 20 }, () => server.request({ method: 'sampling/createMessage', params: SAMPLE }, CreateMessageResultSchema)));
      assert.ok(flood.every((result) => result.status === 'rejected' && /one model request of MCP server "srv" at a time/.test(String(result.reason))));
      release();
      assert.deepEqual((await first).content, { type: 'text', text: 'done' });
      assert.equal(calls, 1);
    } finally {
      await close();
    }
  });

  it('answers a denial with the spec\'s "user rejected" code, and a refused form with invalid params', async () => {
    const { server, close } = await connected(
      clientRequests({
        form: async () => ({ action: 'accept', content: {} }),
        sample: async () => {
          throw new RequestDenied('Crow refused the model request: the person denied it.');
        },
      }),
    );
    try {
      await assert.rejects(server.request({ method: 'sampling/createMessage', params: SAMPLE }, CreateMessageResultSchema), (err: { code?: number; message: string }) => err.code === -1 && /the person denied it/.test(err.message));
      const nested = { message: 'x', requestedSchema: { type: 'object', properties: { a: { type: 'string', title: 'y'.repeat(600) } } } };
      await assert.rejects(server.request({ method: 'elicitation/create', params: nested }, ElicitResultSchema), (err: { code?: number; message: string }) => err.code === -32602 && /title or description over 500/.test(err.message));
    } finally {
      await close();
    }
  });
});
