import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import type { ChangeEdits, ProposedChange } from '../../src/adapters/vscode/chat/chat-actions';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { isWebviewMessage } from '../../webview/chat/message-checks';
import type { HostMessage } from '../../webview/chat/protocol';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';
import { folderChatHost, waitFor } from '../support/chat-host';

const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** The diff editor as the test drives it: what it was opened with, what the person typed, whether it closed. */
interface FakeEditor {
  change: ProposedChange;
  edits: ChangeEdits;
  text: string;
  closed: boolean;
}

/**
 * Issue 39 item 7, host side: Edit… on a file change opens it in the diff
 * editor (here a fake with the same contract), the card follows the
 * person's text, and "Allow with my changes" (or saving) writes exactly
 * that text, through the approval, to the approval's own path, recorded
 * for Undo and told to the model.
 */
describe("VS Code chat: a file change edited in the diff editor", () => {
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let posted: HostMessage[];
  let editors: FakeEditor[];
  /** What proposedChange reports as the file's path (the editor's own name for it, which must not matter). */
  let reportedPath: string | undefined;

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-edit-change-'));
    root = join(home, 'project');
    mkdirSync(root);
    posted = [];
    editors = [];
    reportedPath = undefined;
  });
  afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  function controller(): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'k' });
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', 'permissions.write': 'ask', baseUrls: { openai: server.openaiBaseUrl } };
    const host = folderChatHost(root, env, (key) => settings[key]);
    const actions = quietViewActions({
      // As view-actions.ts does it: the file as it is now, and the change applied to it.
      proposedChange: async (unified) => {
        const [patch] = parsePatch(unified);
        const path = patch!.newFileName!.replace(/^b\//, '');
        const current = existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined;
        const proposed = applyPatch(current ?? '', patch!);
        assert.ok(proposed !== false);
        return { path: reportedPath ?? path, current, proposed };
      },
      editChange: async (_id, change, edits) => {
        const editor: FakeEditor = { change, edits, text: change.proposed, closed: false };
        editors.push(editor);
        return { text: () => editor.text, reveal: async () => undefined, close: async () => void (editor.closed = true) };
      },
    });
    return new ChatController(host, (message) => posted.push(structuredClone(message)), actions);
  }
  const approval = () =>
    waitFor(() => {
      const found = posted.findLast((message) => message.type === 'approval');
      return found?.type === 'approval' ? found.request : undefined;
    });
  const last = <T extends HostMessage['type']>(type: T) => posted.findLast((message): message is Extract<HostMessage, { type: T }> => message.type === type);
  const file = (path: string): string => readFileSync(join(root, path), 'utf8');
  const toModel = (request: number) => JSON.stringify(server.requestsFor('openai')[request]!.body.messages);

  it("write_file: the card follows the person's text, Allow with my changes writes it, the model is told, and Undo takes it back", async () => {
    writeFileSync(join(root, 'greeting.txt'), 'hello\n');
    server.enqueue('openai', call('write_file', { path: 'greeting.txt', content: 'hello, world\n' }), say('Written.'));
    const chat = controller();
    const sent = chat.handle({ type: 'send', text: 'Greet the world' });
    const request = await approval();
    assert.equal(request.editInEditor, true, 'Edit… opens the diff editor, not JSON');

    const open = { type: 'edit_change', id: request.id };
    assert.ok(isWebviewMessage(open), 'the view may post it');
    await chat.handle(open);
    const [editor] = editors;
    assert.deepEqual(editor!.change, { path: 'greeting.txt', current: 'hello\n', proposed: 'hello, world\n' });
    assert.match(last('approval_change')!.diff.unified, /\+hello, world/, 'the card enters editing with the proposed change');

    editor!.text = 'hello, people\n';
    editor!.edits.changed(editor!.text);
    assert.match(last('approval_change')!.diff.unified, /-hello\n\+hello, people/, 'the diff follows the edit');
    // A reloaded view gets the question and, after it, the change as the person's text makes it.
    posted = [];
    await chat.handle({ type: 'ready' });
    const again = posted.filter((message) => message.type === 'approval' || message.type === 'approval_change').map((message) => message.type);
    assert.deepEqual(again, ['approval', 'approval_change']);
    assert.match(last('approval_change')!.diff.unified, /\+hello, people/);
    assert.ok(isWebviewMessage({ type: 'approve_change', id: request.id }));
    await chat.handle({ type: 'approve_change', id: request.id });
    await sent;
    assert.deepEqual(last('approval_done'), { type: 'approval_done', id: request.id, decision: 'allow_edited' });
    assert.equal(file('greeting.txt'), 'hello, people\n', "the person's text, not the model's");
    assert.equal(editor!.closed, true, 'the editor closes once answered');
    const ended = posted.flatMap((message) => (message.type === 'events' ? message.events : [])).find((event) => event.type === 'tool_end');
    assert.equal(ended?.type === 'tool_end' && ended.approval, 'allow_edited', "the call's card says it was allowed with the person's changes");
    assert.match(toModel(1), /The user edited this call's arguments before allowing it\. It ran with: .*hello, people/);

    await chat.handle({ type: 'undo_prompt' });
    assert.equal(last('restored')?.outcome, 'restored');
    assert.equal(file('greeting.txt'), 'hello\n', 'Undo puts back the file as it was');
    await chat.dispose();
  });

  it('edit_file: a save in the editor is no yes; Allow with my changes replaces only the stretch the person changed, at the approval\'s own path', async () => {
    writeFileSync(join(root, 'calc.js'), 'function add(a, b) {\n  return a - b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n');
    server.enqueue('openai', call('edit_file', { path: 'calc.js', old_string: 'function add(a, b) {\n  return a - b;', new_string: 'function add(a, b) {\n  return a + b;' }), say('Fixed.'));
    const chat = controller();
    const sent = chat.handle({ type: 'send', text: 'Fix add' });
    const request = await approval();
    // The editor's name for the file is its own business: the write goes to the approval's path.
    reportedPath = '../outside.js';
    await chat.handle({ type: 'edit_change', id: request.id });
    const [editor] = editors;
    const mine = editor!.change.proposed.replace('return a + b;', 'return a + b; // checked');
    editor!.text = mine;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(!posted.some((message) => message.type === 'approval_done'), 'still pending: only the person\'s click allows it');
    await chat.handle({ type: 'approve_change', id: request.id });
    await sent;
    assert.equal(last('approval_done')?.decision, 'allow_edited');
    assert.equal(file('calc.js'), mine);
    assert.ok(!existsSync(join(home, 'outside.js')), 'nothing written where the editor said');
    // "  return a - b;" occurs twice: the stretch grows to the lines around it, which occur once.
    assert.match(toModel(1), /It ran with: \{\\"path\\":\\"calc\.js\\",\\"old_string\\":\\"function add\(a, b\) \{\\\\n  return a - b;\\\\n\}\\\\n\\",/);
    await chat.dispose();
  });

  it('a cancel while the editor is open closes it and applies nothing, even an Allow that comes after', async () => {
    writeFileSync(join(root, 'a.txt'), 'one\n');
    server.enqueue('openai', call('write_file', { path: 'a.txt', content: 'two\n' }), say('Never.'));
    const chat = controller();
    const sent = chat.handle({ type: 'send', text: 'Change a' });
    const request = await approval();
    await chat.handle({ type: 'edit_change', id: request.id });
    await chat.handle({ type: 'cancel' });
    await sent;
    assert.equal(last('approval_done')?.decision, 'withdrawn');
    assert.equal(editors[0]!.closed, true);
    editors[0]!.text = 'mine\n';
    await chat.handle({ type: 'approve_change', id: request.id });
    assert.match(JSON.stringify(last('events')), /no longer pending/);
    assert.equal(file('a.txt'), 'one\n');
    await chat.dispose();
  });

  it('refuses to edit a binary file, and an edit that leaves nothing to apply, saying why in the card', async () => {
    writeFileSync(join(root, 'data.txt'), 'a\0b\n');
    writeFileSync(join(root, 'b.txt'), 'keep\n');
    server.enqueue(
      'openai',
      call('write_file', { path: 'data.txt', content: 'text now\n' }),
      call('edit_file', { path: 'b.txt', old_string: 'keep', new_string: 'drop' }),
      say('Done.'),
    );
    const chat = controller();
    const sent = chat.handle({ type: 'send', text: 'Tidy' });
    const binary = await approval();
    await chat.handle({ type: 'edit_change', id: binary.id });
    assert.equal(editors.length, 0, 'no editor for a binary file');
    assert.match(last('approval_invalid')!.problem, /data\.txt is a binary file/);
    // A view that posts Allow with my changes for a change no editor holds allows nothing.
    await chat.handle({ type: 'approve_change', id: binary.id });
    assert.match(JSON.stringify(last('events')), /Open the change in the editor first/);
    assert.ok(!posted.some((message) => message.type === 'approval_done' && message.id === binary.id));
    await chat.handle({ type: 'approve', id: binary.id, decision: 'reject_once' });

    const edit = await waitFor(() => posted.findLast((message) => message.type === 'approval' && message.request.id !== binary.id));
    const id = edit.type === 'approval' ? edit.request.id : '';
    await chat.handle({ type: 'edit_change', id });
    editors[0]!.text = 'keep\n';
    await chat.handle({ type: 'approve_change', id });
    assert.match(last('approval_invalid')!.problem, /leaves b\.txt as it is now/);
    assert.ok(!posted.some((message) => message.type === 'approval_done' && message.id === id), 'still pending');
    await chat.handle({ type: 'approve', id, decision: 'reject_once' });
    await sent;
    assert.equal(file('b.txt'), 'keep\n');
    assert.equal(file('data.txt'), 'a\0b\n');
    await chat.dispose();
  });
});
