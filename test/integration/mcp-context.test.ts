/**
 * What Crow's MCP client offers servers besides calling tools: roots (the
 * session's workspace folders, and word when they change) and heed of
 * tools/list_changed, at the level of the session's servers and through
 * `crow acp` with a real client.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServers } from '../../src/mcp/mcp-servers';
import type { McpServerConfig } from '../../src/mcp/server-config';
import { SessionStore } from '../../src/session/session-store';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PermissionGate } from '../../src/tools/permissions';
import type { Tool } from '../../src/tools/tool';
import { startAcp } from '../support/crow-binary';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';
import { TSX_FIXTURE } from '../support/mcp-fixture';


function fixture(log: string): McpServerConfig {
  const transport = { type: 'stdio' as const, command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: log } };
  return { name: 'fx', transport, permission: 'execute', source: 'config.toml' };
}

function callContext(): Parameters<Tool['run']>[1] {
  const permissions = new PermissionGate({ policy: ALLOW_ALL });
  return { permissions, signal: new AbortController().signal, callId: 'c1', agentName: 'primary', supportsImages: true } as Parameters<Tool['run']>[1];
}

async function run(tools: readonly Tool[], name: string, args: Record<string, unknown> = {}): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === name);
  assert.ok(tool, `${name} among ${tools.map((t) => t.name).join(', ')}`);
  const result = await tool.run(JSON.stringify(args), callContext());
  assert.equal(result.error, undefined, result.error);
  return result.output;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, 20));
  }
}

const lines = (log: string): string[] => readFileSync(log, 'utf8').trim().split('\n');

describe('MCP client features: roots and list changes', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;
  const open: McpServers[] = [];

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-context-')));
    log = join(scratch, 'fixture.log');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((set) => set.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  function servers(options: Partial<ConstructorParameters<typeof McpServers>[1]> = {}): McpServers {
    const set = new McpServers([fixture(log)], { cwd: scratch, report: (problem) => assert.fail(problem.message), ...options });
    open.push(set);
    return set;
  }

  it('offers the workspace folders as file:// roots, and tells the server when they change', async () => {
    const other = join(scratch, 'other folder');
    mkdirSync(other);
    let folders = [scratch];
    const set = servers({ roots: () => folders });
    await set.checkRoots();
    const tools = await set.tools();
    assert.equal(await run(tools, 'mcp__fx__roots'), `roots: ${pathToFileURL(scratch).href}`);
    await set.checkRoots();
    assert.ok(!lines(log).includes('request notifications/roots/list_changed'), 'nothing changed, nothing said');
    folders = [scratch, other];
    await set.checkRoots();
    await until(() => lines(log).some((line) => line.includes('other%20folder')));
    assert.deepEqual(
      lines(log).filter((line) => line.startsWith('roots:') || line.startsWith('request notifications/roots')),
      [`roots: ${pathToFileURL(scratch).href}`, 'request notifications/roots/list_changed', `roots: ${pathToFileURL(scratch).href} ${pathToFileURL(other).href}`],
    );
    assert.ok(lines(log).includes('client roots capability: {"listChanged":true}'));
  });

  it('declares no roots when the session has none to give, and then refuses roots/list', async () => {
    const tools = await servers().tools();
    assert.ok(lines(log).includes('client roots capability: null'));
    const roots = tools.find((tool) => tool.name === 'mcp__fx__roots')!;
    const result = await roots.run('{}', callContext());
    assert.match(result.error ?? '', /Method not found|roots/i);
  });

  it('lists a server again after it says its tools changed, once however often it says so', async () => {
    const spans: string[] = [];
    const set = servers({ span: (name) => (spans.push(name), { traceId: '', spanId: '', set: () => undefined, child: () => assert.fail(), end: () => undefined }) });
    const first = await set.tools();
    assert.equal(await set.tools(), first, 'the same tools while nothing changed');
    assert.equal(await run(first, 'mcp__fx__add_tool', { name: 'late' }), 'added late');
    assert.equal(await run(first, 'mcp__fx__flood', { count: 500 }), 'flooded 500');
    const second = await set.tools();
    assert.equal(await run(second, 'mcp__fx__late'), 'late ran');
    await set.tools();
    assert.equal(lines(log).filter((line) => line === 'request tools/list').length, 2, 'listed at start and once after the flood');
    assert.deepEqual(spans, ['mcp tools/list fx']);
  });

  describe('through crow acp', () => {
    let llm: FakeLlmServer;
    before(async () => {
      llm = await FakeLlmServer.start();
    });
    after(() => llm.close());

    it('gives the server the session folder as its root, and the next prompt the tools the server added', async () => {
      llm.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'mcp__fx__roots', arguments: {} }] },
        { blocks: [{ type: 'tool_call', name: 'mcp__fx__add_tool', arguments: { name: 'late' } }] },
        { blocks: [{ type: 'tool_call', name: 'mcp__fx__flood', arguments: { count: 300 } }] },
        { blocks: [{ type: 'text', text: 'Done.' }] },
        { blocks: [{ type: 'tool_call', name: 'mcp__fx__late', arguments: {} }] },
        { blocks: [{ type: 'text', text: 'Ran it.' }] },
      );
      const crow = startAcp(scratch, scratch, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }, { capabilities: { session: { notices: {} } }, permission: () => 'allow_always' });
      const { client } = crow;
      try {
        await client.initialize();
        const { sessionId } = await client.agent.request('session/new', {
          cwd: scratch,
          mcpServers: [{ name: 'fx', command: process.execPath, args: TSX_FIXTURE, env: [{ name: 'MCP_FIXTURE_LOG', value: log }] }],
        });
        assert.equal((await client.prompt(sessionId, 'Add a tool')).stopReason, 'end_turn');
        assert.equal((await client.prompt(sessionId, 'Run it')).stopReason, 'end_turn');
        const requests = llm.requestsFor('anthropic').map((request) => request.body);
        assert.match(JSON.stringify(requests[1]!.messages.at(-1)), new RegExp(`roots: ${pathToFileURL(scratch).href}`));
        const toolNames = (n: number): string[] => (requests[n]!.tools as { name: string }[]).map((tool) => tool.name);
        assert.ok(!toolNames(3).includes('mcp__fx__late'), 'the toolset holds still within a prompt');
        assert.ok(toolNames(4).includes('mcp__fx__late'), toolNames(4).join());
        assert.match(JSON.stringify(requests[5]!.messages.at(-1)), /late ran/);
        assert.equal(lines(log).filter((line) => line === 'request tools/list').length, 2, 'one listing more for 300 notices');
        const spans = new SessionStore({ dataHome: join(scratch, 'data', 'crow-agent') }).spans(sessionId);
        const mcp = spans.filter((span) => span.kind === 'mcp').map((span) => span.name);
        assert.deepEqual(mcp, ['mcp roots/list fx', 'mcp tools/list fx']);
      } finally {
        assert.equal(await crow.stop(), 0, crow.stderr());
      }
    });
  });
});
