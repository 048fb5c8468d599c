/**
 * The VS Code chat's answers to MCP servers, host side, driven as the
 * webview drives it: a server's sampling request is the chat's approval
 * card (server, model, cap and the request shown), a server's form is a
 * question card whose answer is checked before it goes back, and a page to
 * open is a card naming its domain, opened through VS Code.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ViewActions } from '../../src/adapters/vscode/chat/chat-actions';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { globalConfigPath } from '../../src/config/settings-file';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
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
  function controller(actions: Partial<ViewActions> = {}): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'k' });
    const config = globalConfigPath(env);
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, `[mcp_servers.ask]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(ASK_FIXTURE_ARGS)}\npermission = "read"\n`);
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', baseUrls: { openai: server.openaiBaseUrl } };
    chat = new ChatController(folderChatHost(root, env, (key) => settings[key]), (message) => posted.push(structuredClone(message)), quietViewActions(actions));
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
    assert.equal(request.title, 'MCP server "ask": run a model request on openai fake-model, at most 64 output tokens');
    assert.deepEqual(request.question, { details: 'System: You summarise.\nUser: Summarise the notes.' });
    await chat!.handle({ type: 'approve', id: request.id, decision: 'allow_once' });
    await sent;
    assert.match(toModel(2), /sampled: .*Two fixes\./);
  });

  const questions = () => posted.flatMap((m) => (m.type === 'question' ? [m.question] : []));
  const outcomes = () => posted.flatMap((m) => (m.type === 'question_done' ? [m] : []));

  it("shows a server's form as a card; an answer that does not fit is said on the card, one that fits goes to the server", async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', title: 'Name' }, count: { type: 'integer', minimum: 1, maximum: 5 }, ok: { type: 'boolean' } },
      required: ['name', 'count'],
    };
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask', arguments: { message: 'Who and how many?', schema: JSON.stringify(schema) } }] },
      { blocks: [{ type: 'text', text: 'Noted.' }] },
    );
    const sent = controller().handle({ type: 'send', text: 'Ask' });
    const question = await waitFor(() => questions().at(0));
    assert.equal(question.server, 'ask');
    assert.equal(question.message, 'Who and how many?');
    assert.deepEqual(
      question.fields?.map((field) => [field.name, field.kind, field.required]),
      [['name', 'text', true], ['count', 'number', true], ['ok', 'boolean', false]],
    );
    await chat!.handle({ type: 'answer_question', id: question.id, action: 'accept', content: { name: 'Ada', count: 9 } });
    assert.deepEqual(posted.at(-1), { type: 'question_invalid', id: question.id, problem: 'count: at most 5' });
    await chat!.handle({ type: 'answer_question', id: question.id, action: 'accept', content: { name: 'Ada', count: 3, ok: true } });
    await sent;
    assert.deepEqual(outcomes(), [{ type: 'question_done', id: question.id, outcome: 'accept' }]);
    assert.match(toModel(1), /answer: \{\\"action\\":\\"accept\\",\\"content\\":\{\\"name\\":\\"Ada\\",\\"count\\":3,\\"ok\\":true\}\}/);
  });

  it("a page to open names its domain; Open page opens it through VS Code, and the server hears it was accepted", async () => {
    const opened: string[] = [];
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask_url', arguments: { message: 'Sign in to continue', url: 'https://auth.example.com/login?x=1' } }] },
      { blocks: [{ type: 'text', text: 'Signed in.' }] },
    );
    const sent = controller({ openPage: async (url) => (opened.push(url), true) }).handle({ type: 'send', text: 'Sign in' });
    const question = await waitFor(() => questions().at(0));
    assert.deepEqual(question.page, { url: 'https://auth.example.com/login?x=1', domain: 'auth.example.com' });
    assert.equal(question.fields, undefined);
    await chat!.handle({ type: 'answer_question', id: question.id, action: 'accept' });
    await sent;
    assert.deepEqual(opened, ['https://auth.example.com/login?x=1']);
    assert.match(toModel(1), /answer: \{\\"action\\":\\"accept\\"\}/);
  });

  it('a page VS Code did not open (its own question about the link dismissed) is a dismissal, not an acceptance', async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask_url', arguments: { message: 'Pay here', url: 'https://pay.example.com/' } }] },
      { blocks: [{ type: 'text', text: 'Not paid.' }] },
    );
    const sent = controller({ openPage: async () => false }).handle({ type: 'send', text: 'Pay' });
    const question = await waitFor(() => questions().at(0));
    await chat!.handle({ type: 'answer_question', id: question.id, action: 'accept' });
    await sent;
    assert.match(toModel(1), /answer: \{\\"action\\":\\"cancel\\"\}/);
  });

  it('Decline reaches the server as decline; a cancelled prompt withdraws the card and the server hears cancel', async () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask', arguments: { message: 'Proceed?', schema: JSON.stringify(schema) } }] },
      { blocks: [{ type: 'text', text: 'Declined.' }] },
    );
    const sent = controller().handle({ type: 'send', text: 'Ask' });
    const first = await waitFor(() => questions().at(0));
    await chat!.handle({ type: 'answer_question', id: first.id, action: 'decline' });
    await sent;
    assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);

    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask', arguments: { message: 'Again?', schema: JSON.stringify(schema) } }] });
    const again = chat!.handle({ type: 'send', text: 'Ask again' });
    const second = await waitFor(() => questions().at(1));
    await chat!.handle({ type: 'cancel' });
    await again;
    assert.deepEqual(outcomes().at(-1), { type: 'question_done', id: second.id, outcome: 'withdrawn' });
    // A late click (a view that had not heard yet) is told the question is gone.
    await chat!.handle({ type: 'answer_question', id: second.id, action: 'accept', content: { ok: true } });
    assert.match(JSON.stringify(posted.at(-1)), /That question is no longer open/);
  });

  it('a reloaded view is shown the question still open', async () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__ask__ask', arguments: { message: 'Still there?', schema: JSON.stringify(schema) } }] },
      { blocks: [{ type: 'text', text: 'Yes.' }] },
    );
    const sent = controller().handle({ type: 'send', text: 'Ask' });
    const question = await waitFor(() => questions().at(0));
    posted.length = 0;
    await chat!.handle({ type: 'ready' });
    assert.deepEqual(questions(), [question]);
    await chat!.handle({ type: 'answer_question', id: question.id, action: 'accept', content: { ok: false } });
    await sent;
    assert.match(toModel(1), /\\"ok\\":false/);
  });
});
