/**
 * The VS Code chat's suggestions as the person types, host side, driven as
 * the webview drives it: `/` lists the folder's commands and the MCP
 * servers' prompts (starting the servers before any prompt has), `@` lists
 * the servers' resources as mentions that attach them, a word filters, a
 * server's names reach the view with their control characters made
 * visible, and a picked mention really attaches the resource.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { globalConfigPath } from '../../src/config/settings-file';
import { MAX_SUGGESTIONS } from '../../src/host/composer-offers';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { isWebviewMessage } from '../../webview/chat/message-checks';
import type { HostMessage, Suggestion } from '../../webview/chat/protocol';
import { folderChatHost } from '../support/chat-host';
import { isolatedEnv } from '../support/isolated-env';
import { TSX_FIXTURE } from '../support/mcp-fixture';
import { quietViewActions } from '../support/view-actions';

describe('VS Code chat: suggestions while typing a prompt', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let posted: HostMessage[];
  let chat: ChatController | undefined;

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-chat-suggest-'));
    root = join(home, 'project');
    mkdirSync(join(root, '.crow', 'commands'), { recursive: true });
    writeFileSync(join(root, '.crow', 'commands', 'review.md'), '---\ndescription: Reviews the change\n---\nReview $ARGUMENTS\n');
    posted = [];
  });
  afterEach(async () => {
    await chat?.dispose().catch(() => undefined);
    chat = undefined;
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  /** A chat whose user configuration has the MCP fixture server as "fx" (unless `servers` is false). */
  function controller(servers = true): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'k' });
    const config = globalConfigPath(env);
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, servers ? `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(TSX_FIXTURE)}\npermission = "read"\n` : '');
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', baseUrls: { openai: server.openaiBaseUrl } };
    chat = new ChatController(folderChatHost(root, env, (key) => settings[key]), (message) => posted.push(structuredClone(message)), quietViewActions());
    return chat;
  }

  async function suggest(trigger: '/' | '@', query: string): Promise<Suggestion[]> {
    await chat!.handle({ type: 'suggest', trigger, query });
    const answer = posted.findLast((message) => message.type === 'suggestions');
    assert.ok(answer && answer.type === 'suggestions' && answer.trigger === trigger && answer.query === query, 'the answer names what it answers');
    return answer.items;
  }

  it("`/` lists the folder's commands and the MCP servers' prompts before any prompt ran; a word filters", async () => {
    controller();
    const all = await suggest('/', '');
    const labels = all.map((item) => item.label);
    assert.ok(labels.includes('/review'), labels.join(' '));
    assert.ok(labels.includes('/mcp__fx__greet'), labels.join(' '));
    assert.deepEqual(all.find((item) => item.label === '/mcp__fx__greet'), {
      label: '/mcp__fx__greet',
      insert: '/mcp__fx__greet ',
      detail: 'MCP server "fx": Greets someone. (name=… (required) mood=…)',
    });
    assert.deepEqual((await suggest('/', 'GRE')).map((item) => item.label), ['/mcp__fx__greet']);
    assert.equal(server.requestsFor('openai').length, 0, 'no prompt ran');
  });

  it('`@` lists the resources as mentions, at most MAX_SUGGESTIONS; a mention picked attaches the resource', async () => {
    controller();
    const all = await suggest('@', '');
    assert.ok(all.length > 20 && all.length <= MAX_SUGGESTIONS);
    const note = (await suggest('@', 'note 7')).at(0);
    assert.deepEqual(note, { label: 'note 7', insert: '@fx:fx://notes/7 ', detail: 'fx · fx://notes/7' });
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Read it.' }] });
    await chat!.handle({ type: 'send', text: `Summarise ${note!.insert}` });
    assert.match(JSON.stringify(server.requestsFor('openai')[0]!.body), /note number 7/);
  });

  it("completes a prompt's argument as it is typed, through the server's completion/complete, narrowed by those before it", async () => {
    controller();
    assert.deepEqual(await suggest('/', 'mcp__fx__review p'), [
      { label: 'python', insert: 'python ', detail: 'language: the language to review' },
      { label: 'perl', insert: 'perl ', detail: 'language: the language to review' },
      { label: 'php', insert: 'php ', detail: 'language: the language to review' },
    ]);
    assert.deepEqual((await suggest('/', 'mcp__fx__review python ')).map((item) => item.insert), ['pep8 ', 'black ']);
    assert.deepEqual((await suggest('/', 'mcp__fx__review language=python style=b')).map((item) => item.insert), ['style=black ']);
    assert.deepEqual((await suggest('/', 'mcp__fx__review language=python s')).map((item) => item.insert), ['style=']);
    assert.deepEqual(await suggest('/', 'review the auth module'), [], 'a command that is no MCP prompt completes nothing');
    // The server's value with a terminal escape comes back with the escape shown, not sent raw.
    assert.deepEqual((await suggest('/', 'mcp__fx__review r')).map((item) => item.label), ['rust\\u001b[2J']);
  });

  it('offers nothing for `@` in a folder without servers, and the folder\'s commands for `/`', async () => {
    controller(false);
    assert.deepEqual(await suggest('@', ''), []);
    const labels = (await suggest('/', '')).map((item) => item.label);
    assert.ok(labels.includes('/review') && !labels.some((label) => label.startsWith('/mcp__')), labels.join(' '));
  });

  it('the host takes no query that is not one (another trigger, too long, not text)', () => {
    assert.equal(isWebviewMessage({ type: 'suggest', trigger: '#', query: '' }), false);
    assert.equal(isWebviewMessage({ type: 'suggest', trigger: '@', query: 'x'.repeat(201) }), false);
    assert.equal(isWebviewMessage({ type: 'suggest', trigger: '@', query: 42 }), false);
    assert.equal(isWebviewMessage({ type: 'suggest', trigger: '@', query: 'fx:' }), true);
  });
});
