/**
 * The VS Code chat's answers to MCP servers, host side, driven as the
 * webview drives it: a server's sampling request is the chat's approval
 * card (server, model, cap and the request shown), and a server's form is
 * declined with a notice that says the chat cannot show one yet.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { globalConfigPath } from '../../src/config/settings-file';
import { FakeLlmServer } from '../../src/testing/fake-llm-server';
import type { ApprovalRequest, HostMessage } from '../../webview/chat/protocol';
import { folderChatHost, waitFor } from '../support/chat-host';
import { isolatedEnv } from '../support/isolated-env';
import { ASK_FIXTURE_ARGS } from '../support/mcp-ask-harness';
import { quietViewActions } from '../support/view-actions';

describe('VS Code chat: what MCP servers ask', function () {
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
    home = mkdtempSync(join(tmpdir(), 'crow-chat-mcp-ask-'));
    root = join(home, 'project');
    mkdirSync(root);
    posted = [];
  });
  afterEach(async () => {
    await chat?.dispose().catch(() => undefined);
    chat = undefined;
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  /** A chat whose user configuration (trusted) has the ask fixture as server "ask", its tools allowed. */
  function controller(): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'k' });
    const config = globalConfigPath(env);
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, `[mcp_servers.ask]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(ASK_FIXTURE_ARGS)}\npermission = "read"\n`);
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', baseUrls: { openai: server.openaiBaseUrl } };
    chat = new ChatController(folderChatHost(root, env, (key) => settings[key]), (message) => posted.push(structuredClone(message)), quietViewActions());
    return chat;
  }
  const toModel = (request: number) => JSON.stringify(server.requestsFor('openai')[request]!.body.messages.at(-1));

  it('shows a sampling request as an approval card naming the server, the model and the cap; allowed, it runs', async () => {
    const params = { systemPrompt: 'You summarise.', maxTokens: 64, messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the notes.' } }] };
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__sample', arguments: { params: JSON.stringify(params) } }] },
      { blocks: [{ type: 'text', text: 'Two fixes.' }] },
      { blocks: [{ type: 'text', text: 'Summarised.' }] },
    );
    const sent = controller().handle({ type: 'send', text: 'Summarise' });
    const request = await waitFor(() => posted.flatMap((m) => (m.type === 'approval' ? [m.request as ApprovalRequest] : [])).at(0));
    assert.equal(request.actor.agent, 'MCP server "ask"');
    assert.equal(request.title, 'run a model request on openai fake-model, at most 64 output tokens');
    assert.deepEqual(request.question, { details: 'System: You summarise.\nUser: Summarise the notes.' });
    await chat!.handle({ type: 'approve', id: request.id, decision: 'allow_once' });
    await sent;
    assert.match(toModel(2), /sampled: .*Two fixes\./);
  });

  it('declines a server\'s form, and the notice says the chat cannot show one yet', async () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask', arguments: { message: 'Proceed?', schema: JSON.stringify(schema) } }] },
      { blocks: [{ type: 'text', text: 'Declined.' }] },
    );
    await controller().handle({ type: 'send', text: 'Ask' });
    assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);
    assert.match(JSON.stringify(posted), /MCP server \\"ask\\" asked: \\"Proceed\?\\"\. Crow declined: the VS Code chat cannot show an MCP server's form yet/);
  });
});
