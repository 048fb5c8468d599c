/**
 * Resource subscriptions: a resource a prompt attaches from a server that
 * offers subscriptions is watched; however many notifications/resources/updated
 * the server sends, the next prompt attaches the changed resource once, with
 * a line saying it changed; closing the session unsubscribes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TextBlock, UserBlock } from '../../src/llm/types';
import { McpServers } from '../../src/mcp/mcp-servers';
import { attachResources, refreshedResources } from '../../src/mcp/resource-attachments';
import type { McpServerConfig } from '../../src/mcp/server-config';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PermissionGate } from '../../src/tools/permissions';
import type { Tool } from '../../src/tools/tool';
import { startAcp } from '../support/crow-binary';
import { call, say } from '../support/mcp-ask-harness';
import { TSX_FIXTURE } from '../support/mcp-fixture';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';

const texts = (blocks: UserBlock[]): string[] => blocks.filter((block): block is TextBlock => block.type === 'text').map((block) => block.text);

describe('MCP resource subscriptions', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;
  const signal = new AbortController().signal;

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-subscribe-')));
    log = join(scratch, 'fixture.log');
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  const logged = (line: string): number => readFileSync(log, 'utf8').split('\n').filter((entry) => entry === line).length;
  const until = async (condition: () => boolean): Promise<void> => {
    for (let waited = 0; !condition(); waited += 20) {
      if (waited > 5_000) throw new Error('timed out');
      await new Promise((done) => setTimeout(done, 20));
    }
  };

  it('marks a watched resource on a flood of notices, attaches it once at the next prompt, and unsubscribes on close', async () => {
    const config: McpServerConfig = { name: 'fx', transport: { type: 'stdio', command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: log } }, permission: 'execute', source: 'config.toml' };
    const servers = new McpServers([config], { cwd: scratch, report: (problem) => assert.fail(problem.message) });
    try {
      await attachResources([{ type: 'text', text: 'Read @fx:fx://notes/5' }], servers, true, signal);
      await until(() => logged('subscribe fx://notes/5') === 1);
      assert.deepEqual(await refreshedResources(servers, true, signal), [], 'nothing changed yet');
      const touch = (await servers.tools()).find((tool) => tool.name === 'mcp__fx__touch')!;
      const ctx = { permissions: new PermissionGate({ policy: ALLOW_ALL }), signal, callId: 'c1', agentName: 'primary', supportsImages: true } as unknown as Parameters<Tool['run']>[1];
      const started = process.hrtime.bigint();
      assert.equal((await touch.run(JSON.stringify({ uri: 'fx://notes/5', times: 20_000 }), ctx)).output, 'touched fx://notes/5 20000 times');
      const floodMs = Number(process.hrtime.bigint() - started) / 1e6;
      assert.ok(floodMs < 10_000, `20,000 notices took ${floodMs} ms`);
      if (process.env.CROW_MEASURE) console.log(`20,000 notices: ${floodMs.toFixed(0)} ms`);
      const refreshed = texts(await refreshedResources(servers, true, signal));
      assert.deepEqual(refreshed, [
        '[The MCP resource fx://notes/5 of server "fx", attached earlier in this conversation, changed since; this is its content now:]',
        '<mcp-resource server="fx" uri="fx://notes/5" mimeType="text/plain">\nnote number 5 (version 1)\n</mcp-resource>',
      ]);
      assert.deepEqual(await refreshedResources(servers, true, signal), [], 'once, however many notices came');
      assert.equal(logged('read fx://notes/5'), 2, 'read when attached and once after the flood');
      // A notice for a resource nobody attached marks nothing.
      await touch.run(JSON.stringify({ uri: 'fx://notes/9', times: 3 }), ctx);
      assert.deepEqual(await refreshedResources(servers, true, signal), []);
      // Attached again by the prompt itself: read then, not twice.
      await touch.run(JSON.stringify({ uri: 'fx://notes/5', times: 2 }), ctx);
      await attachResources([{ type: 'text', text: 'Again @fx:fx://notes/5' }], servers, true, signal);
      assert.deepEqual(await refreshedResources(servers, true, signal), []);
      assert.equal(logged('subscribe fx://notes/5'), 1, 'subscribed once');
    } finally {
      await servers.close();
    }
    assert.equal(logged('unsubscribe fx://notes/5'), 1);
  });

  describe('crow acp', () => {
    let llm: FakeLlmServer;
    before(async () => (llm = await FakeLlmServer.start()));
    after(() => llm.close());

    it('attaches a resource the server changed during one prompt at the next, once, and unsubscribes when the session ends', async () => {
      llm.enqueue('anthropic', call('mcp__fx__touch', { uri: 'fx://notes/5', times: 10_000 }), say('Touched.'), say('It changed.'), say('Nothing new.'));
      const crow = startAcp(scratch, scratch, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }, { capabilities: {}, permission: () => 'allow_once' });
      const { client } = crow;
      try {
        await client.initialize();
        const { sessionId } = await client.agent.request('session/new', {
          cwd: scratch,
          mcpServers: [{ name: 'fx', command: process.execPath, args: TSX_FIXTURE, env: [{ name: 'MCP_FIXTURE_LOG', value: log }] }],
        });
        assert.equal((await client.prompt(sessionId, 'Read @fx:fx://notes/5 and change it')).stopReason, 'end_turn');
        assert.equal((await client.prompt(sessionId, 'What changed?')).stopReason, 'end_turn');
        const second = JSON.stringify(llm.requestsFor('anthropic')[2]!.body.messages.at(-1));
        assert.equal(second.match(/changed since; this is its content now/g)?.length, 1, second);
        assert.match(second, /note number 5 \(version 1\)/);
        assert.equal((await client.prompt(sessionId, 'Anything else?')).stopReason, 'end_turn');
        assert.doesNotMatch(JSON.stringify(llm.requestsFor('anthropic')[3]!.body.messages.at(-1)), /changed since/);
      } finally {
        assert.equal(await crow.stop(), 0, crow.stderr());
      }
      assert.equal(logged('unsubscribe fx://notes/5'), 1);
    });
  });
});
