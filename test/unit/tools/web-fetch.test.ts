import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebFetchTool, webFetchTool } from '../../../src/tools/builtin/web-fetch';
import { type PermissionRequest, PermissionGate } from '../../../src/tools/permissions';
import { BlockedAddressError, blockedAddressReason, guardedLookup } from '../../../src/tools/address-guard';
import { builtinTools } from '../../../src/tools/registry';
import type { Tool, ToolContext } from '../../../src/tools/tool';
import { tempWorkspace, toolContext } from './temp-workspace';
import { assertPromptly } from '../../support/promptly';

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const PAGE = `<!doctype html><html><head><title>Fake page</title><script>track()</script></head>
<body><nav>Menu</nav><main><h1>Hello</h1><p>See <a href="/docs">the docs</a>.</p></main></body></html>`;

const ROUTES: Record<string, Route> = {
  '/page': (_req, res) => send(res, 200, 'text/html; charset=utf-8', PAGE),
  '/data.json': (_req, res) => send(res, 200, 'application/json', '{"items":[1,2,3]}'),
  '/image.png': (_req, res) => send(res, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1])),
  '/missing': (_req, res) => send(res, 404, 'text/html', '<html><body><h1>Not here</h1><p>No such page.</p></body></html>'),
  '/old': (_req, res) => redirect(res, 301, '/page'),
  '/twice': (_req, res) => redirect(res, 302, '/old'),
  '/loop': (_req, res) => redirect(res, 302, '/loop'),
  '/to-file': (_req, res) => redirect(res, 302, 'file:///etc/passwd'),
  '/elsewhere': (req, res) => redirect(res, 302, `http://localhost:${req.socket.localPort}/page`),
  '/big': (_req, res) => send(res, 200, 'text/plain', 'x'.repeat(100_000)),
  '/latin1': (_req, res) => send(res, 200, 'text/plain; charset=iso-8859-1', Buffer.from('café', 'latin1')),
  '/meta-charset': (_req, res) =>
    send(res, 200, 'text/html', Buffer.from('<html><head><meta charset="windows-1252"></head><p>naïve</p></html>', 'latin1')),
  '/untyped-html': (_req, res) => send(res, 200, undefined, '<!DOCTYPE html><p>Sniffed <b>HTML</b></p>'),
  '/untyped-binary': (_req, res) => send(res, 200, undefined, Buffer.from([1, 2, 0, 3])),
  '/echo-agent': (req, res) => send(res, 200, 'text/plain', req.headers['user-agent'] ?? ''),
  '/hang': () => undefined,
};

function send(res: http.ServerResponse, status: number, type: string | undefined, body: string | Buffer): void {
  res.writeHead(status, type === undefined ? {} : { 'content-type': type });
  res.end(body);
}

function redirect(res: http.ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location });
  res.end();
}

/** The test pages are served on loopback, which web_fetch reaches only with the setting. */
const localFetch = createWebFetchTool({ allowPrivateAddresses: true });

describe('web_fetch', () => {
  let server: http.Server;
  let base: string;
  let requests: string[];
  let ws: ReturnType<typeof tempWorkspace>;

  const run = (tool: Tool, args: unknown, ctx: Partial<ToolContext> = {}) =>
    tool.run(JSON.stringify(args), { ...toolContext(ws.workspace), ...ctx });
  const fetchPath = (path: string, extra: object = {}) => run(localFetch, { url: base + path, ...extra });

  before(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      (ROUTES[req.url ?? ''] ?? ((_q, r) => send(r, 500, 'text/plain', 'no route')))(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    requests = [];
    ws = tempWorkspace();
  });
  afterEach(() => ws.remove());

  it('converts an HTML page to markdown under a header naming the URL, status and type', async () => {
    const result = await fetchPath('/page');
    assert.equal(result.status, 'success', result.error);
    assert.equal(
      result.output,
      `${base}/page (HTTP 200, text/html; charset=utf-8)\n\nTitle: Fake page\n\n# Hello\n\nSee [the docs](${base}/docs).`,
    );
    assert.equal(result.metadata.extra.status, 200);
    assert.equal(result.metadata.extra.contentType, 'text/html');
  });

  it('returns plain text or the raw HTML when asked', async () => {
    const text = await fetchPath('/page', { format: 'text' });
    assert.match(text.output, /\n\nTitle: Fake page\n\nHello\n\nSee the docs\.$/);
    const raw = await fetchPath('/page', { format: 'raw' });
    assert.ok(raw.output.endsWith(PAGE));
  });

  it('returns JSON as text', async () => {
    const result = await fetchPath('/data.json');
    assert.equal(result.output, `${base}/data.json (HTTP 200, application/json)\n\n{"items":[1,2,3]}`);
  });

  it('refuses binary types without passing their bytes on', async () => {
    const result = await fetchPath('/image.png');
    assert.equal(result.status, 'error');
    assert.equal(result.output, '');
    assert.match(result.error ?? '', /is image\/png, which web_fetch does not support/);
  });

  it('sniffs bodies that come without a content type', async () => {
    assert.match((await fetchPath('/untyped-html')).output, /\n\nSniffed \*\*HTML\*\*$/);
    const binary = await fetchPath('/untyped-binary');
    assert.equal(binary.status, 'error');
    assert.match(binary.error ?? '', /binary data without a content type/);
  });

  it('turns an HTTP error into an error result with the status and an excerpt', async () => {
    const result = await fetchPath('/missing');
    assert.equal(result.status, 'error');
    assert.equal(result.error, `HTTP 404 Not Found from ${base}/missing: Not here No such page.`);
  });

  it('follows redirects and reports the final URL', async () => {
    const result = await fetchPath('/twice');
    assert.equal(result.status, 'success', result.error);
    assert.ok(result.output.startsWith(`${base}/page (HTTP 200, text/html; charset=utf-8, redirected from ${base}/twice)\n`));
    assert.equal(result.metadata.extra.redirects, 2);
    assert.deepEqual(requests, ['/twice', '/old', '/page']);
  });

  it('stops after five redirects and refuses redirects to other schemes', async () => {
    const loop = await fetchPath('/loop');
    assert.equal(loop.status, 'error');
    assert.match(loop.error ?? '', /^Stopped after 5 redirects/);
    assert.equal(requests.length, 6);
    const toFile = await fetchPath('/to-file');
    assert.match(toFile.error ?? '', /redirected to "file:\/\/\/etc\/passwd", which is not an http\(s\) URL/);
  });

  it('decodes the charset named by the content type or a <meta> tag', async () => {
    assert.match((await fetchPath('/latin1')).output, /\n\ncafé$/);
    assert.match((await fetchPath('/meta-charset')).output, /\n\nnaïve$/);
  });

  it('cuts the content at max_chars with a note', async () => {
    const result = await fetchPath('/big', { max_chars: 1_000 });
    assert.ok(result.output.includes(`\n\n${'x'.repeat(1_000)}\n\n`));
    assert.ok(result.output.endsWith('[truncated at 1000 of 100000 characters; call again with a larger max_chars]'));
  });

  it('stops downloading at the byte limit and says so', async () => {
    const tool = createWebFetchTool({ ...{ maxBytes: 2_000 }, allowPrivateAddresses: true });
    const result = await run(tool, { url: `${base}/big` });
    assert.equal(result.status, 'success', result.error);
    assert.ok(result.output.includes(`\n\n${'x'.repeat(2_000)}\n\n`));
    assert.ok(result.output.endsWith('[body cut: only the first 2000 bytes were downloaded]'));
    assert.equal(result.metadata.extra.bodyCut, true);
  });

  it('sends a User-Agent naming Crow Agent', async () => {
    assert.match((await fetchPath('/echo-agent')).output, /\n\nCrowAgent\/\d+\.\d+\.\d+/);
    const custom = createWebFetchTool({ ...{ userAgent: 'TestAgent/1' }, allowPrivateAddresses: true });
    assert.match((await run(custom, { url: `${base}/echo-agent` })).output, /\n\nTestAgent\/1$/);
  });

  it('gives up after the timeout with an error naming it', async () => {
    const tool = createWebFetchTool({ ...{ timeoutMs: 200 }, allowPrivateAddresses: true });
    const started = Date.now();
    const result = await run(tool, { url: `${base}/hang` });
    assert.equal(result.status, 'error');
    assert.equal(result.error, `Fetching ${base}/hang timed out after 0.2s.`);
    assertPromptly(started, 'gave up on the hanging fetch');
  });

  it('is cancelled promptly by the tool signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await run(localFetch, { url: `${base}/hang` }, { signal: controller.signal });
    assert.equal(result.status, 'cancelled');
    assertPromptly(started, 'cancelled the hanging fetch');
  });

  it('refuses URLs that are not absolute http(s) before asking for permission', async () => {
    const file = await run(webFetchTool, { url: 'file:///etc/passwd' });
    assert.equal(file.status, 'error');
    assert.match(file.error ?? '', /^Invalid arguments for web_fetch: url: only http and https URLs can be fetched, not file:/);
    const bare = await run(webFetchTool, { url: 'example.com/page' });
    assert.match(bare.error ?? '', /url: not an absolute URL: "example.com\/page"; include the scheme/);
  });

  it('reports an unreachable server with the reason', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise((resolve) => closed.close(resolve));
    const result = await run(localFetch, { url });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /^Could not fetch http:\/\/127\.0\.0\.1:\d+\/: .*ECONNREFUSED/);
  });

  it('asks for network permission, and sends nothing when the policy denies it', async () => {
    const permissions = new PermissionGate({ policy: { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'deny' }, allowCommands: [] } });
    const result = await run(localFetch, { url: `${base}/page` }, { permissions });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /Permission denied: the policy denies network \(Fetch http:\/\/127\.0\.0\.1:\d+\/page\)/);
    assert.deepEqual(requests, []);
  });

  it('describes itself as a network fetch tool', () => {
    assert.equal(webFetchTool.name, 'web_fetch');
    assert.equal(webFetchTool.kind, 'fetch');
    assert.equal(webFetchTool.permission, 'network');
    assert.deepEqual(Object.keys((webFetchTool.inputSchema as { properties: object }).properties), ['url', 'max_chars', 'format']);
    assert.deepEqual((webFetchTool.inputSchema as { required: string[] }).required, ['url']);
    assert.equal(webFetchTool.summarize({ url: 'https://example.com/a' }), 'https://example.com/a');
  });
  describe('address guard', () => {
    const port = (): string => new URL(base).port;

    it('refuses loopback in every spelling, sending nothing', async () => {
      const spellings = [
        '127.0.0.1', 'localhost', 'LOCALHOST.', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]',
        '2130706433', '0x7f.1', '0x7f000001', '0177.0.0.1', '127.1', '127.0.1', '127.255.255.254', '[::127.0.0.1]', '[64:ff9b::7f00:1]',
      ];
      for (const host of spellings) {
        const result = await run(webFetchTool, { url: `http://${host}:${port()}/page` });
        assert.equal(result.status, 'error', host);
        assert.match(result.error ?? '', /^Refused to fetch .*loopback address\. web_fetch does not reach loopback, private, link-local or cloud-metadata addresses\. If the user wants it to, they can set allow_private_addresses = true under \[web_fetch\]/, host);
      }
      assert.deepEqual(requests, [], 'no request reached the server');
    });

    it('refuses private, link-local, shared, unspecified and metadata addresses', async () => {
      const refused: [string, RegExp][] = [
        ['10.1.2.3', /a private address/],
        ['172.16.0.1', /a private address/],
        ['172.31.255.255', /a private address/],
        ['192.168.1.1', /a private address/],
        ['[fd12:3456::1]', /a private address/],
        ['[fc00::1]', /a private address/],
        ['100.64.0.1', /a carrier-grade NAT address/],
        ['169.254.1.1', /a link-local address/],
        ['[fe80::1]', /a link-local address/],
        ['0.0.0.0', /an unspecified address/],
        ['0', /an unspecified address/],
        ['[::]', /an unspecified address/],
        ['169.254.169.254', /a cloud metadata address/],
        ['[::ffff:169.254.169.254]', /a cloud metadata address/],
        ['0xa9fea9fe', /a cloud metadata address/],
        ['[fd00:ec2::254]', /a cloud metadata address/],
        ['metadata.google.internal', /metadata.google.internal is a cloud metadata service/],
        ['224.0.0.1', /a multicast address/],
        ['[2002:7f00:1::1]', /a loopback address/],
      ];
      for (const [host, reason] of refused) {
        const result = await run(webFetchTool, { url: `http://${host}/latest/meta-data/` });
        assert.equal(result.status, 'error', host);
        assert.match(result.error ?? '', /^Refused to fetch /, host);
        assert.match(result.error ?? '', reason, host);
      }
    });

    it('judges a name by every address it resolves to, and hands the connection only those', async () => {
      const looked = (host: string, all: boolean) =>
        new Promise<{ error: Error | null; address: unknown }>((resolve) =>
          guardedLookup(host, { all }, (error, address) => resolve({ error, address })),
        );
      for (const all of [true, false]) {
        const { error, address } = await looked('localhost', all);
        assert.ok(error instanceof BlockedAddressError, `all: ${all}`);
        assert.match(error.message, /^localhost resolves to (127\.0\.0\.1|::1), a loopback address\. web_fetch does not reach/);
        assert.deepEqual(address, []);
      }
      const numeric = await looked('93.184.215.14', true);
      assert.deepEqual([numeric.error, numeric.address], [null, [{ address: '93.184.215.14', family: 4 }]]);
    });

    it('classifies addresses, embedded IPv4 included', () => {
      for (const [address, reason] of [
        ['8.8.8.8', undefined],
        ['2606:4700::1111', undefined],
        ['172.32.0.1', undefined],
        ['100.128.0.1', undefined],
        ['127.0.0.1', 'a loopback address'],
        ['::ffff:10.0.0.1', 'a private address'],
        ['64:ff9b::a9fe:a9fe', 'a cloud metadata address'],
        ['fe80::1%eth0', 'a link-local address'],
        ['[::1]', 'a loopback address'],
      ] as const) {
        assert.equal(blockedAddressReason(address), reason, address);
      }
    });

    it('reaches private addresses when the setting allows them', async () => {
      const [allowed] = builtinTools({ webFetch: { allowPrivateAddresses: true } }).filter((tool) => tool.name === 'web_fetch');
      const result = await run(allowed!, { url: `http://localhost:${port()}/page` });
      assert.equal(result.status, 'success', result.error);
      const [guarded] = builtinTools().filter((tool) => tool.name === 'web_fetch');
      assert.match((await run(guarded!, { url: `${base}/page` })).error ?? '', /^Refused to fetch/);
      assert.deepEqual(requests, ['/page']);
    });

    it('asks the permission gate again for a redirect to another host, naming it', async () => {
      const asked: PermissionRequest[] = [];
      const gate = (answer: 'allow_once' | 'reject_once') =>
        new PermissionGate({
          policy: { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'ask' }, allowCommands: [] },
          ask: async (request) => {
            asked.push(request);
            return answer;
          },
        });
      const allowed = await run(localFetch, { url: `${base}/elsewhere` }, { permissions: gate('allow_once') });
      assert.equal(allowed.status, 'success', allowed.error);
      assert.deepEqual(asked.map((request) => [request.category, request.title]), [
        ['network', `Fetch ${base}/elsewhere`],
        ['network', `Fetch http://localhost:${port()}/page (127.0.0.1 redirected to localhost)`],
      ]);
      assert.deepEqual(requests, ['/elsewhere', '/page']);

      asked.length = 0;
      requests = [];
      const denied = await run(localFetch, { url: `${base}/elsewhere` }, { permissions: gate('reject_once') });
      assert.equal(denied.status, 'error');
      assert.equal(asked.length, 1, 'the first fetch was refused, so there was no redirect to ask about');
      let first = true;
      const secondDenied = await run(localFetch, { url: `${base}/elsewhere` }, {
        permissions: new PermissionGate({
          policy: { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'ask' }, allowCommands: [] },
          ask: async () => {
            const answer = first ? 'allow_once' : 'reject_once';
            first = false;
            return answer;
          },
        }),
      });
      assert.equal(secondDenied.status, 'error');
      assert.match(secondDenied.error ?? '', /redirected to localhost, a host not yet approved: Permission denied by the user/);
      assert.deepEqual(requests, ['/elsewhere'], 'the other host was not fetched');
    });

    it('follows a redirect on the same host without asking again', async () => {
      let asks = 0;
      const gate = new PermissionGate({
        policy: { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'ask' }, allowCommands: [] },
        ask: async () => {
          asks += 1;
          return 'allow_once';
        },
      });
      assert.equal((await run(localFetch, { url: `${base}/twice` }, { permissions: gate })).status, 'success');
      assert.equal(asks, 1);
    });
  });
});
