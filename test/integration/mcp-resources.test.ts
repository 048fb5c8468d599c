/**
 * MCP resources: listed (every page, a bounded number of them), read, and
 * attached to a prompt as `@server:uri` (the CLI) or as a resource link
 * (an ACP client), with their hostile text capped and kept in its wrapper.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/adapters/cli/main';
import type { TextBlock, UserBlock } from '../../src/llm/types';
import { MAX_LIST_PAGES } from '../../src/mcp/list-pages';
import { McpServers } from '../../src/mcp/mcp-servers';
import { attachResources, MAX_ATTACHED_RESOURCES } from '../../src/mcp/resource-attachments';
import type { McpServerConfig } from '../../src/mcp/server-config';
import { SessionStore } from '../../src/session/session-store';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PermissionGate } from '../../src/tools/permissions';
import type { Tool } from '../../src/tools/tool';
import { startAcp } from '../support/crow-binary';
import { fakeIO } from '../support/fake-io';
import { trustFolder } from '../support/trust';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';
import { fixtureRunEnv, TSX_FIXTURE } from '../support/mcp-fixture';


function fixture(log: string, env: Record<string, string> = {}): McpServerConfig {
  const transport = { type: 'stdio' as const, command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: log, ...env } };
  return { name: 'fx', transport, permission: 'execute', source: 'config.toml' };
}

const said = (text: string): UserBlock[] => [{ type: 'text', text }];
const texts = (blocks: UserBlock[]): string[] => blocks.filter((block): block is TextBlock => block.type === 'text').map((block) => block.text);

describe('MCP resources', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;
  const open: McpServers[] = [];
  const signal = new AbortController().signal;

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-resources-')));
    log = join(scratch, 'fixture.log');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((set) => set.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  function servers(env: Record<string, string> = {}): McpServers {
    const set = new McpServers([fixture(log, env)], { cwd: scratch, report: (problem) => assert.fail(problem.message) });
    open.push(set);
    return set;
  }

  const logged = (line: string): number => readFileSync(log, 'utf8').split('\n').filter((entry) => entry === line).length;

  it('lists every page of resources and the templates, again only after the server says they changed', async () => {
    const set = servers();
    const listing = await set.resources('fx');
    assert.equal(listing.resources.length, 28);
    assert.deepEqual(listing.templates.map((template) => template.uriTemplate), ['fx://notes/{id}']);
    assert.equal(await set.resources('fx'), await set.resources('fx'));
    assert.equal(logged('request resources/list'), 3);
    const renote = (await set.tools()).find((tool) => tool.name === 'mcp__fx__renote')!;
    const ctx = { permissions: new PermissionGate({ policy: ALLOW_ALL }), signal, callId: 'c1', agentName: 'primary', supportsImages: true };
    assert.equal((await renote.run('{}', ctx as unknown as Parameters<Tool['run']>[1])).output, 'renoted');
    await new Promise((done) => setTimeout(done, 100));
    assert.equal((await set.resources('fx')).resources.length, 28);
    assert.equal(logged('request resources/list'), 6);
  });

  it('stops following a cursor that never ends', async () => {
    const listing = await servers({ MCP_FIXTURE_ENDLESS: '1' }).resources('fx');
    assert.equal(listing.resources.length, MAX_LIST_PAGES * 10);
  });

  it('attaches what @server:uri names, capped, in a wrapper its text cannot close, images as images', async () => {
    const set = servers();
    await set.tools();
    const prompt = 'Compare @fx:fx://notes/3, @fx:fx://hostile and @fx:fx://huge. Also @fx:fx://pixel and @fx:fx://nothing; @other:fx://notes/1 is no server.';
    const blocks = await attachResources(said(prompt), set, true, signal);
    const [asked, three, hostile, huge, pixel, nothing] = blocks;
    assert.equal(blocks.length, 6);
    assert.deepEqual(asked, said(prompt)[0]);
    assert.equal((three as TextBlock).text, '<mcp-resource server="fx" uri="fx://notes/3" mimeType="text/plain">\nnote number 3\n</mcp-resource>');
    const hostileText = (hostile as TextBlock).text;
    assert.equal(hostileText.match(/<\/mcp-resource>/g)?.length, 1, hostileText);
    assert.ok(hostileText.endsWith('rm -rf /\n</mcp-resource>'), 'the text stays inside its wrapper');
    assert.ok((huge as TextBlock).text.length < 51_000, `${(huge as TextBlock).text.length} characters attached`);
    assert.equal(pixel!.type, 'image');
    assert.match((nothing as TextBlock).text, /fx:\/\/nothing of server "fx" could not be read: .*no resource fx:\/\/nothing/);
    const blind = await attachResources(said('See @fx:fx://pixel'), set, false, signal);
    assert.match(texts(blind)[1]!, /binary \(image\/png, \d+ bytes\), which the model cannot read/);
  });

  it('attaches a link to a resource a server lists, and at most MAX_ATTACHED_RESOURCES in one prompt', async () => {
    const set = servers();
    const linked = await attachResources(said('Read [note 2](fx://notes/2) and [x](fx://notes/99) and [web](https://example.com/x)'), set, true, signal);
    assert.deepEqual(texts(linked).slice(1), ['<mcp-resource server="fx" uri="fx://notes/2" mimeType="text/plain">\nnote number 2\n</mcp-resource>']);
    const many = Array.from({ length: 25 }, (_, i) => `@fx:fx://notes/${i + 1}`).join(' ');
    assert.equal((await attachResources(said(many), set, true, signal)).length, 1 + MAX_ATTACHED_RESOURCES);
    assert.equal(logged('read fx://notes/11'), 0);
  });

  describe('through the doors', () => {
    let llm: FakeLlmServer;
    before(async () => {
      llm = await FakeLlmServer.start();
    });
    after(() => llm.close());
    beforeEach(() => llm.reset());

    it('crow run attaches @fx:uri from the prompt, and the trace records the read', async () => {
      const config = join(scratch, '.crow/config.toml');
      mkdirSync(dirname(config), { recursive: true });
      writeFileSync(config, `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(TSX_FIXTURE)}\nenv = ["MCP_FIXTURE_LOG"]\n`);
      const env = fixtureRunEnv(scratch, llm.anthropicBaseUrl, log);
      trustFolder(scratch, env);
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Seven.' }] });
      const io = fakeIO({ cwd: scratch, env });
      assert.equal(await main(['run', '--no-undo', 'Summarise @fx:fx://notes/7.'], io), 0, io.err());
      const sent = JSON.stringify(llm.requestsFor('anthropic')[0]!.body.messages.at(-1));
      assert.match(sent, /Summarise @fx:fx:\/\/notes\/7\./);
      assert.match(sent, /<mcp-resource server=\\"fx\\" uri=\\"fx:\/\/notes\/7\\" mimeType=\\"text\/plain\\">\\nnote number 7\\n<\/mcp-resource>/);
      const [session] = new SessionStore({ dataHome: join(scratch, 'data', 'crow-agent') }).list();
      const spans = new SessionStore({ dataHome: join(scratch, 'data', 'crow-agent') }).spans(session!.id);
      assert.ok(spans.some((span) => span.kind === 'mcp' && span.name === 'mcp resources/read fx' && span.attributes['crow.mcp.uri'] === 'fx://notes/7'));
    });

    it('crow acp reads a resource link the client sends through the server that lists it', async () => {
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Four.' }] });
      const crow = startAcp(scratch, scratch, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }, { capabilities: {}, permission: () => 'allow_once' });
      const { client } = crow;
      try {
        await client.initialize();
        const { sessionId } = await client.agent.request('session/new', {
          cwd: scratch,
          mcpServers: [{ name: 'fx', command: process.execPath, args: TSX_FIXTURE, env: [{ name: 'MCP_FIXTURE_LOG', value: log }] }],
        });
        const prompt = [
          { type: 'text' as const, text: 'What does this say?' },
          { type: 'resource_link' as const, uri: 'fx://notes/4', name: 'note 4' },
        ];
        const answer = (await client.agent.request('session/prompt', { sessionId, prompt })) as { stopReason: string };
        assert.equal(answer.stopReason, 'end_turn');
        assert.match(JSON.stringify(llm.requestsFor('anthropic')[0]!.body.messages.at(-1)), /note number 4/);
      } finally {
        assert.equal(await crow.stop(), 0, crow.stderr());
      }
    });
  });
});
