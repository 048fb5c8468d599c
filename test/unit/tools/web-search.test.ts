import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebSearchTool, WebSearchConfigSchema, type WebSearchConfig } from '../../../src/tools/builtin/web-search';
import type { Tool } from '../../../src/tools/tool';
import { tempWorkspace, toolContext } from './temp-workspace';

interface Reply {
  status: number;
  body: unknown;
  /** Send megabytes of JSON-looking text until the client hangs up. */
  endless?: boolean;
}

/** A body that never ends: 1 MiB chunks as fast as the client reads them, until it closes the connection. */
function endless(res: http.ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  res.write('{"results": "');
  const more = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', more);
  };
  res.on('close', () => res.destroy());
  more();
}

const SEARXNG_RESULTS = {
  query: 'crow agent',
  results: [
    { title: 'Crow Agent', url: 'https://crow.example/', content: 'A <b>coding</b> agent &amp; more.', engine: 'ddg' },
    { title: 'No URL', content: 'dropped' },
    { title: 'Crows', url: 'https://birds.example/crows', content: '' },
    { title: 'Third', url: 'https://third.example/', content: 'third' },
  ],
};

const BRAVE_RESULTS = {
  type: 'search',
  web: {
    results: [
      { title: 'Brave <strong>result</strong>', url: 'https://brave.example/a', description: 'First &quot;hit&quot;' },
      { title: 'Second', url: 'https://brave.example/b', description: 'Second hit' },
    ],
  },
};

describe('web_search', () => {
  let server: http.Server;
  let base: string;
  let requests: http.IncomingMessage[];
  let reply: Reply;
  let ws: ReturnType<typeof tempWorkspace>;

  const run = (tool: Tool, args: unknown) => tool.run(JSON.stringify(args), toolContext(ws.workspace));

  before(async () => {
    server = http.createServer((req, res) => {
      requests.push(req);
      if (reply.endless) return endless(res, reply.status);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());
  beforeEach(() => {
    requests = [];
    ws = tempWorkspace();
  });
  afterEach(() => ws.remove());

  it('says how to configure it when no backend is configured, without asking for the network', async () => {
    const tool = createWebSearchTool(undefined);
    assert.equal(tool.permission, 'none');
    const result = await run(tool, { query: 'anything' });
    assert.equal(result.status, 'error');
    assert.equal(result.output, '');
    assert.match(result.error ?? '', /^Web search is not configured, so there are no results\./);
    assert.ok(result.error?.includes('"webSearch": { "backend": "searxng", "url": "..." }'));
  });

  it('queries a SearXNG instance and numbers the results', async () => {
    reply = { status: 200, body: SEARXNG_RESULTS };
    const tool = createWebSearchTool({ backend: 'searxng', url: `${base}/searx` });
    assert.equal(tool.permission, 'network');
    const result = await run(tool, { query: 'crow agent', max_results: 3 });
    assert.equal(result.status, 'success', result.error);
    const url = new URL(requests[0]?.url ?? '', base);
    assert.equal(url.pathname, '/searx/search');
    assert.equal(url.searchParams.get('q'), 'crow agent');
    assert.equal(url.searchParams.get('format'), 'json');
    assert.equal(
      result.output,
      [
        'Results for "crow agent" from SearXNG:',
        '',
        '1. Crow Agent',
        '   https://crow.example/',
        '   A coding agent & more.',
        '',
        '2. Crows',
        '   https://birds.example/crows',
      ].join('\n'),
    );
    assert.equal(result.metadata.extra.results, 2);
  });

  it('says so when there are no results', async () => {
    reply = { status: 200, body: { results: [] } };
    const result = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'zzz' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'No results for "zzz" from SearXNG.');
  });

  it('calls the Brave API with the key from the configured variable', async () => {
    reply = { status: 200, body: BRAVE_RESULTS };
    const config: WebSearchConfig = { backend: 'brave', apiKeyEnv: 'TEST_BRAVE_KEY', baseUrl: `${base}/res/v1` };
    const tool = createWebSearchTool(config, { TEST_BRAVE_KEY: 'secret-key' });
    const result = await run(tool, { query: 'typescript zod', max_results: 5 });
    assert.equal(result.status, 'success', result.error);
    const request = requests[0]!;
    assert.equal(request.headers['x-subscription-token'], 'secret-key');
    const url = new URL(request.url ?? '', base);
    assert.equal(url.pathname, '/res/v1/web/search');
    assert.equal(url.searchParams.get('q'), 'typescript zod');
    assert.equal(url.searchParams.get('count'), '5');
    assert.ok(
      result.output.startsWith(
        'Results for "typescript zod" from Brave Search:\n\n1. Brave result\n   https://brave.example/a\n   First "hit"\n\n2. Second',
      ),
    );
  });

  it('names the missing API key variable', async () => {
    const tool = createWebSearchTool({ backend: 'brave' }, {});
    assert.equal(tool.permission, 'none');
    const result = await run(tool, { query: 'x' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /set the environment variable BRAVE_API_KEY/);
    assert.deepEqual(requests, []);
  });

  it('turns a backend HTTP error into an error result with the status and a hint', async () => {
    reply = { status: 403, body: 'Forbidden' };
    const searx = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'x' });
    assert.equal(searx.status, 'error');
    assert.match(searx.error ?? '', /^SearXNG answered HTTP 403: Forbidden\. The instance may not allow the json format/);

    reply = { status: 401, body: { error: 'bad token' } };
    const brave = await run(createWebSearchTool({ backend: 'brave', baseUrl: base }, { BRAVE_API_KEY: 'k' }), { query: 'x' });
    assert.match(brave.error ?? '', /^Brave Search answered HTTP 401: \{"error":"bad token"\}\. The API key was refused/);

    reply = { status: 500, body: '' };
    const bare = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'x' });
    assert.equal(bare.error, 'SearXNG answered HTTP 500.');
  });

  it('stops reading a backend that sends without end, and says so; an endless error answer still shows its status', async () => {
    reply = { status: 200, body: '', endless: true };
    const endlessAnswer = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'x' });
    assert.equal(endlessAnswer.status, 'error');
    assert.match(endlessAnswer.error ?? '', /^SearXNG at http:\/\/127\.0\.0\.1:\d+ it sent a response of more than 4 MiB .*check that the configured address is the search API itself/);
    reply = { status: 502, body: '', endless: true };
    const endlessError = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'x' });
    assert.equal(endlessError.error, 'SearXNG answered HTTP 502.');
  });

  it('reports answers that are not the expected JSON', async () => {
    reply = { status: 200, body: '<html>login</html>' };
    const notJson = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'x' });
    assert.match(notJson.error ?? '', /^SearXNG answered with something that is not JSON: <html>login/);
    reply = { status: 200, body: { results: 'nope' } };
    const wrongShape = await run(createWebSearchTool({ backend: 'searxng', url: base }), { query: 'x' });
    assert.match(wrongShape.error ?? '', /^SearXNG answered JSON of an unexpected shape/);
  });

  it('validates the configuration and its arguments', async () => {
    assert.ok(WebSearchConfigSchema().safeParse({ backend: 'searxng', url: 'http://localhost:8888' }).success);
    assert.equal(WebSearchConfigSchema().parse({ backend: 'brave' }).backend, 'brave');
    assert.ok(!WebSearchConfigSchema().safeParse({ backend: 'google' }).success);
    assert.ok(!WebSearchConfigSchema().safeParse({ backend: 'searxng' }).success);
    assert.ok(!WebSearchConfigSchema().safeParse({ backend: 'brave', apiKeyEnv: 'not a name' }).success);
    const tool = createWebSearchTool({ backend: 'searxng', url: base });
    assert.match((await run(tool, { query: '  ' })).error ?? '', /Invalid arguments for web_search: query:/);
    assert.match((await run(tool, { query: 'x', max_results: 21 })).error ?? '', /max_results:/);
    assert.equal(tool.kind, 'search');
    assert.equal(tool.summarize({ query: 'zod v4' }), 'zod v4');
  });
});
