import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** A model that hopes to read a service on this machine through web_fetch. */
describe('crow run: web_fetch and addresses on this machine', function () {
  this.timeout(30_000);
  let llm: FakeLlmServer;
  let service: Server;
  let port: number;
  let hits: string[];
  let home: string;
  let workspace: string;

  before(async () => {
    llm = await FakeLlmServer.start();
    service = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('internal admin token: hunter2');
    });
    await new Promise<void>((done) => service.listen(0, '127.0.0.1', done));
    port = (service.address() as AddressInfo).port;
  });
  after(async () => {
    await llm.close();
    service.closeAllConnections();
    await new Promise((done) => service.close(done));
  });
  beforeEach(() => {
    llm.reset();
    hits = [];
    home = mkdtempSync(join(tmpdir(), 'crow-fetch-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-fetch-ws-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  function fetchThen(url: string): void {
    llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'web_fetch', arguments: { url } }] },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
  }

  const run = () =>
    runCrow(
      ['run', 'Read the admin page', '--allow', 'network', '--provider', 'anthropic'],
      isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }),
      workspace,
    );

  /** What the model was told about its web_fetch call. */
  const toolResult = (): string => JSON.stringify(llm.requestsFor('anthropic')[1]!.body.messages.at(-1));

  for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1', '0177.0.0.1', '127.1']) {
    it(`refuses http://${host}:PORT/ even with network allowed`, async () => {
      fetchThen(`http://${host}:${port}/admin`);
      const result = await run();
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(hits, [], 'the service was not reached');
      assert.match(toolResult(), /Refused to fetch .*a loopback address.*allow_private_addresses = true under \[web_fetch\]/);
      assert.doesNotMatch(toolResult(), /hunter2/);
    });
  }

  it('reaches it when the user allows private addresses in their config.toml', async () => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[web_fetch]\nallow_private_addresses = true\n');
    fetchThen(`http://127.0.0.1:${port}/admin`);
    const result = await run();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(hits, ['/admin']);
    assert.match(toolResult(), /hunter2/);
  });
});
