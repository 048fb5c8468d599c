// The floor `crow acp` is measured against: an ACP agent made of the SDK
// alone. It answers initialize and session/new, and echoes each prompt's
// text back as one agent_message_chunk.
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const connection = acp
  .agent({ name: 'echo' })
  .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
  .onRequest('session/new', () => ({ sessionId: 'echo' }))
  .onRequest('session/prompt', async ({ params, client }) => {
    const text = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
    await client.notify('session/update', {
      sessionId: params.sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    });
    return { stopReason: 'end_turn' };
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));

await connection.closed;
