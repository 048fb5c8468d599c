import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { restoreOnClick } from '../../src/adapters/vscode/chat/chat-restore';
import type { PlannedRestore } from '../../src/host/restore-commands';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';
import { folderChatHost, waitFor } from '../support/chat-host';

const write = (path: string, content: string): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path, content } }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/**
 * The chat's own buttons act on the person's click (issue 39): Undo, one
 * file's Undo and Restore plan and apply at once, never through the
 * agents' approval gate nor as a message in the person's name; the
 * changes bar gets net counts; "Always" answers stand in a list with
 * Revoke.
 */
describe("VS Code chat: the person's clicks act at once", () => {
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let posted: HostMessage[];
  /** The questions the host asked with VS Code's modal (the rare confirmation). */
  let confirmed: string[];

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-clicks-'));
    root = join(home, 'project');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'a.txt'), 'one\n');
    posted = [];
    confirmed = [];
  });
  afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  function controller(confirm = true): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'sk-test-clicks' });
    const settings: Record<string, unknown> = { provider: 'openai', model: 'fake-model', 'permissions.write': 'ask', baseUrls: { openai: server.openaiBaseUrl } };
    const host = folderChatHost(root, env, (key) => settings[key]);
    const actions = quietViewActions({ confirm: async (question) => (confirmed.push(question), confirm) });
    let chat: ChatController;
    // Every write the agent asks for is allowed once; the test answers "always" itself where it wants one.
    chat = new ChatController(host, (message) => {
      posted.push(structuredClone(message));
      if (message.type === 'approval' && !/always-me|deny-me/.test(message.request.title)) void chat.handle({ type: 'approve', id: message.request.id, decision: 'allow_once' });
    }, actions);
    return chat;
  }

  const shown = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  const approvals = () => posted.filter((message) => message.type === 'approval');
  const last = <T extends HostMessage['type']>(type: T) => posted.findLast((message): message is Extract<HostMessage, { type: T }> => message.type === type);
  const file = (path: string): string | undefined => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);

  it('counts a file net, undoes one file of a prompt, then the rest, without asking and without a message', async () => {
    server.enqueue('openai', write('a.txt', 'two\n'), write('a.txt', 'three\n'), write('b.txt', 'new\n'), say('Done.'));
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Rework the files' });
    // The bar is the journal's: each file counted net, told with the prompt's end.
    const end = shown().findLast((event) => event.type === 'prompt_end');
    assert.deepEqual(end?.type === 'prompt_end' && end.changes, [
      { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'b.txt', status: 'added', added: 1, removed: 0 },
    ]);
    const asked = approvals().length;
    const messages = shown().filter((event) => event.type === 'user_message').length;

    await chat.handle({ type: 'undo_prompt', path: 'b.txt' });
    assert.equal(file('b.txt'), undefined, 'the file the prompt created is gone');
    assert.equal(file('a.txt'), 'three\n', "one file's Undo leaves the others");
    assert.deepEqual(last('restored'), { type: 'restored', target: { kind: 'undo', path: 'b.txt' }, outcome: 'restored', message: 'Undone: b.txt is back as it was.' });
    assert.deepEqual(last('change_counts')?.files, [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }]);

    await chat.handle({ type: 'undo_prompt' });
    assert.equal(file('a.txt'), 'one\n');
    assert.equal(last('restored')?.outcome, 'restored');
    assert.equal(approvals().length, asked, 'no approval card for the clicks');
    assert.equal(shown().filter((event) => event.type === 'user_message').length, messages, 'no message in the person\'s name');
    assert.deepEqual(confirmed, [], 'everything it put back was on the bar');
    await chat.dispose();
  });

  it("the bar lists what the journal says the prompt changed: a command's file counts, a file written and put back does not", async () => {
    writeFileSync(join(root, 'c.txt'), 'c1\n');
    const bash = (command: string): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'bash', arguments: { command } }] });
    server.enqueue('openai', write('a.txt', 'two\n'), write('a.txt', 'one\n'), bash('echo c2 > c.txt'), say('Done.'));
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Touch the files' });
    assert.equal(file('c.txt'), 'c2\n', shown().map((event) => JSON.stringify(event)).join('\n'));
    const end = shown().findLast((event) => event.type === 'prompt_end');
    assert.deepEqual(end?.type === 'prompt_end' && end.changes, [{ path: 'c.txt', status: 'modified', added: 1, removed: 1 }]);
    await chat.dispose();
  });

  it("one hunk's Undo puts back only its lines, from the journal, and the bar's counts follow", async () => {
    writeFileSync(join(root, 'a.txt'), 'one\n2\n3\n4\nfive\n');
    server.enqueue('openai', write('a.txt', 'ONE\n2\n3\n4\nFIVE\n'), say('Done.'));
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Shout two lines' });
    await chat.handle({ type: 'show_hunks', path: 'a.txt' });
    const hunks = last('hunks');
    assert.deepEqual(hunks?.hunks.map(({ removed, added }) => [removed, added]), [[['one'], ['ONE']], [['five'], ['FIVE']]]);
    await chat.handle({ type: 'undo_hunk', path: 'a.txt', hunk: hunks!.hunks[1]!.id });
    assert.equal(file('a.txt'), 'ONE\n2\n3\n4\nfive\n');
    assert.deepEqual(last('hunk_undone'), { type: 'hunk_undone', path: 'a.txt', hunk: hunks!.hunks[1]!.id, restored: true, message: 'Undone: that change to a.txt is back as it was.' });
    assert.deepEqual(last('hunks')?.hunks.map(({ removed, added }) => [removed, added]), [[['one'], ['ONE']]]);
    assert.deepEqual(last('change_counts')?.files, [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }]);
    // The whole prompt's Undo still goes back to before it.
    await chat.handle({ type: 'undo_prompt' });
    assert.equal(file('a.txt'), 'one\n2\n3\n4\nfive\n');
    await chat.dispose();
  });

  it('a hunk Undo the webview posts for a path or hunk the prompt never changed, or a stale hunk, puts nothing back and says why', async () => {
    writeFileSync(join(root, 'a.txt'), 'one\ntwo\n');
    server.enqueue('openai', write('a.txt', 'ONE\ntwo\n'), say('Done.'));
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Shout one' });
    await chat.handle({ type: 'show_hunks', path: 'a.txt' });
    const [hunk] = last('hunks')!.hunks;
    writeFileSync(join(root, 'mine.txt'), 'the person\'s own file\n');
    writeFileSync(join(home, 'outside.txt'), 'outside\n');
    for (const [path, id] of [['mine.txt', hunk!.id], ['../outside.txt', hunk!.id], ['/etc/hostname', hunk!.id], ['a.txt/../mine.txt', hunk!.id], ['a.txt', 'not-a-hunk']]) {
      await chat.handle({ type: 'undo_hunk', path: path!, hunk: id! });
      const said = last('hunk_undone');
      assert.equal(said?.restored, false, `a hunk undo for ${path} ${id}`);
      assert.match(said!.message, /^Nothing was put back: .+/);
    }
    // The person edits the line after the list was shown: the hunk shown is stale.
    writeFileSync(join(root, 'a.txt'), 'One!\ntwo\n');
    await chat.handle({ type: 'undo_hunk', path: 'a.txt', hunk: hunk!.id });
    assert.equal(last('hunk_undone')?.restored, false);
    assert.match(last('hunk_undone')!.message, /changed since/);
    assert.equal(file('a.txt'), 'One!\ntwo\n');
    assert.equal(file('mine.txt'), 'the person\'s own file\n');
    assert.equal(readFileSync(join(home, 'outside.txt'), 'utf8'), 'outside\n');
    await chat.dispose();
  });

  it('a per-file Undo the webview posts for a path the prompt never changed, or one outside the workspace, puts nothing back', async () => {
    server.enqueue('openai', write('a.txt', 'two\n'), say('Done.'));
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Change a.txt' });
    writeFileSync(join(root, 'mine.txt'), 'the person\'s own file\n');
    for (const path of ['mine.txt', '../outside.txt', '/etc/hostname', 'a.txt/../mine.txt']) {
      await chat.handle({ type: 'undo_prompt', path });
      assert.notEqual(last('restored')?.outcome, 'restored', `a restore for ${path}`);
    }
    assert.equal(file('a.txt'), 'two\n');
    assert.equal(file('mine.txt'), 'the person\'s own file\n');
    await chat.dispose();
  });

  it('asks once before putting back a file the bar did not list, and puts nothing back on a no', async () => {
    let applied = 0;
    const planned: PlannedRestore = { id: 'undo-1', title: 'Undo the last prompt ("x"): 2 files: 2 to restore', paths: ['a.txt', 'hidden.txt'], conversation: false, terminal: '', apply: async () => (applied++, { status: 'completed', message: '' }) };
    const barShowed: TranscriptEvent[] = [
      { type: 'user_message', text: 'x' },
      { type: 'tool_end', callId: 'c1', status: 'completed', durationMs: 1, output: '', files: ['a.txt'] },
      { type: 'prompt_end', status: 'completed', message: '', changes: [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }] },
    ];
    const questions: string[] = [];
    const deps = (answer: boolean) => ({ plan: async () => planned, shown: barShowed, confirm: async (question: string) => (questions.push(question), answer) });
    const declined = await restoreOnClick(deps(false), { kind: 'undo' }, { kind: 'undo' });
    assert.deepEqual([declined.outcome, applied], ['declined', 0]);
    assert.deepEqual(questions, ['This also puts back a file the chat did not list: hidden.txt']);
    const done = await restoreOnClick(deps(true), { kind: 'undo' }, { kind: 'undo' });
    assert.deepEqual([done.outcome, applied], ['restored', 1]);
    // One file's Undo names its file: nothing else is a surprise.
    questions.length = 0;
    await restoreOnClick({ ...deps(true), plan: async () => ({ ...planned, paths: ['a.txt'] }) }, { kind: 'undo', path: 'a.txt' }, { kind: 'undo', paths: ['a.txt'] });
    assert.deepEqual(questions, []);
  });

  it('Restore rewinds on the click: the file back, the conversation cut, nothing posted as the person', async () => {
    server.enqueue('openai', write('a.txt', 'first\n'), say('First.'), write('a.txt', 'second\n'), say('Second.'), say('After.'));
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Write first' });
    await chat.handle({ type: 'send', text: 'Write second' });
    const checkpoints = shown().flatMap((event) => (event.type === 'checkpoint' && event.kind === 'prompt' ? [event.id] : []));
    const asked = approvals().length;
    await chat.handle({ type: 'restore', checkpoint: checkpoints[1]!, mode: 'both' });
    assert.equal(file('a.txt'), 'first\n');
    assert.deepEqual(last('restored'), {
      type: 'restored',
      target: { kind: 'rewind', checkpoint: checkpoints[1], mode: 'both' },
      outcome: 'restored',
      message: 'Restored to before this: a.txt is back as it was; the conversation goes on from there (the turns after it are greyed out).',
    });
    assert.equal(approvals().length, asked);
    assert.ok(!shown().some((event) => event.type === 'user_message' && event.text.startsWith('/rewind')));
    await chat.handle({ type: 'send', text: 'Where are we?' });
    assert.doesNotMatch(JSON.stringify(server.requestsFor('openai').at(-1)!.body), /Write second/, 'the agents no longer read the rewound turn');

    // A reloaded view gets the restore where it happened: before the turn that came after it.
    posted = [];
    await chat.handle({ type: 'ready' });
    const order = posted.flatMap((message) => (message.type === 'restored' ? ['restored'] : message.type === 'events' ? message.events.flatMap((event) => (event.type === 'user_message' ? [event.text] : [])) : []));
    assert.deepEqual(order, ['Write first', 'Write second', 'restored', 'Where are we?']);
    await chat.dispose();
  });

  it('lists an "Always" as a standing answer, and Revoke makes the next such call ask again', async () => {
    server.enqueue('openai', write('always-me.txt', '1\n'), write('always-me.txt', '2\n'), say('Done.'), write('always-me.txt', '3\n'), say('Again.'));
    const chat = controller();
    const running = chat.handle({ type: 'send', text: 'Write twice' });
    const first = await waitFor(() => approvals()[0]);
    await chat.handle({ type: 'approve', id: first.request.id, decision: 'allow_always' });
    await running;
    assert.equal(approvals().length, 1, 'the second write was not asked');
    assert.deepEqual(last('rules')?.rules.map(({ allowed, covers }) => ({ allowed, covers })), [{ allowed: true, covers: 'file changes' }]);
    await chat.handle({ type: 'revoke_rule', id: last('rules')!.rules[0]!.id });
    assert.deepEqual(last('rules')?.rules, []);
    const again = chat.handle({ type: 'send', text: 'Write again' });
    const second = await waitFor(() => approvals()[1]);
    await chat.handle({ type: 'approve', id: second.request.id, decision: 'allow_once' });
    await again;
    assert.equal(file('always-me.txt'), '3\n');
    await chat.dispose();
  });

  it('"Deny and say why" gives the agent the person\'s reason as the denial', async () => {
    server.enqueue('openai', write('deny-me.txt', 'x\n'), say('Understood.'));
    const chat = controller();
    const running = chat.handle({ type: 'send', text: 'Write the file' });
    const asked = await waitFor(() => approvals()[0]);
    await chat.handle({ type: 'deny', id: asked.request.id, reason: 'Put it in notes.md instead.' });
    await running;
    assert.equal(file('deny-me.txt'), undefined);
    assert.equal(last('approval_done')?.decision, 'reject_once');
    assert.match(JSON.stringify(server.requestsFor('openai').at(-1)!.body), /The user denied it, and says: Put it in notes\.md instead\./);
    await chat.dispose();
  });
});
