/**
 * MCP prompts as slash commands: /mcp__SERVER__PROMPT with its arguments in
 * the CLI and through crow acp (where they are offered as available
 * commands once the servers list them), the server's text capped.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/adapters/cli/main';
import type { TextBlock } from '../../src/llm/types';
import { type McpPrompt, promptArguments } from '../../src/mcp/mcp-prompts';
import { McpServers } from '../../src/mcp/mcp-servers';
import { expandMcpPrompt } from '../../src/mcp/prompt-commands';
import { SessionStore } from '../../src/session/session-store';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { startAcp } from '../support/crow-binary';
import { fakeIO } from '../support/fake-io';
import { trustFolder } from '../support/trust';
import { fixtureRunEnv, TSX_FIXTURE } from '../support/mcp-fixture';


describe('MCP prompts as slash commands', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-prompts-')));
    log = join(scratch, 'fixture.log');
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('takes arguments by name or in order, the last taking the rest, and says what it takes when one is missing or unknown', () => {
    const greet: McpPrompt = { name: 'greet', arguments: [{ name: 'name', required: true }, { name: 'mood' }] };
    assert.deepEqual(promptArguments(greet, 'Ann a cheerful one'), { name: 'Ann', mood: 'a cheerful one' });
    assert.deepEqual(promptArguments(greet, 'name="Ann Lee" mood=calm'), { name: 'Ann Lee', mood: 'calm' });
    assert.deepEqual(promptArguments(greet, '"Ann Lee"'), { name: 'Ann Lee' });
    assert.throws(() => promptArguments(greet, ''), /missing name; it takes name=… \(required\) mood=…/);
    assert.throws(() => promptArguments(greet, 'who=Ann'), /no argument "who"/);
    assert.throws(() => promptArguments({ name: 'plain' }, 'extra'), /takes no arguments/);
  });

  it("caps the server's text and marks its example answers, and leaves other slash commands alone", async () => {
    const transport = { type: 'stdio' as const, command: process.execPath, args: TSX_FIXTURE, env: {} };
    const servers = new McpServers([{ name: 'fx', transport, permission: 'execute', source: 'config.toml' }], { cwd: scratch, report: () => undefined });
    try {
      const signal = new AbortController().signal;
      const blocks = (await expandMcpPrompt([{ type: 'text', text: '/mcp__fx__long' }], servers, true, signal))!;
      const total = blocks.reduce((sum, block) => sum + (block as TextBlock).text.length, 0);
      assert.ok(total < 51_000, `${total} characters of prompt`);
      assert.equal((blocks[0] as TextBlock).text, "(The assistant, in the prompt's example:) An example answer.");
      assert.equal(await expandMcpPrompt([{ type: 'text', text: '/mcp__fx__nothing' }], servers, true, signal), undefined);
      assert.equal(await expandMcpPrompt([{ type: 'text', text: '/compact' }], servers, true, signal), undefined);
    } finally {
      await servers.close();
    }
  });

  describe('through the doors', () => {
    let llm: FakeLlmServer;
    before(async () => {
      llm = await FakeLlmServer.start();
    });
    after(() => llm.close());
    beforeEach(() => llm.reset());

    it('crow run sends the prompt the server gives, and refuses one missing an argument', async () => {
      const config = join(scratch, '.crow/config.toml');
      mkdirSync(dirname(config), { recursive: true });
      writeFileSync(config, `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(TSX_FIXTURE)}\n`);
      const env = fixtureRunEnv(scratch, llm.anthropicBaseUrl);
      trustFolder(scratch, env);
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello Ann!' }] });
      const io = fakeIO({ cwd: scratch, env });
      assert.equal(await main(['run', '--no-undo', '/mcp__fx__greet Ann cheerful'], io), 0, io.err());
      const sent = llm.requestsFor('anthropic')[0]!.body.messages.at(-1) as { content: { text: string }[] };
      assert.deepEqual(sent.content.map((block) => block.text), ['Greet Ann in a cheerful mood.']);
      const [session] = new SessionStore({ dataHome: join(scratch, 'data', 'crow-agent') }).list();
      const spans = new SessionStore({ dataHome: join(scratch, 'data', 'crow-agent') }).spans(session!.id);
      assert.ok(spans.some((span) => span.kind === 'mcp' && span.name === 'mcp prompts/get fx'));
      const missing = fakeIO({ cwd: scratch, env });
      assert.notEqual(await main(['run', '--no-undo', '/mcp__fx__greet'], missing), 0);
      assert.match(missing.err(), /\/mcp__fx__greet: missing name; it takes name=… \(required\) mood=…/);
      assert.equal(llm.requestsFor('anthropic').length, 1, 'nothing was sent for it');
    });

    it('crow acp offers the prompts as available commands once the servers list them, and runs one with its arguments', async () => {
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] }, { blocks: [{ type: 'text', text: 'Hello Bob!' }] });
      const crow = startAcp(scratch, scratch, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }, { capabilities: {}, permission: () => 'allow_once' });
      const { client } = crow;
      try {
        await client.initialize();
        const { sessionId } = await client.agent.request('session/new', {
          cwd: scratch,
          mcpServers: [{ name: 'fx', command: process.execPath, args: TSX_FIXTURE, env: [{ name: 'MCP_FIXTURE_LOG', value: log }] }],
        });
        assert.equal((await client.prompt(sessionId, 'Hello')).stopReason, 'end_turn');
        const latest = () => client.updates(sessionId, 'available_commands_update').at(-1)?.availableCommands ?? [];
        // Offered once the servers listed their prompts, which may come just after the prompt's answer.
        for (let waited = 0; !latest().some((command) => command.name === 'mcp__fx__greet') && waited < 5_000; waited += 20) {
          await new Promise((done) => setTimeout(done, 20));
        }
        const last = latest();
        const greet = last.find((command) => command.name === 'mcp__fx__greet');
        assert.deepEqual(greet, { name: 'mcp__fx__greet', description: 'MCP server "fx": Greets someone.', input: { hint: 'name=… (required) mood=…' } });
        assert.ok(last.some((command) => command.name === 'compact'), 'the folder commands stay offered');
        assert.equal((await client.prompt(sessionId, '/mcp__fx__greet name=Bob')).stopReason, 'end_turn');
        assert.match(JSON.stringify(llm.requestsFor('anthropic')[1]!.body.messages.at(-1)), /Greet Bob\./);
      } finally {
        assert.equal(await crow.stop(), 0, crow.stderr());
      }
    });
  });
});
