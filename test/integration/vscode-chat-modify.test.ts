import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { isWebviewMessage } from '../../webview/chat/message-checks';
import type { HostMessage } from '../../webview/chat/protocol';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';
import { folderChatHost, waitFor } from '../support/chat-host';

/**
 * The chat view's approval card, host side: seed 002's Modify (Edit the
 * arguments, then allow) and an agent's own request_approval, driven as the
 * webview drives it, against the fake LLM server.
 */
describe('VS Code chat: Edit before Allow, and request_approval', () => {
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let posted: HostMessage[];
  let opened: ChatController[];

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-chat-modify-'));
    root = join(home, 'project');
    mkdirSync(root);
    posted = [];
    opened = [];
  });
  // The views close first, as the window would (a cancelled prompt's git snapshot may still be writing);
  // what a snapshot still removes after that is retried, as a person would.
  afterEach(async () => {
    await Promise.all(opened.map((chat) => chat.dispose().catch(() => undefined)));
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  function controller(): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'k' });
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', baseUrls: { openai: server.openaiBaseUrl } };
    const host = folderChatHost(root, env, (key) => settings[key]);
    const view = quietViewActions();
    const chat = new ChatController(host, (message) => posted.push(structuredClone(message)), view);
    opened.push(chat);
    return chat;
  }
  const toModel = (request: number) => JSON.stringify(server.requestsFor('openai')[request]!.body.messages);
  const approval = () =>
    waitFor(() => {
      const found = posted.find((message) => message.type === 'approval');
      return found?.type === 'approval' ? found.request : undefined;
    });

  it('offers the arguments for Edit; a bad edit is answered with what is wrong and stays pending; a good one runs the call as edited', async () => {
    const chat = controller();
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'draft.md', content: '# Draft\n' } }] },
      { blocks: [{ type: 'text', text: 'Saved.' }] },
    );
    const sent = chat.handle({ type: 'send', text: 'Save a draft' });
    const request = await approval();
    assert.equal(request.arguments, JSON.stringify({ path: 'draft.md', content: '# Draft\n' }, null, 2));
    assert.equal(request.question, undefined);

    const bad = { type: 'approve_edited', id: request.id, arguments: '{"path": 7, "content": "x"}' };
    assert.ok(isWebviewMessage(bad), 'the view may post it');
    await chat.handle(bad as never);
    const invalid = posted.find((message) => message.type === 'approval_invalid');
    assert.ok(invalid?.type === 'approval_invalid');
    assert.match(invalid.problem, /^path: /);
    await chat.handle({ type: 'approve_edited', id: request.id, arguments: '{not json' });
    assert.match(posted.filter((m) => m.type === 'approval_invalid').map((m) => (m.type === 'approval_invalid' ? m.problem : '')).at(-1)!, /^not JSON: /);
    assert.ok(!posted.some((message) => message.type === 'approval_done'), 'still pending after bad edits');

    await chat.handle({ type: 'approve_edited', id: request.id, arguments: '{"path": "final.md", "content": "# Final\\n"}' });
    await sent;
    assert.ok(posted.some((message) => message.type === 'approval_done' && message.decision === 'allow_edited'));
    assert.ok(!existsSync(join(root, 'draft.md')));
    assert.equal(readFileSync(join(root, 'final.md'), 'utf8'), '# Final\n');
    assert.match(toModel(1), /The user edited this call's arguments before allowing it\. It ran with: \{\\"path\\":\\"final\.md\\"/);
    await chat.handle({ type: 'approve_edited', id: request.id, arguments: '{}' });
    assert.match(JSON.stringify(posted.at(-1)), /That approval is no longer pending/, 'a late edit is told it came too late');
    await chat.dispose();
  });

  it("shows an agent's request_approval as its question with details; Allow always is not a yes", async () => {
    const chat = controller();
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'request_approval', arguments: { question: 'Rename the public API?', details: 'Three callers break.' } }] },
      { blocks: [{ type: 'text', text: 'Leaving it.' }] },
    );
    const sent = chat.handle({ type: 'send', text: 'Tidy the API' });
    const request = await approval();
    assert.equal(request.title, 'Rename the public API?');
    assert.deepEqual(request.question, { details: 'Three callers break.' });
    assert.equal(request.arguments, JSON.stringify({ question: 'Rename the public API?', details: 'Three callers break.' }, null, 2), 'a changed version may be approved');
    await chat.handle({ type: 'approve', id: request.id, decision: 'allow_always' });
    await sent;
    assert.match(toModel(1), /Denied: the person said no/);
  });

  it('request_approval: the person approves a changed version, and the model is told to do that', async () => {
    const chat = controller();
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'request_approval', arguments: { question: 'Delete all logs?' } }] },
      { blocks: [{ type: 'text', text: 'Deleting old logs only.' }] },
    );
    const sent = chat.handle({ type: 'send', text: 'Free some space' });
    const request = await approval();
    await chat.handle({ type: 'approve_edited', id: request.id, arguments: '{"question": "Delete logs older than a week?"}' });
    await sent;
    assert.match(toModel(1), /Approved with changes[\s\S]*Delete logs older than a week\?/);
  });
});
