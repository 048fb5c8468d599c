import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import type { BrowserContext } from 'playwright-core';
import { WebSocket } from 'ws';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { type Bridge, startBridge } from '../support/acp-bridge';
import { TestClient } from '../support/acp-client';
import { CROW, runCrow, until } from '../support/crow-binary';
import { addAnotherUser, NO_OTHER_USER } from '../support/another-user';
import { isolatedEnv } from '../support/isolated-env';
import { groupRunning } from '../support/process-groups';
import { skipBecause } from '../support/skip-reasons';
import { CHROMIUM, launchChromium, NO_CHROMIUM } from './trace-viewer-chromium';

/** What happened to one connection attempt: the HTTP status of a refused upgrade, or the agent's first answer. */
function attempt(url: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_request, response) => {
      resolve(`refused ${response.statusCode}`);
      socket.terminate();
    });
    socket.on('error', (err) => resolve(`error ${err.message}`));
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })));
    socket.on('message', (data) => {
      resolve(`answered ${(JSON.parse(data.toString()) as { result?: { protocolVersion?: number } }).result?.protocolVersion}`);
      socket.close();
    });
  });
}

/** Waits for the bridge's stderr to say `pattern` (its pipe may lag behind the answers a client already has). */
async function logged(bridge: Bridge, pattern: RegExp): Promise<void> {
  await until(() => pattern.test(bridge.stderr()), `the bridge to log ${pattern}`).catch((err: Error) => {
    throw new Error(`${err.message}; it said:\n${bridge.stderr()}`);
  });
}

/** Whoever can reach the bridge's port — another local user, a web page in the user's browser — drives an agent acting as the user. */
describe('crow acp-bridge lets in only its own clients', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const bridges: Bridge[] = [];

  before(async () => {
    llm = await FakeLlmServer.start();
  });
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-bridge-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-bridge-ws-'));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, CROW_SANDBOX: 'off' });
  });
  afterEach(async () => {
    for (const bridge of bridges.splice(0)) {
      bridge.child.kill('SIGKILL');
      await bridge.exited;
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  async function bridge(...args: string[]): Promise<Bridge> {
    const started = await startBridge([...args, '--', process.execPath, CROW, 'acp'], env, workspace);
    bridges.push(started);
    return started;
  }

  it('prints a URL with a random token, and refuses clients without it or with another', async () => {
    const served = await bridge();
    assert.match(served.token ?? '', /^[\w-]{32}$/);
    assert.equal(await attempt(served.bare), 'refused 401');
    assert.equal(await attempt(`${served.bare}?token=${served.token}x`), 'refused 401');
    assert.equal(await attempt(served.bare, { authorization: 'Bearer guess-guess-guess' }), 'refused 401');
    await logged(served, /refused a connection from 127\.0\.0\.1: no token/);
    assert.doesNotMatch(served.stderr(), /agent pid/, 'no agent was started for them');
    assert.equal(await attempt(served.url), 'answered 1', 'the token in the URL lets in');
    assert.equal(await attempt(served.bare, { authorization: `Bearer ${served.token}` }), 'answered 1', 'and so does a Bearer header');
  });

  it('refuses a client whose Origin is not allowed, token or not', async () => {
    const served = await bridge();
    assert.equal(await attempt(served.url, { origin: 'http://evil.example' }), 'refused 403');
    await logged(served, /refused a connection from 127\.0\.0\.1: the page at http:\/\/evil\.example is not allowed \(allow it with --allow-origin http:\/\/evil\.example\)/);
    const allowing = await bridge('--allow-origin', 'http://tool.example:8080/');
    assert.equal(await attempt(allowing.url, { origin: 'http://evil.example' }), 'refused 403');
    assert.equal(await attempt(allowing.bare, { origin: 'http://tool.example:8080' }), 'refused 401', 'an allowed origin still needs the token');
    assert.equal(await attempt(allowing.url, { origin: 'http://tool.example:8080' }), 'answered 1');
  });

  it('reads the token from --token-file, printing no token', async () => {
    const file = join(home, 'bridge.token');
    writeFileSync(file, 'a-long-enough-secret-token-1234\n', { mode: 0o600 });
    const served = await bridge('--token-file', file);
    assert.equal(served.token, undefined);
    assert.match(served.stderr(), new RegExp(`on ws://127\\.0\\.0\\.1:\\d+/ \\(token from ${file}\\)`));
    assert.doesNotMatch(served.stderr(), /a-long-enough-secret/);
    assert.equal(await attempt(`${served.bare}?token=a-long-enough-secret-token-1234`), 'answered 1');
    writeFileSync(file, 'short\n');
    const refused = await runCrow(['acp-bridge', '--port', '0', '--token-file', file, '--', 'true'], env, workspace);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--token-file .* must hold one token of at least 16 characters and no spaces/);
  });

  it('refuses a Host header that does not name loopback (DNS rebinding), token or not', async () => {
    const served = await bridge();
    const port = new URL(served.bare).port;
    assert.equal(await attempt(served.url, { host: `rebind.example:${port}` }), 'refused 403');
    assert.equal(await attempt(served.url, { host: `127.0.0.1.nip.example:${port}` }), 'refused 403');
    assert.equal(await attempt(served.url, { host: `localhost:${Number(port) + 1}` }), 'refused 403', 'another port is another server');
    await logged(served, /refused a connection from 127\.0\.0\.1: the request names the host "rebind\.example:\d+", not the bridge's loopback address/);
    assert.equal(await attempt(served.url, { host: `LocalHost:${port}` }), 'answered 1');
    assert.equal(await attempt(served.url, { host: `127.0.0.1:${port}` }), 'answered 1');
  });

  it('slows a guesser: past a burst of refusals every attempt is refused unchecked (429), and the log says so instead of growing', async () => {
    const served = await bridge();
    const answers: string[] = [];
    for (let guess = 0; guess < 100 && !answers.includes('refused 429'); guess++) answers.push(await attempt(`${served.bare}?token=guess-${guess}`));
    assert.ok(answers.includes('refused 429'), `no attempt was refused unchecked: ${answers.join(', ')}`);
    assert.equal(answers.indexOf('refused 429'), 20, 'the first 20 refusals are answered as such');
    for (let more = 0; more < 80; more++) await attempt(`${served.bare}?token=more-${more}`);
    const lines = served.stderr().split('\n').filter((line) => line.includes('refused a connection'));
    assert.ok(lines.length < 60, `${lines.length} log lines for 100 refused attempts`);
    await logged(served, /too many refused connections in a short time \(is someone guessing the token\?\): every connection is refused for \d+ s/);
    // The budget refills: the right token gets in again (until then it is refused unchecked, like any other).
    const deadline = Date.now() + 15_000;
    for (let answer = await attempt(served.url); answer !== 'answered 1'; answer = await attempt(served.url)) {
      assert.equal(answer, 'refused 429');
      assert.ok(Date.now() < deadline, 'the right token was never let in again');
      await new Promise((done) => setTimeout(done, 250));
    }
  });

  it('refuses a token file others may read, another user\'s, or a link: whoever reads the token drives the agent', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'crow-bridge-token-'));
    const file = join(folder, 'bridge.token');
    const start = () => runCrow(['acp-bridge', '--port', '0', '--token-file', file, '--', 'true'], env, workspace);
    try {
      writeFileSync(file, 'a-long-enough-secret-token-1234\n');
      chmodSync(file, 0o644);
      const open = await start();
      assert.equal(open.code, 2, open.stderr);
      assert.match(open.stderr, /--token-file: .*bridge\.token can be used by other users \(mode 644\); whoever can read or change the token drives the agent as you\. Give a file of your own that only you can read \(chmod 600 /);
      chmodSync(file, 0o640);
      assert.equal((await start()).code, 2, 'group-readable too');
      chmodSync(file, 0o600);
      const link = join(folder, 'link.token');
      symlinkSync(file, link);
      const linked = await runCrow(['acp-bridge', '--port', '0', '--token-file', link, '--', 'true'], env, workspace);
      assert.equal(linked.code, 2, linked.stderr);
      assert.match(linked.stderr, /link\.token is a link/);
      if (NO_OTHER_USER) return;
      // Another local user's private file: theirs, so they can change it, and so can whoever they let.
      const other = addAnotherUser();
      try {
        chownSync(file, other.uid, other.gid);
        const theirs = await start();
        assert.equal(theirs.code, 2, theirs.stderr);
        assert.match(theirs.stderr, new RegExp(`bridge\\.token belongs to user ${other.uid}, not to you`));
      } finally {
        other.remove();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('stops an agent that writes a line without end, closing its client, and keeps a client\'s message to 64 MiB', async () => {
    const endless = join(workspace, 'endless-agent.js');
    writeFileSync(
      endless,
      [
        "process.stdout.on('error', () => process.exit(0));",
        "process.stdin.once('data', () => {",
        "  const chunk = Buffer.alloc(65536, 'a');",
        "  const pump = () => { while (process.stdout.write(chunk)); process.stdout.once('drain', pump); };",
        "  pump();",
        '});',
      ].join('\n'),
    );
    const served = await startBridge(['--', process.execPath, endless], env, workspace);
    bridges.push(served);
    const socket = new WebSocket(served.url);
    const closed = new Promise<[number, string]>((done) => socket.on('close', (code, reason) => done([code, reason.toString()])));
    await new Promise((done) => socket.on('open', done));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    const [code, reason] = await closed;
    assert.equal(code, 1011);
    assert.match(reason, /the agent exited/);
    await logged(served, /agent pid \d+ wrote a line of more than 64 MiB \(the most the bridge passes in one message\): stopping it/);

    const big = await bridge();
    const client = new WebSocket(big.url);
    const bigClosed = new Promise<number>((done) => client.on('close', (closeCode) => done(closeCode)));
    client.on('error', () => undefined);
    await new Promise((done) => client.on('open', done));
    client.send(Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    assert.equal(await bigClosed, 1009, 'a message over 64 MiB closes its connection');
  });

  describe('MCP servers that run a command, from a client', () => {
    const marker = () => join(workspace, 'pwned');
    const evil = () => ({ name: 'pwn', command: 'sh', args: ['-c', `touch ${marker()}`], env: [] });

    /** A connected, initialized client of `served`. */
    async function client(served: Bridge): Promise<TestClient> {
      const connected = new TestClient(createWebSocketStream(served.url, { WebSocket }));
      await connected.initialize();
      return connected;
    }

    it('are refused in session/new, session/load and session/resume, naming --allow-client-mcp; nothing runs', async () => {
      const served = await bridge();
      const connected = await client(served);
      try {
        const { sessionId } = await connected.newSession(workspace);
        for (const [method, params] of [
          ['session/new', { cwd: workspace, mcpServers: [evil()] }],
          ['session/load', { sessionId, cwd: workspace, mcpServers: [evil()] }],
          ['session/resume', { sessionId, cwd: workspace, mcpServers: [evil()] }],
        ] as const) {
          const refused = await connected.agent.request(method, params).then(
            () => undefined,
            (err: unknown) => err as { code: number; message: string },
          );
          assert.ok(refused, `${method} is refused`);
          assert.equal(refused.code, -32602);
          assert.match(refused.message, new RegExp(`^crow acp-bridge refuses MCP servers that run a command \\("pwn"\\) from its clients in ${method}: .*--allow-client-mcp`));
        }
        const http = await connected.agent.request('session/new', { cwd: workspace, mcpServers: [{ type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [] }] });
        assert.ok(http.sessionId, 'servers reached by URL pass');
        // The agent starts MCP servers for a prompt: none of the refused ones may start then.
        llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
        await connected.prompt(sessionId, 'Hi');
        await new Promise((done) => setTimeout(done, 300));
        assert.equal(existsSync(marker()), false, 'the command never ran');
        assert.match(served.stderr(), /refused a message: crow acp-bridge refuses MCP servers/);
      } finally {
        connected.close();
      }
    });

    it('pass with --allow-client-mcp (and then the command does run)', async () => {
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
      const served = await bridge('--allow-client-mcp');
      assert.match(served.stderr(), /warning: --allow-client-mcp/);
      const connected = await client(served);
      try {
        const { sessionId } = (await connected.agent.request('session/new', { cwd: workspace, mcpServers: [evil()] })) as { sessionId: string };
        // The agent starts its MCP servers for the first prompt.
        await connected.prompt(sessionId, 'Hi').catch(() => undefined);
        await until(() => existsSync(marker()), 'the client-given command to run');
      } finally {
        connected.close();
      }
    });

    it('are refused in any spelling JSON allows: the agent gets exactly what was checked', async () => {
      const served = await bridge();
      const socket = new WebSocket(served.url);
      const answers: string[] = [];
      socket.on('message', (data) => answers.push(data.toString()));
      await new Promise((done) => socket.on('open', done));
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
      socket.send(init);
      await until(() => answers.length === 1, 'initialize');
      const cwd = JSON.stringify(workspace);
      const command = JSON.stringify(evil().args[1]);
      // Escaped key names, a duplicate params whose last copy is harmless, a batch, and text that is not JSON.
      socket.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":${cwd},"\\u006dcpServers":[{"name":"a","\\u0063ommand":"sh","args":["-c",${command}],"env":[]}]}}`);
      socket.send(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":${cwd},"mcpServers":[{"name":"b","command":"sh","args":["-c",${command}],"env":[]}]},"params":{"cwd":${cwd},"mcpServers":[]}}`);
      socket.send(`[{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":${cwd},"mcpServers":[{"name":"c","command":"sh","args":["-c",${command}],"env":[]}]}}]`);
      socket.send(`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":${cwd},"mcpServers":[{"name":"d","command":"sh","args":["-c",${command}],"env":[],}],},}`);
      await until(() => answers.length >= 5, 'five answers').catch((err: Error) => {
        throw new Error(`${err.message}; got:\n${answers.join('\n')}\n${served.stderr()}`);
      });
      const byId = (id: number | null) => answers.map((text) => JSON.parse(text) as { id: number | null; result?: unknown; error?: { code: number } }).find((answer) => answer.id === id);
      assert.equal(byId(2)?.error?.code, -32602);
      assert.ok(byId(3)?.result, 'the agent got the message as checked: the last params, no server');
      assert.equal(byId(4)?.error?.code, -32602);
      assert.equal(byId(null)?.error?.code, -32700, 'not JSON: not passed on');
      socket.close();
      await new Promise((done) => setTimeout(done, 300));
      assert.equal(existsSync(marker()), false, 'no command ran');
    });
  });

  describe('a web page in Chromium, served from another port on this machine', () => {
    let browser: BrowserContext;
    let site: Server;
    let pageUrl: string;

    before(async function () {
      if (!existsSync(CHROMIUM)) skipBecause(this, NO_CHROMIUM);
      site = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>A page on the web</title><p>Nothing to see.</p>');
      });
      await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
      pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
      browser = await launchChromium(mkdtempSync(join(tmpdir(), 'crow-bridge-chromium-')));
    });
    after(async () => {
      await browser?.close();
      if (site) await new Promise((done) => site.close(done));
    });

    /** What the page gets when it opens `url` and asks to initialize. */
    async function fromPage(url: string): Promise<string> {
      const page = await browser.newPage();
      try {
        await page.goto(pageUrl);
        return await page.evaluate(
          (target) =>
            new Promise<string>((resolve) => {
              // The browser's own WebSocket (the name alone would be the ws package's, once compiled).
              const socket = new (globalThis as unknown as { WebSocket: typeof WebSocket }).WebSocket(target);
              socket.onopen = () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
              socket.onmessage = (event) => resolve(`answered ${String(event.data).slice(0, 40)}`);
              socket.onerror = () => resolve('failed');
            }),
          url,
        );
      } finally {
        await page.close();
      }
    }

    it('cannot drive the bridge: not without the token, not with it from a foreign origin', async () => {
      const served = await bridge();
      assert.equal(await fromPage(served.bare), 'failed');
      assert.equal(await fromPage(served.url), 'failed', 'even a page that learned the token');
      await until(() => served.stderr().match(new RegExp(`the page at ${pageUrl.slice(0, -1)} is not allowed`, 'g'))?.length === 2, 'both refusals logged');
      assert.doesNotMatch(served.stderr(), /agent pid/, 'no agent was started');
    });

    it('can, once the user allows its origin, and only with the token', async () => {
      const served = await bridge('--allow-origin', pageUrl);
      assert.equal(await fromPage(served.bare), 'failed');
      await logged(served, /refused a connection from 127\.0\.0\.1: no token/);
      assert.match(await fromPage(served.url), /^answered \{"jsonrpc":"2\.0","id":1,"result"/);
    });
  });

  for (const [signal, code] of [['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    it(`stops its agents and the commands they run on ${signal}, exiting ${code}`, async () => {
      const pidFile = join(workspace, 'command.pid');
      llm.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: `echo $$ > ${pidFile}; sleep 30` } }] }, { blocks: [{ type: 'text', text: 'Stopped.' }] });
      const served = await bridge();
      const connected = new TestClient(createWebSocketStream(served.url, { WebSocket }), { permission: () => 'allow_once' });
      let pgid: number | undefined;
      try {
        await connected.initialize();
        const { sessionId } = await connected.newSession(workspace);
        void connected.prompt(sessionId, 'Wait a while').catch(() => undefined);
        await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the command to start');
        pgid = Number(readFileSync(pidFile, 'utf8'));
        assert.ok(groupRunning(pgid));
        served.child.kill(signal);
        assert.equal(await served.exited, code, served.stderr());
        assert.equal(groupRunning(pgid), false, 'no sleep remains');
      } finally {
        connected.close();
        if (pgid !== undefined && groupRunning(pgid)) process.kill(-pgid, 'SIGKILL');
      }
    });
  }
});
