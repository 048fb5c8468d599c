import assert from 'node:assert/strict';
import { type AddressInfo, createServer } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { readClientHello } from '../../../src/tools/tls-client-hello';

/** The first bytes Node's TLS client sends when it connects with `servername` (none: an IP literal, which sends no SNI). */
async function clientHello(servername?: string): Promise<Buffer> {
  let received = Buffer.alloc(0);
  const server = createServer((socket) => socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk]))));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  const client = tlsConnect({ host: '127.0.0.1', port, ...(servername ? { servername } : {}), rejectUnauthorized: false });
  client.on('error', () => undefined);
  const deadline = Date.now() + 5_000;
  while (readClientHello(received).kind === 'more' && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
  client.destroy();
  server.close();
  return received;
}

describe('reading the server name of a TLS ClientHello', () => {
  it('finds the name a client asks for, whatever pieces the bytes come in', async () => {
    const hello = await clientHello('Registry.NPMjs.org');
    assert.deepEqual(readClientHello(hello), { kind: 'hello', serverName: 'Registry.NPMjs.org' });
    for (const cut of [1, 4, 5, 40, hello.length - 1]) assert.deepEqual(readClientHello(hello.subarray(0, cut)), { kind: 'more' }, `cut at ${cut}`);
  });

  it('reads a hello split over two handshake records', async () => {
    const hello = await clientHello('site.test');
    const body = hello.subarray(5);
    const record = (part: Buffer): Buffer => Buffer.concat([Buffer.from([0x16, 0x03, 0x01, part.length >> 8, part.length & 0xff]), part]);
    const split = Buffer.concat([record(body.subarray(0, 30)), record(body.subarray(30))]);
    assert.deepEqual(readClientHello(split), { kind: 'hello', serverName: 'site.test' });
  });

  it('says no name for a client that connects by address, and not TLS for other bytes', async () => {
    assert.deepEqual(readClientHello(await clientHello()), { kind: 'hello', serverName: undefined });
    assert.deepEqual(readClientHello(Buffer.from('GET / HTTP/1.1\r\n')), { kind: 'not-tls' });
    assert.deepEqual(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00])), { kind: 'not-tls' }, 'a handshake that is no ClientHello');
    assert.deepEqual(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x03])), { kind: 'not-tls' }, 'a hello cut short inside');
    assert.deepEqual(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0xff, 0xff, 0xff])), { kind: 'not-tls' }, 'a hello claiming 16 MB');
  });
});
