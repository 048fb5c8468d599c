import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { modelNames, probeServer, serverBaseUrl } from '../../../../src/adapters/vscode/chat/server-probe';
import { FakeLlmServer } from '../../../../testkit/fake-llm-server';

/** The chat's "Test" asks a server the person named; what comes back is the server's, and hostile until checked. */
describe('testing a model server from the chat set-up', () => {
  let server: Server;
  let answer: (res: import('node:http').ServerResponse) => void;
  let base: string;

  before(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('keeps only plain model names: no control characters, no non-strings, no repeats, none too long', () => {
    const names = modelNames(JSON.stringify({ data: [{ id: 'a\u001b[31mred' }, { id: 42 }, { id: 'a\u001b[31mred' }, { id: 'x'.repeat(500) }, {}, null, { id: ' ' }] }));
    assert.deepEqual(names, ['a[31mred', 'x'.repeat(200)]);
    assert.equal(modelNames('<html>not json</html>'), undefined);
    assert.equal(modelNames('{"data": "nope"}'), undefined);
  });

  it('refuses addresses that carry credentials, queries or another scheme before asking anything', () => {
    assert.ok('problem' in serverBaseUrl('http://user:secret@localhost:11434/v1'));
    assert.ok('problem' in serverBaseUrl('http://localhost:11434/v1?key=1'));
    assert.ok('problem' in serverBaseUrl('file:///etc/passwd'));
    assert.deepEqual(serverBaseUrl(' http://localhost:11434/v1/ '), { url: 'http://localhost:11434/v1' });
  });

  it('says what is wrong with a server that answers garbage, follows a redirect, or floods', async () => {
    answer = (res) => res.end('<html>hello</html>');
    assert.match((await probeServer(base)).message, /not with an OpenAI-style model list/);
    answer = (res) => {
      res.writeHead(302, { location: 'http://example.com/' });
      res.end();
    };
    const redirected = await probeServer(base);
    assert.equal(redirected.ok, false, 'a redirect is not followed to another host');
    answer = (res) => {
      res.write('{"data":[');
      res.end(`${'{"id":"m"},'.repeat(200_000)}{"id":"last"}]}`);
    };
    const flooded = await probeServer(base);
    assert.equal(flooded.ok, false, 'a body past the cap is cut and does not parse');
    assert.deepEqual(flooded.models, []);
  });

  it('says that a server wants a key, and where to give it, when it answers 401 (OpenAI itself does)', async () => {
    const openai = await FakeLlmServer.start();
    try {
      const probe = await probeServer(openai.openaiBaseUrl);
      assert.equal(probe.ok, false);
      assert.match(probe.message, /answered HTTP 401 to GET \/models\. It asks for a key: type it in the key field/);
      assert.deepEqual(openai.takeRefusals().map((refusal) => refusal.rule), ['openai/api-key']);
      // With the key typed beside Test, the same server (which refuses a listing without one) lists its models.
      const keyed = await probeServer(openai.openaiBaseUrl, { key: 'sk-typed-in-the-set-up' });
      assert.equal(keyed.ok, true, keyed.message);
      assert.match(keyed.message, /^Connected: .* serves 1 model\.$/);
    } finally {
      await openai.close();
    }
  });
});
