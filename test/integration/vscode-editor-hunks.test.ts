import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { EditorHunks, type HunkOutcome } from '../../src/adapters/vscode/chat/editor-hunks';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import type { HostMessage } from '../../webview/chat/protocol';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';
import { folderChatHost } from '../support/chat-host';

const write = (path: string, content: string): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path, content } }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const sides = (hunks: { removed: string[]; added: string[] }[]) => hunks.map(({ removed, added }) => [removed, added]);

/**
 * Keep and Undo on each hunk in the editor (issue 39, item 8), as the
 * extension wires them: EditorHunks follows what the controller tells the
 * chat view and undoes through the bar's own message, so the editor and
 * the changes bar follow each other. The VS Code side (the CodeLens and
 * the decoration) is checked in the real workbench (`editor-hunk-undo`).
 */
describe('VS Code editor: Keep and Undo on each hunk of the last prompt', () => {
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let posted: HostMessage[];

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-editor-hunks-'));
    root = join(home, 'project');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'a.txt'), 'one\n2\n3\n4\nfive\n');
    writeFileSync(join(root, 'other.txt'), 'same\n');
    posted = [];
  });
  afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  /** The controller and the editor's hunks, wired as extension.ts wires them. */
  function wired(): { chat: ChatController; hunks: EditorHunks; redrawn: (readonly string[] | undefined)[]; told: HunkOutcome[] } {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'sk-test-editor-hunks' });
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', 'permissions.write': 'ask', baseUrls: { openai: server.openaiBaseUrl } };
    let chat: ChatController;
    const hunks = new EditorHunks({
      hunks: (path) => chat.promptHunks(path),
      undo: (path, id) => chat.handle({ type: 'undo_hunk', path, hunk: id }),
      keep: (path, id) => chat.handle({ type: 'keep_hunk', path, hunk: id }),
    });
    chat = new ChatController(folderChatHost(root, env, (key) => settings[key]), (message) => {
      posted.push(structuredClone(message));
      hunks.observe(message);
      if (message.type === 'approval') void chat.handle({ type: 'approve', id: message.request.id, decision: 'allow_once' });
    }, quietViewActions());
    const redrawn: (readonly string[] | undefined)[] = [];
    const told: HunkOutcome[] = [];
    hunks.onDidChange((paths) => redrawn.push(paths));
    hunks.onUndone((outcome) => told.push(outcome));
    return { chat, hunks, redrawn, told };
  }

  const last = <T extends HostMessage['type']>(type: T) => posted.findLast((message): message is Extract<HostMessage, { type: T }> => message.type === type);
  const file = (path: string): string => readFileSync(join(root, path), 'utf8');

  it("shows each hunk of a file the prompt changed; Undo on one puts back only its lines through the bar's path, and the bar's counts follow", async () => {
    server.enqueue('openai', write('a.txt', 'ONE\n2\n3\n4\nFIVE\n'), say('Done.'));
    const { chat, hunks, redrawn } = wired();
    assert.deepEqual(await hunks.hunks('a.txt'), [], 'nothing before a prompt changed the file');
    await chat.handle({ type: 'send', text: 'Shout two lines' });
    assert.ok(redrawn.length > 0, "the prompt's end redraws the editor");
    const shown = await hunks.hunks('a.txt');
    assert.deepEqual(sides(shown), [[['one'], ['ONE']], [['five'], ['FIVE']]]);
    assert.deepEqual(shown.map((hunk) => hunk.newStart), [1, 5], 'each where it sits in the file now');
    assert.deepEqual(await hunks.hunks('other.txt'), [], 'a file the prompt did not change has none');

    await hunks.undo('a.txt', shown[1]!.id);
    assert.equal(file('a.txt'), 'ONE\n2\n3\n4\nfive\n', 'only that hunk went back');
    assert.deepEqual(last('hunk_undone'), { type: 'hunk_undone', path: 'a.txt', hunk: shown[1]!.id, restored: true, message: 'Undone: that change to a.txt is back as it was.' });
    assert.deepEqual(last('change_counts')?.files, [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }], "the bar's counts follow");
    assert.deepEqual(sides(await hunks.hunks('a.txt')), [[['one'], ['ONE']]]);
    // The whole prompt's Undo (the bar's) leaves the editor nothing to offer.
    await chat.handle({ type: 'undo_prompt' });
    assert.equal(file('a.txt'), 'one\n2\n3\n4\nfive\n');
    assert.deepEqual(await hunks.hunks('a.txt'), []);
    await chat.dispose();
  });

  it('follows the bar: a hunk undone there goes from the editor; Keep hides one in the editor and writes nothing', async () => {
    server.enqueue('openai', write('a.txt', 'ONE\n2\n3\n4\nFIVE\n'), say('Done.'));
    const { chat, hunks, redrawn, told } = wired();
    await chat.handle({ type: 'send', text: 'Shout two lines' });
    const [first, second] = await hunks.hunks('a.txt');
    redrawn.length = 0;
    await chat.handle({ type: 'undo_hunk', path: 'a.txt', hunk: first!.id });
    assert.ok(redrawn.some((paths) => paths === undefined || paths.includes('a.txt')), "the bar's Undo redraws the file in the editor");
    assert.deepEqual(told, [], 'an Undo clicked in the bar is said in the bar, not again by the editor');
    const left = await hunks.hunks('a.txt');
    assert.deepEqual(sides(left), [[['five'], ['FIVE']]]);
    assert.equal(left[0]!.id, second!.id, 'the hunk left is the second one, as the editor showed it');

    posted.length = 0;
    await hunks.keep('a.txt', left[0]!.id);
    assert.deepEqual(await hunks.hunks('a.txt'), [], 'kept: no longer offered');
    assert.deepEqual(posted, [{ type: 'hunk_kept', path: 'a.txt', hunk: left[0]!.id }], 'the bar is told, so it stops offering it too');
    assert.equal(file('a.txt'), 'one\n2\n3\n4\nFIVE\n', 'Keep wrote nothing');
    await chat.dispose();
  });

  it("follows the bar's Keep: a hunk kept there is no longer offered in the editor, and nothing is written", async () => {
    server.enqueue('openai', write('a.txt', 'ONE\n2\n3\n4\nFIVE\n'), say('Done.'));
    const { chat, hunks, redrawn } = wired();
    await chat.handle({ type: 'send', text: 'Shout two lines' });
    const [first, second] = await hunks.hunks('a.txt');
    redrawn.length = 0;
    await chat.handle({ type: 'keep_hunk', path: 'a.txt', hunk: first!.id });
    assert.ok(redrawn.some((paths) => paths?.includes('a.txt')), 'the editor redraws the file');
    assert.deepEqual((await hunks.hunks('a.txt')).map((hunk) => hunk.id), [second!.id]);
    assert.equal(file('a.txt'), 'ONE\n2\n3\n4\nFIVE\n', 'Keep wrote nothing');
    await chat.dispose();
  });

  it('says why when an Undo clicked in the editor puts nothing back (the file changed since), and writes nothing', async () => {
    server.enqueue('openai', write('a.txt', 'ONE\n2\n3\n4\nFIVE\n'), say('Done.'));
    const { chat, hunks, told } = wired();
    await chat.handle({ type: 'send', text: 'Shout two lines' });
    const [first] = await hunks.hunks('a.txt');
    writeFileSync(join(root, 'a.txt'), 'ONE!\n2\n3\n4\nFIVE\n');
    await hunks.undo('a.txt', first!.id);
    assert.equal(told.length, 1);
    assert.equal(told[0]!.restored, false);
    assert.match(told[0]!.message, /changed since/);
    assert.equal(file('a.txt'), 'ONE!\n2\n3\n4\nFIVE\n');
    await chat.dispose();
  });

  it('offers nothing once another prompt starts or another session opens', async () => {
    server.enqueue('openai', write('a.txt', 'ONE\n2\n3\n4\nFIVE\n'), say('Done.'));
    const { chat, hunks } = wired();
    await chat.handle({ type: 'send', text: 'Shout two lines' });
    assert.equal((await hunks.hunks('a.txt')).length, 2);
    await chat.handle({ type: 'new_session' });
    assert.deepEqual(await hunks.hunks('a.txt'), []);
    await chat.dispose();
  });
});
