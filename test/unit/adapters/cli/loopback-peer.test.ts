import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromThisUser, loopbackPeerUid } from '../../../../src/adapters/cli/loopback-peer';
import { nodeAnyUserCanRun } from '../../../support/another-user';
import { skipBecause } from '../../../support/skip-reasons';

const NO_TABLE = existsSync('/proc/net/tcp') ? undefined : 'no /proc/net/tcp (Linux only)';

describe('who is at the other end of a loopback connection', () => {
  let server: Server;
  let port: number;
  /** What the server found out about each connection: its peer's user id, and whether that is us. */
  const seen: { uid: number | undefined; ours: boolean }[] = [];

  before(async function () {
    if (NO_TABLE) skipBecause(this, NO_TABLE);
    server = createServer((request, response) => {
      seen.push({ uid: loopbackPeerUid(request.socket), ours: fromThisUser(request.socket) });
      response.end('ok');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server?.close());
  beforeEach(() => (seen.length = 0));

  it('names this user for a connection from this process', async () => {
    await (await fetch(`http://127.0.0.1:${port}/`)).text();
    assert.deepEqual(seen, [{ uid: process.getuid!(), ours: true }]);
  });

  it("names another user for a connection from that user's process", async function () {
    if (process.getuid?.() !== 0) skipBecause(this, 'needs root to connect as another user; CI runs as root');
    const other = 65534;
    const child = spawn(nodeAnyUserCanRun(), ['-e', `fetch('http://127.0.0.1:${port}/').then((r) => r.text())`], { uid: other, gid: other, stdio: 'ignore' });
    assert.equal(await new Promise((done) => child.on('close', done)), 0);
    assert.deepEqual(seen, [{ uid: other, ours: false }]);
  });
});
