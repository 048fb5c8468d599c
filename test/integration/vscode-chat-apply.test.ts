import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';
import { folderChatHost, waitFor } from '../support/chat-host';

/**
 * Apply on an answer's code block: the block becomes a write of a file,
 * asked and judged like an agent's write, run as a prompt of its own so its
 * change is undoable and the agents are told.
 */
describe('VS Code chat: Apply on a code block goes through the edit approval', () => {
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let outside: string;
  let posted: HostMessage[];
  let settings: Record<string, unknown>;
  /** What the host's "which file?" question answers. */
  let picked: string | undefined;
  let asked: number;

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-apply-'));
    root = join(home, 'project');
    outside = join(home, 'elsewhere');
    mkdirSync(join(root, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    posted = [];
    settings = { provider: 'openai', model: 'fake-model', 'permissions.write': 'ask', baseUrls: { openai: server.openaiBaseUrl } };
    picked = undefined;
    asked = 0;
  });
  afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  function controller(): ChatController {
    const env = isolatedEnv(home, { OPENAI_API_KEY: 'sk-test-apply' });
    const host = folderChatHost(root, env, (key) => settings[key]);
    const actions = quietViewActions({ pickFileForCode: async () => (asked++, picked) });
    return new ChatController(host, (message) => posted.push(structuredClone(message)), actions);
  }

  const notices = (): string[] =>
    posted.flatMap((message) => (message.type === 'events' ? message.events : [])).flatMap((event: TranscriptEvent) => (event.type === 'notice' ? [event.text] : []));
  const approvals = () => posted.flatMap((message) => (message.type === 'approval' ? [message.request] : []));
  /** Applies `text` to `path` and allows the write it asks for. */
  async function applyAllowed(chat: ChatController, text: string, path: string): Promise<void> {
    const applying = chat.handle({ type: 'apply_code', text, path });
    await chat.handle({ type: 'approve', id: (await waitFor(() => approvals().at(-1))).id, decision: 'allow_once' });
    await applying;
  }
  const shown = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  /** What the answers said (an Apply answers like a built-in command). */
  const answers = (): string => shown().flatMap((event) => (event.type === 'text_delta' ? [event.delta] : [])).join('');

  it('asks with the diff of the named file, writes nothing before the yes, and writes the block after it', async () => {
    const chat = controller();
    const applying = chat.handle({ type: 'apply_code', text: 'export const a = 2;\n', path: 'src/a.ts' });
    const request = await waitFor(() => approvals()[0]);
    assert.equal(request.category, 'write');
    assert.equal(request.title, 'Write src/a.ts');
    assert.equal(request.diff?.path, 'src/a.ts');
    assert.match(request.diff?.unified ?? '', /^-export const a = 1;$/m);
    assert.match(request.diff?.unified ?? '', /^\+export const a = 2;$/m);
    assert.equal(readFileSync(join(root, 'src', 'a.ts'), 'utf8'), 'export const a = 1;\n', 'nothing is written before the answer');
    await chat.handle({ type: 'approve', id: request.id, decision: 'allow_once' });
    await applying;
    assert.equal(readFileSync(join(root, 'src', 'a.ts'), 'utf8'), 'export const a = 2;\n');
    assert.ok(posted.some((message) => message.type === 'approval_done' && message.decision === 'allow_once'));
    assert.match(answers(), /Applied: Overwrote src\/a\.ts/);
    assert.equal(server.requestsFor('openai').length, 0, 'no model is asked to apply a block');
    await chat.dispose();
  });

  it('shows the Apply as a prompt of its own: a quiet line of what the person did (not a message they typed), a write card with its diff, an ending', async () => {
    const chat = controller();
    await applyAllowed(chat, 'export const a = 2;\n', './src/a.ts');
    const events = shown();
    const at = (type: TranscriptEvent['type']): number => events.findIndex((event) => event.type === type);
    assert.deepEqual(events[at('user_message')], { type: 'user_message', text: 'Applied a code block to src/a.ts', action: true });
    const end = events.find((event) => event.type === 'tool_end');
    assert.equal(end?.type === 'tool_end' && end.diff?.path, 'src/a.ts', 'the card carries the diff the changes bar counts');
    assert.ok(at('user_message') < at('tool_start') && at('tool_start') < at('tool_end') && at('tool_end') < at('prompt_end'));
    const ending = events.findLast((event) => event.type === 'prompt_end') as { status: string; message: string } | undefined;
    assert.equal(ending?.status, 'completed');
    assert.equal(ending?.message, '', 'the answer says "Applied" once: the ending does not repeat it');
    const id = chat.sessionId!;
    await chat.dispose();

    // Reopened (a reloaded window), the session shows the Apply as it was shown live.
    posted = [];
    const reopened = controller();
    await reopened.handle({ type: 'resume', sessionId: id });
    const replayed = shown();
    assert.ok(replayed.some((event) => event.type === 'user_message' && event.text === 'Applied a code block to src/a.ts' && event.action === true));
    assert.ok(replayed.some((event) => event.type === 'tool_end' && event.diff?.path === 'src/a.ts'));
    await reopened.dispose();
  });

  it('Undo on its changes bar puts the file back as it was before the Apply, on the click alone', async () => {
    const chat = controller();
    await applyAllowed(chat, 'export const a = 2;\n', 'src/a.ts');
    assert.equal(readFileSync(join(root, 'src', 'a.ts'), 'utf8'), 'export const a = 2;\n');
    const asked = approvals().length;
    const messages = shown().filter((event) => event.type === 'user_message').length;
    await chat.handle({ type: 'undo_prompt' });
    assert.equal(readFileSync(join(root, 'src', 'a.ts'), 'utf8'), 'export const a = 1;\n');
    // The click was the answer: no approval card for it, and no message in the person's name.
    assert.equal(approvals().length, asked);
    assert.equal(shown().filter((event) => event.type === 'user_message').length, messages);
    const restored = posted.findLast((message) => message.type === 'restored');
    assert.deepEqual(restored, { type: 'restored', target: { kind: 'undo' }, outcome: 'restored', message: 'Undone: src/a.ts is back as it was.' });
    await chat.dispose();
  });

  it('tells the agents: their next request reads that the person applied the block to the file', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Use `export const a = 2;`.' }] }, { blocks: [{ type: 'text', text: 'Noted.' }] });
    const chat = controller();
    await chat.handle({ type: 'send', text: 'What should a be?' });
    await applyAllowed(chat, 'export const a = 2;\n', 'src/a.ts');
    await chat.handle({ type: 'send', text: 'Now add b.' });
    const [, second] = server.requestsFor('openai');
    const messages = (second!.body as { messages: { role: string; content: unknown }[] }).messages;
    const text = JSON.stringify(messages.slice(-2));
    assert.match(text, /The person applied a code block from an answer to src\/a\.ts/);
    assert.match(text, /Now add b\./);
    assert.equal(messages.at(-1)?.role, 'user');
    await chat.dispose();
  });

  it('denied, the file stays as it was, the view says it was not applied, and the agents are not told', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Fine.' }] });
    const chat = controller();
    const applying = chat.handle({ type: 'apply_code', text: 'broken\n', path: 'src/a.ts' });
    const request = await waitFor(() => approvals()[0]);
    await chat.handle({ type: 'approve', id: request.id, decision: 'reject_once' });
    await applying;
    assert.equal(readFileSync(join(root, 'src', 'a.ts'), 'utf8'), 'export const a = 1;\n');
    assert.match(answers(), /Not applied to src\/a\.ts/);
    await chat.handle({ type: 'send', text: 'Hello' });
    assert.doesNotMatch(JSON.stringify(server.requestsFor('openai')[0]!.body), /applied a code block/);
    await chat.dispose();
  });

  it('refuses a path outside the workspace (.., absolute, a symlink out) before asking, and writes nothing there', async () => {
    symlinkSync(outside, join(root, 'out'));
    const chat = controller();
    for (const path of ['../elsewhere/x.ts', join(outside, 'y.ts'), 'out/z.ts', 'src/../../elsewhere/w.ts']) {
      await chat.handle({ type: 'apply_code', text: 'owned\n', path });
    }
    assert.deepEqual(approvals(), [], 'nobody is asked about a path that may not be written');
    const told = notices();
    assert.equal(told.length, 4);
    for (const text of told) assert.match(text, /Not applied: .* outside the workspace/);
    assert.match(told[2]!, /symlink/);
    for (const name of ['x.ts', 'y.ts', 'z.ts', 'w.ts']) assert.equal(existsSync(join(outside, name)), false);
    await chat.dispose();
  });

  it('without a file named, asks the host which file; a dismissed question does nothing', async () => {
    const chat = controller();
    await chat.handle({ type: 'apply_code', text: 'x\n' });
    assert.equal(asked, 1);
    assert.deepEqual(approvals(), []);
    picked = 'src/b.ts';
    const applying = chat.handle({ type: 'apply_code', text: 'export const b = 1;\n' });
    const request = await waitFor(() => approvals()[0]);
    assert.equal(request.title, 'Write src/b.ts');
    await chat.handle({ type: 'approve', id: request.id, decision: 'allow_once' });
    await applying;
    assert.equal(readFileSync(join(root, 'src', 'b.ts'), 'utf8'), 'export const b = 1;\n');
    assert.match(answers(), /Applied: Created src\/b\.ts/);
    await chat.dispose();
  });
});
