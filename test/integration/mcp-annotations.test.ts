/**
 * MCP tool annotations meet the permission gate, and structured output
 * reaches the model. The rule: a read-only tool (readOnlyHint) needs only
 * read when the person vouched for its server (their own config.toml, its
 * route not changed by the project's, permission left unset); a tool that
 * says it is destructive (destructiveHint) is asked every time, from any
 * server; no other hint loosens anything.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/adapters/cli/main';
import { McpServers } from '../../src/mcp/mcp-servers';
import type { McpServerConfig } from '../../src/mcp/server-config';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { AskFn, PermissionRequest } from '../../src/tools/permission-request';
import { PermissionGate } from '../../src/tools/permissions';
import type { Tool } from '../../src/tools/tool';
import { DEFAULT_POLICY, type PermissionPolicy } from '../../src/vocabulary/permission-types';
import { fakeIO } from '../support/fake-io';
import { trustFolder } from '../support/trust';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';
import { fixtureRunEnv, TSX_FIXTURE } from '../support/mcp-fixture';


function fixture(log: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  const transport = { type: 'stdio' as const, command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: log } };
  return { name: 'fx', transport, permission: 'execute', source: 'config.toml', ...overrides };
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe('MCP tool annotations and structured output', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;
  const open: McpServers[] = [];

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-hints-')));
    log = join(scratch, 'fixture.log');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((set) => set.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  async function toolsOf(config: McpServerConfig): Promise<Tool[]> {
    const set = new McpServers([config], { cwd: scratch, report: (problem) => assert.fail(problem.message) });
    open.push(set);
    return set.tools();
  }

  async function call(tools: readonly Tool[], name: string, policy: PermissionPolicy, ask?: AskFn, args: Record<string, unknown> = {}) {
    const tool = tools.find((candidate) => candidate.name === name)!;
    const permissions = new PermissionGate({ policy, ...(ask ? { ask } : {}) });
    const ctx = { permissions, signal: new AbortController().signal, callId: 'c1', agentName: 'primary', supportsImages: true };
    return tool.run(JSON.stringify(args), ctx as unknown as Parameters<Tool['run']>[1]);
  }

  it('runs a read-only tool of a vouched-for server as a read, and asks for the same tool of any other server', async () => {
    const asked: PermissionRequest[] = [];
    const ask: AskFn = async (request) => (asked.push(request), 'reject_once');
    const vouched = await toolsOf(fixture(log, { trustReadOnlyHints: true }));
    assert.equal((await call(vouched, 'mcp__fx__peek', DEFAULT_POLICY, ask)).output, 'peeked');
    assert.equal(asked.length, 0);
    const echo = await call(vouched, 'mcp__fx__echo', DEFAULT_POLICY, ask, { text: 'x' });
    assert.match(echo.error ?? '', /denied/, 'tools without the hint ask as configured');
    const other = await toolsOf(fixture(log));
    assert.match((await call(other, 'mcp__fx__peek', DEFAULT_POLICY, ask)).error ?? '', /denied/);
    assert.deepEqual(asked.map((request) => request.category), ['execute', 'execute']);
  });

  it('asks about a tool that says it is destructive every time, whatever the policy or an "always" answer', async () => {
    const asked: PermissionRequest[] = [];
    const tools = await toolsOf(fixture(log, { trustReadOnlyHints: true, permission: 'write' }));
    const always: AskFn = async (request) => (asked.push(request), 'allow_always');
    assert.equal((await call(tools, 'mcp__fx__wipe', ALLOW_ALL, always)).output, 'wiped');
    assert.equal((await call(tools, 'mcp__fx__wipe', ALLOW_ALL, always)).output, 'wiped');
    assert.equal(asked.length, 2);
    assert.match(asked[0]!.alwaysScope, /asked every time/);
    const unasked = await call(tools, 'mcp__fx__wipe', ALLOW_ALL);
    assert.match(unasked.error ?? '', /says it may destroy data.*nobody can be asked/);
    assert.equal(readFileSync(log, 'utf8').match(/wiped/g)?.length, 2);
  });

  it('shows structured content as JSON when no text comes with it, and caps it and long error text', async () => {
    const tools = await toolsOf(fixture(log));
    const small = await call(tools, 'mcp__fx__measure', ALLOW_ALL, undefined, { size: 3 });
    assert.deepEqual(JSON.parse(small.output), { count: 3, filler: 'xxx' });
    const big = await call(tools, 'mcp__fx__measure', ALLOW_ALL, undefined, { size: 300_000 });
    assert.ok(big.output.length < 60_000, `${big.output.length} characters reached the model`);
    const shout = await call(tools, 'mcp__fx__shout', ALLOW_ALL, undefined, { size: 300_000 });
    assert.ok((shout.error ?? '').length < 60_000, `${shout.error?.length} characters of error reached the model`);
  });

  describe('crow run', () => {
    let llm: FakeLlmServer;
    before(async () => {
      llm = await FakeLlmServer.start();
    });
    after(() => llm.close());
    beforeEach(() => llm.reset());

    const table = (name: string, extra = ''): string =>
      `[mcp_servers.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(TSX_FIXTURE)}\nenv = ["MCP_FIXTURE_LOG"]\n${extra}`;

    async function crowRun(args: string[]): Promise<string> {
      const env = fixtureRunEnv(scratch, llm.anthropicBaseUrl, log);
      trustFolder(scratch, env);
      const io = fakeIO({ cwd: scratch, env });
      assert.equal(await main(['run', '--no-undo', ...args], io), 0, io.err());
      return JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages.at(-1));
    }

    function callThen(tool: string): void {
      llm.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: tool, arguments: {} }] }, { blocks: [{ type: 'text', text: 'Done.' }] });
    }

    it("trusts the read-only hint of the user's own server, not of one the project's config.toml adds or reroutes", async () => {
      write(join(scratch, 'config/crow-agent/config.toml'), `${table('mine')}\n${table('rerouted')}`);
      write(join(scratch, '.crow/config.toml'), `${table('proj')}\n[mcp_servers.rerouted]\nargs = ${JSON.stringify([...TSX_FIXTURE, '--rerouted'])}\n`);
      callThen('mcp__mine__peek');
      assert.match(await crowRun(['Peek']), /peeked/);
      callThen('mcp__proj__peek');
      assert.match(await crowRun(['Peek']), /Permission needed for proj: peek .*pass --allow execute/);
      callThen('mcp__rerouted__peek');
      assert.match(await crowRun(['Peek']), /Permission needed for rerouted: peek/);
    });

    it('never lets --allow execute run a tool that says it is destructive when nobody can be asked', async () => {
      write(join(scratch, 'config/crow-agent/config.toml'), table('mine'));
      callThen('mcp__mine__wipe');
      assert.match(await crowRun(['--allow', 'execute', 'Wipe']), /says it may destroy data/);
      assert.doesNotMatch(readFileSync(log, 'utf8'), /wiped/);
    });
  });
});
