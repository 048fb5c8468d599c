import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { main } from '../../src/adapters/cli/main';
import { parseBaseAgent } from '../../src/config/agent-definitions';
import { resolveSettings } from '../../src/config/provider-config';
import { validateDocument } from '../../src/config/settings-file';
import { ScriptedProvider } from '../../src/llm/scripted';
import type { ToolResultItem } from '../../src/llm/types';
import type { McpProblem } from '../../src/mcp/mcp-connection';
import { McpServers } from '../../src/mcp/mcp-servers';
import { type McpServerConfig, serversFromSettings } from '../../src/mcp/server-config';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PermissionGate } from '../../src/tools/permissions';
import { DEFAULT_POLICY } from '../../src/vocabulary/permission-types';
import type { Tool } from '../../src/tools/tool';
import { startAcp } from '../support/crow-binary';
import { runTurn } from '../support/engine';
import { trustFolder } from '../support/trust';
import { fakeIO } from '../support/fake-io';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';
import { fixtureRunEnv, TSX_FIXTURE } from '../support/mcp-fixture';

const ROOT = resolve(__dirname, '../..');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** Node arguments that run the fixture from any folder (servers start in the session's workspace). */

/** The reference "everything" server from npm, over stdio. */
function everything(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  const transport = { type: 'stdio' as const, command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} };
  return { name: 'everything', transport, permission: 'execute', source: 'config.toml', ...overrides };
}

/** Our fixture server (echo, fail, crash, hang), logging to `log`. */
function fixture(log: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  const transport = { type: 'stdio' as const, command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: log } };
  return { name: 'fx', transport, permission: 'execute', source: 'config.toml', ...overrides };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** The reference server over streamable HTTP or SSE on a free port; resolves once it listens. */
async function everythingOverHttp(transport: 'streamableHttp' | 'sse'): Promise<{ url: string; child: ChildProcessWithoutNullStreams }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], { env: { PATH: process.env.PATH!, PORT: String(port) } });
  await new Promise<void>((done, fail) => {
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes(`port ${port}`)) done();
    });
    child.on('exit', (code) => fail(new Error(`server-everything exited with ${code}: ${said}`)));
  });
  return { url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`, child };
}

function named(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((candidate) => candidate.name === name);
  assert.ok(tool, `${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/** What a tool call runs with, as far as MCP tools use it. */
function callContext(permissions = new PermissionGate({ policy: ALLOW_ALL }), signal = new AbortController().signal): Parameters<Tool['run']>[1] {
  return { permissions, signal, callId: 'c1', agentName: 'primary', supportsImages: true } as Parameters<Tool['run']>[1];
}

/** What the model was sent as tool results in its `n`th request. */
function resultsSent(provider: ScriptedProvider, n: number): ToolResultItem[] {
  const message = provider.requests[n]!.messages.at(-1)!;
  assert.equal(message.role, 'tool_results');
  return message.results;
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('MCP servers as tools', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;
  let problems: McpProblem[];
  const open: McpServers[] = [];

  function servers(configs: McpServerConfig[]): McpServers {
    const set = new McpServers(configs, { cwd: scratch, report: (problem) => problems.push(problem), restartDelaysMs: [10, 10, 10] });
    open.push(set);
    return set;
  }

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-')));
    log = join(scratch, 'fixture.log');
    problems = [];
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((set) => set.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('reads [mcp_servers] from config.toml, global and project merged, and checks what a table may say', () => {
    mkdirSync(join(scratch, 'config/crow-agent'), { recursive: true });
    mkdirSync(join(scratch, '.crow'));
    const global = [
      '[mcp_servers.gh]',
      'url = "https://example.com/mcp"',
      'headers_env = { Authorization = "GH_MCP_AUTH" }',
      'permission = "network"',
      '[mcp_servers.fs]',
      'command = "npx"',
      'args = ["-y", "fs-server"]',
      'env = ["FS_ROOT", "UNSET_ONE"]',
    ];
    writeFileSync(join(scratch, 'config/crow-agent/config.toml'), `${global.join('\n')}\n`);
    writeFileSync(join(scratch, '.crow/config.toml'), '[mcp_servers.gh]\nenabled = false\n[mcp_servers.fs]\ntool_timeout_sec = 5\n');
    const settings = resolveSettings(scratch, {}, { XDG_CONFIG_HOME: join(scratch, 'config'), FS_ROOT: '/srv' });
    assert.deepEqual(settings.mcpServers, {
      gh: { url: 'https://example.com/mcp', headersEnv: { Authorization: 'GH_MCP_AUTH' }, permission: 'network', enabled: false },
      fs: { command: 'npx', args: ['-y', 'fs-server'], env: ['FS_ROOT', 'UNSET_ONE'], toolTimeoutSec: 5 },
    });
    assert.deepEqual(serversFromSettings(settings.mcpServers, { FS_ROOT: '/srv' }), [
      { name: 'fs', transport: { type: 'stdio', command: 'npx', args: ['-y', 'fs-server'], env: { FS_ROOT: '/srv' } }, permission: 'execute', trustReadOnlyHints: true, source: 'config.toml', toolTimeoutMs: 5000 },
    ]);
    const invalid = validateDocument('config.toml', {
      mcp_servers: {
        both: { command: 'x', url: 'http://h/mcp' },
        leak: { url: 'http://h/mcp', headers_env: { Authorization: 'sk-live-0123456789abcdef0123' } },
      },
    });
    assert.deepEqual(invalid.problems.map((problem) => problem.field), ['mcp_servers.both.url', 'mcp_servers.leak.headers_env.Authorization']);
    const file = { path: 'narrow.md', stem: 'narrow', text: '---\ntools: [read_file, "mcp:gh", "mcp:fs:read", "mcp:"]\n---\n' };
    assert.deepEqual(parseBaseAgent(file, ['read_file']).problems.map((problem) => problem.field), ['tools[3]']);
  });

  it('offers a stdio server\'s tools under namespaced names with their own schemas, and the model reaches them', async () => {
    const tools = await servers([everything()]).tools();
    const sum = named(tools, 'mcp__everything__get-sum');
    assert.ok(tools.every((tool) => /^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)));
    assert.match(sum.description, /^MCP server "everything": Returns the sum/);
    assert.deepEqual(sum.inputSchema.required, ['a', 'b']);
    assert.equal((sum.inputSchema.properties as Record<string, { type: string }>).a!.type, 'number');

    const provider = new ScriptedProvider([{ toolCalls: [{ name: sum.name, arguments: { a: 2, b: 3 } }] }, { text: 'Five.' }]);
    const run = await runTurn(provider, tools, 'Add 2 and 3', { permissions: new PermissionGate({ policy: ALLOW_ALL }) });
    assert.equal(run.result.stopReason, 'answered');
    assert.deepEqual(provider.requests[0]!.tools.find((spec) => spec.name === sum.name)?.inputSchema, sum.inputSchema);
    assert.deepEqual(resultsSent(provider, 1).map((r) => [r.content, r.isError]), [['The sum of 2 and 3 is 5.', false]]);
  });

  it('talks streamable HTTP and SSE: images come back as images, resource links name their URI', async () => {
    const [http, sse] = await Promise.all([everythingOverHttp('streamableHttp'), everythingOverHttp('sse')]);
    try {
      const tools = await servers([
        { name: 'web', transport: { type: 'http', url: http.url, headers: {} }, permission: 'read', source: 'client' },
        { name: 'old', transport: { type: 'sse', url: sse.url, headers: {} }, permission: 'read', source: 'client' },
      ]).tools();
      const provider = new ScriptedProvider([
        {
          toolCalls: [
            { name: 'mcp__web__get-tiny-image', arguments: {} },
            { name: 'mcp__web__get-resource-links', arguments: { count: 2 } },
            { name: 'mcp__old__echo', arguments: { message: 'over SSE' } },
          ],
        },
        { text: 'Seen.' },
      ]);
      await runTurn(provider, tools, 'Show me', { permissions: new PermissionGate({ policy: DEFAULT_POLICY }) });
      const [image, links, echo] = resultsSent(provider, 1);
      assert.equal(image!.isError, false);
      assert.deepEqual(image!.images?.map((block) => block.mimeType), ['image/png']);
      assert.ok((image!.images?.[0]?.data.length ?? 0) > 100, 'the image data, base64');
      assert.match(links!.content, /Resource: .* <demo:\/\/resource\/dynamic\/\w+\/1>/);
      assert.equal(echo!.content, 'Echo: over SSE');
    } finally {
      http.child.kill();
      sse.child.kill();
    }
  });

  it('turns isError results and refused arguments into error results the model reads', async () => {
    const tools = await servers([fixture(log), everything()]).tools();
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'mcp__fx__fail', arguments: {} }, { name: 'mcp__everything__get-sum', arguments: { a: 'two' } }] },
      { text: 'Both failed.' },
    ]);
    await runTurn(provider, tools, 'Try', { permissions: new PermissionGate({ policy: ALLOW_ALL }) });
    const [failed, refused] = resultsSent(provider, 1);
    assert.deepEqual([failed!.isError, failed!.content], [true, 'Error: the fixture failed on purpose']);
    assert.equal(refused!.isError, true);
    assert.match(refused!.content, /expected number/);
  });

  it('asks before running (denied with nobody to ask), runs when the policy allows, and a read server needs no asking', async () => {
    const tools = await servers([fixture(log), fixture(log, { name: 'trusted', permission: 'read' })]).tools();
    const echo = named(tools, 'mcp__fx__echo');
    const denied = await echo.run('{"text":"hi"}', callContext(new PermissionGate({ policy: DEFAULT_POLICY })));
    assert.equal(denied.status, 'error');
    assert.match(denied.error!, /Permission needed for fx: echo \{"text":"hi"\}/);
    const allowed = await echo.run('{"text":"hi"}', callContext(new PermissionGate({ policy: DEFAULT_POLICY }).forcing({ execute: 'allow' })));
    assert.deepEqual([allowed.status, allowed.output], ['success', 'fixture echo: hi']);
    const trusted = await named(tools, 'mcp__trusted__echo').run('{"text":"ok"}', callContext(new PermissionGate({ policy: DEFAULT_POLICY })));
    assert.equal(trusted.status, 'success');
  });

  it('restarts a server that crashed, reporting it once', async () => {
    const tools = await servers([fixture(log)]).tools();
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'mcp__fx__crash', arguments: {} }] },
      { toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'back' } }] },
      { toolCalls: [{ name: 'mcp__fx__crash', arguments: {} }] },
      { toolCalls: [{ name: 'mcp__fx__echo', arguments: { text: 'again' } }] },
      { text: 'Done.' },
    ]);
    await runTurn(provider, tools, 'Crash it', { permissions: new PermissionGate({ policy: ALLOW_ALL }) });
    const results = [1, 2, 3, 4].map((n) => resultsSent(provider, n)[0]!);
    assert.match(results[0]!.content, /MCP server "fx" stopped while running crash .*restarted on the next call/);
    assert.deepEqual(results[1], { ...results[1], isError: false, content: 'fixture echo: back' });
    assert.equal(results[2]!.isError, true);
    assert.equal(results[3]!.content, 'fixture echo: again');
    assert.equal(readFileSync(log, 'utf8').match(/started/g)?.length, 3, 'started, then restarted twice');
    assert.equal(problems.length, 1);
    assert.match(problems[0]!.message, /^MCP server "fx" stopped unexpectedly .*crashing on purpose.*restarted on the next call/);
  });

  it('gives up on a server whose restarts keep failing, and says so once', async () => {
    const config = fixture(log);
    const transport = { ...config.transport, env: { MCP_FIXTURE_ONCE: join(scratch, 'once') } } as McpServerConfig['transport'];
    const tools = await servers([{ ...config, transport }]).tools();
    const ctx = callContext();
    assert.match((await named(tools, 'mcp__fx__crash').run('{}', ctx)).error!, /stopped while running crash/);
    const gaveUp = await named(tools, 'mcp__fx__echo').run('{"text":"hi"}', ctx);
    assert.match(gaveUp.error!, /^MCP server "fx" is unavailable: it stopped, and 3 restarts in a row failed \(last: .*refusing to start again\)\. Its tools are unavailable in this session/);
    assert.equal((await named(tools, 'mcp__fx__echo').run('{"text":"hi"}', ctx)).error, gaveUp.error);
    assert.deepEqual(problems.map((problem) => /stopped unexpectedly|is unavailable/.exec(problem.message)?.[0]), ['stopped unexpectedly', 'is unavailable']);
  });

  it('reports a server that cannot start once, and the session goes on with the others', async () => {
    const configured = serversFromSettings(
      {
        missing: { command: 'crow-no-such-mcp-server' },
        secret: { url: 'http://127.0.0.1:9/mcp', headersEnv: { Authorization: 'CROW_TEST_UNSET_TOKEN' } },
        off: { command: 'crow-no-such-mcp-server', enabled: false },
      },
      {},
    );
    const set = servers([...configured, fixture(log)]);
    const tools = await set.tools();
    assert.deepEqual(await set.tools(), tools, 'listed once per session');
    assert.deepEqual(tools.map((tool) => tool.name), ['mcp__fx__echo', 'mcp__fx__fail', 'mcp__fx__crash', 'mcp__fx__hang', 'mcp__fx__steps', 'mcp__fx__add_tool', 'mcp__fx__flood', 'mcp__fx__roots', 'mcp__fx__peek', 'mcp__fx__wipe', 'mcp__fx__measure', 'mcp__fx__shout', 'mcp__fx__touch', 'mcp__fx__renote']);
    const said = Object.fromEntries(problems.map((problem) => [problem.server, problem.message]));
    assert.deepEqual(Object.keys(said).sort(), ['missing', 'secret']);
    assert.equal(problems.length, 2);
    assert.match(said.missing!, /^MCP server "missing" could not start: spawn crow-no-such-mcp-server ENOENT\. .*fix \[mcp_servers\.missing\] in config\.toml/);
    assert.match(said.secret!, /header Authorization .* CROW_TEST_UNSET_TOKEN, which is not set/);
  });

  it('cancels a hanging call on abort, and turns a timeout into an error result', async () => {
    const tools = await servers([fixture(log, { toolTimeoutMs: 300 })]).tools();
    const hang = named(tools, 'mcp__fx__hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await hang.run('{}', callContext(undefined, controller.signal));
    assert.equal(cancelled.status, 'cancelled');
    await until(() => existsSync(log) && readFileSync(log, 'utf8').includes('cancelled hang'));
    const timedOut = await hang.run('{}', callContext());
    assert.equal(timedOut.status, 'error');
    assert.match(timedOut.error!, /MCP server "fx" did not answer hang, nor report progress, within 0.3 s \(tool_timeout_sec\); the call was cancelled\. Raise tool_timeout_sec/);
  });

  describe('crow run with [mcp_servers] in config.toml', () => {
    let llm: FakeLlmServer;
    before(async () => {
      llm = await FakeLlmServer.start();
    });
    after(() => llm.close());
    beforeEach(() => llm.reset());

    function write(path: string, text: string): void {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }

    async function crowRun(args: string[]): Promise<{ code: number; err: string }> {
      const env = fixtureRunEnv(scratch, llm.anthropicBaseUrl, log);
      trustFolder(scratch, env);
      const io = fakeIO({ cwd: scratch, env });
      const code = await main(['run', '--no-undo', ...args], io);
      return { code, err: io.err() };
    }

    beforeEach(() => {
      const args = JSON.stringify(TSX_FIXTURE);
      write(join(scratch, '.crow/config.toml'), `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${args}\nenv = ["MCP_FIXTURE_LOG"]\n`);
      write(join(scratch, '.crow/agents/base/narrow.md'), '---\ndescription: Only echo\ntools: [read_file, "mcp:fx:echo"]\n---\nYou echo.\n');
      write(join(scratch, '.crow/agents/acp/narrow.md'), '---\ndescription: Only echo\nprimary: narrow\nflow: hitl\n---\n');
    });

    it('gives every agent the servers\' tools, asks before running them, and runs them when allowed', async () => {
      llm.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'mcp__fx__echo', arguments: { text: 'one' } }] },
        { blocks: [{ type: 'text', text: 'Denied.' }] },
        { blocks: [{ type: 'tool_call', name: 'mcp__fx__echo', arguments: { text: 'two' } }] },
        { blocks: [{ type: 'text', text: 'Echoed.' }] },
      );
      const denied = await crowRun(['Echo one']);
      assert.equal(denied.code, 0, denied.err);
      const allowed = await crowRun(['--allow', 'execute', 'Echo two']);
      assert.equal(allowed.code, 0, allowed.err);
      const [first, second, third, fourth] = llm.requestsFor('anthropic').map((request) => request.body);
      const toolNames = (first.tools as { name: string }[]).map((tool) => tool.name);
      assert.ok(['read_file', 'bash', 'mcp__fx__echo', 'mcp__fx__fail', 'mcp__fx__hang'].every((name) => toolNames.includes(name)), toolNames.join());
      assert.match(JSON.stringify(second.messages.at(-1)), /Permission needed for fx: echo .*pass --allow execute/);
      assert.equal(third.tools.length, first.tools.length);
      assert.match(JSON.stringify(fourth.messages.at(-1)), /fixture echo: two/);
      assert.match(readFileSync(log, 'utf8'), /started/, 'the variable named in env reached the server');
    });

    it('gives an agent whose definition lists tools only the MCP tools it names', async () => {
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
      const run = await crowRun(['--agent', 'narrow', 'Hello']);
      assert.equal(run.code, 0, run.err);
      const tools = llm.requestsFor('anthropic')[0]!.body.tools as { name: string }[];
      assert.deepEqual(tools.map((tool) => tool.name), ['read_file', 'mcp__fx__echo']);
    });

    it('warns about a server that cannot start and runs without it', async () => {
      write(join(scratch, '.crow/config.toml'), '[mcp_servers.gone]\ncommand = "crow-no-such-mcp-server"\n');
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
      const run = await crowRun(['Hello']);
      assert.equal(run.code, 0, run.err);
      assert.equal(run.err.match(/crow: warning: MCP server "gone" could not start/g)?.length, 1, run.err);
    });
  });

  describe('crow acp with mcpServers from the client', () => {
    let llm: FakeLlmServer;
    before(async () => {
      llm = await FakeLlmServer.start();
    });
    after(() => llm.close());

    it('advertises MCP over HTTP and SSE, and gives the session the servers of session/new', async () => {
      llm.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'mcp__ref__echo', arguments: { message: 'hello' } }] },
        { blocks: [{ type: 'text', text: 'It echoed.' }] },
      );
      const crow = startAcp(scratch, scratch, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }, { capabilities: { session: { notices: {} } }, permission: () => 'allow_once' });
      const { client } = crow;
      try {
        const init = await client.initialize();
        assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
        const { sessionId } = await client.agent.request('session/new', {
          cwd: scratch,
          mcpServers: [
            { name: 'ref', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] },
            { type: 'http', name: 'down', url: 'http://127.0.0.1:9/mcp', headers: [] },
          ],
        });
        assert.equal((await client.prompt(sessionId, 'Echo hello')).stopReason, 'end_turn');
        const followUp = llm.requestsFor('anthropic')[1]!.body;
        assert.match(JSON.stringify(followUp.messages.at(-1)), /Echo: hello/);
        assert.equal(client.permissionRequests.length, 1, 'MCP tools ask first');
        // A slow start may also bring an info notice ("Starting MCP servers…"): the problem is the warning.
        const notices = client.updates(sessionId, 'notice').filter((notice) => notice.severity === 'warning');
        assert.deepEqual(notices.map((notice) => notice.title), ['MCP server "down" has a problem']);
        assert.match(notices[0]!.description ?? '', /could not start: .*check its settings in your editor/);
        assert.match(crow.stderr(), /MCP server "down" could not start/);
      } finally {
        assert.equal(await crow.stop(), 0, crow.stderr());
      }
    });
  });
});
