/**
 * A resumed session shows what it showed live, in each front door: one
 * session with a plan, an MCP tool, a subagent, an approval, a review round,
 * /undo and a cancel, recorded live through the door, then shown again the
 * door's way: crow acp's session/load (its updates compared as JSON), the
 * VS Code chat's resume (its transcript as text), crow sessions show (as
 * crow run printed it).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { dataHome } from '../../src/config/paths';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { CROW, runCrow, startAcp, until } from '../support/crow-binary';
import { userConfigDir } from '../support/doors';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';
import { folderChatHost } from '../support/chat-host';

const FIXTURE = resolve(__dirname, '../fixtures/mcp-server.ts');
const call = (name: string, args: unknown, text?: string): ScriptedReply => ({
  blocks: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_call', name, arguments: args }],
});
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** The first prompt, on the pair agent: a plan, an MCP tool, a subagent, an edit (approved), then a review that approves. */
const FIRST: ScriptedReply[] = [
  call('todo_write', {
    todos: [
      { id: '1', content: 'Look the notes up', status: 'in_progress', priority: 'high' },
      { id: '2', content: 'Rewrite notes.md', status: 'pending', priority: 'medium' },
    ],
  }, 'I will plan first.'),
  call('mcp__fx__echo', { text: 'notes' }),
  call('task', { agent: 'explorer', task: 'Read notes.md and say what it holds.' }),
  call('read_file', { path: 'notes.md' }),
  call('task_complete', { summary: 'notes.md holds the old notes.' }),
  call('write_file', { path: 'notes.md', content: 'new notes\n' }),
  say('I rewrote the notes.'),
  say('Rewrote notes.md after looking it up.'),
  call('task_complete', { summary: 'Checked: notes.md says new notes.' }),
];

/** The third prompt: an answer that streams slowly, cancelled once it shows. */
const SLOW: ScriptedReply = { blocks: [{ type: 'text', text: 'Writing more and more and more words here.' }], chunkSize: 4, latencyMs: 150 };

describe('a resumed session shows what it showed live, in each front door', function () {
  this.timeout(90_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-replay-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-replay-ws-')));
    writeFileSync(join(root, 'notes.md'), 'old notes\n');
    mkdirSync(userConfigDir(home), { recursive: true });
    const mcp = `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(['--require', require.resolve('tsx/cjs'), FIXTURE])}\n`;
    writeFileSync(join(userConfigDir(home), 'config.toml'), mcp);
    llm.enqueue('anthropic', ...FIRST, SLOW);
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({ ANTHROPIC_API_KEY: 'replay-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  const streaming = (): boolean => llm.requestsFor('anthropic').length > FIRST.length;

  it('crow acp: session/load sends the updates of every prompt again, each opened by the message', async () => {
    const live = startAcp(root, home, env(), { permission: () => 'allow_once' });
    await live.client.initialize();
    const { sessionId } = await live.client.newSession(root);
    await live.client.agent.request('session/set_mode', { sessionId, modeId: 'pair' });
    const prompts: { text: string; updates: SessionUpdate[] }[] = [];
    const send = async (text: string, cancel = false): Promise<string> => {
      const from = live.client.updates(sessionId).length;
      const answer = live.client.prompt(sessionId, text);
      if (cancel) {
        await until(() => live.client.said(sessionId).includes('Writing'), 'the slow answer to show');
        await live.client.cancel(sessionId);
      }
      const { stopReason } = await answer;
      prompts.push({ text, updates: live.client.updates(sessionId).slice(from) });
      return stopReason;
    };
    assert.equal(await send('Look up and rewrite the notes'), 'end_turn');
    assert.equal(await send('/undo'), 'end_turn');
    assert.equal(await send('Keep writing', true), 'cancelled');
    assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'old notes\n', '/undo put the notes back');
    await live.stop();

    const later = startAcp(root, home, env());
    try {
      await later.client.initialize();
      await later.client.agent.request('session/load', { sessionId, cwd: root, mcpServers: [] });
      const replayed = normalised(later.client.updates(sessionId));
      const expected = normalised(prompts.flatMap(({ text, updates }) => [userMessage(text), ...updates]));
      assert.deepEqual(replayed, expected);
      for (const kind of ['plan', 'tool_call', 'tool_call_update']) assert.ok(replayed.some((update) => update.sessionUpdate === kind), kind);
      assert.match(JSON.stringify(replayed), /mcp__fx__echo/);
      assert.match(JSON.stringify(replayed), /explorer/);
      assert.match(JSON.stringify(replayed), /Reviewer approved/);
    } finally {
      await later.stop();
    }
  });

  it("the VS Code chat: a resumed session's transcript reads as it did live", async () => {
    const live = chat(root, home, env());
    await live.controller.pick({ agent: 'pair' });
    await live.controller.handle({ type: 'send', text: 'Look up and rewrite the notes' });
    await live.controller.handle({ type: 'send', text: '/undo' });
    const sent = live.controller.handle({ type: 'send', text: 'Keep writing' });
    await until(() => streaming() && transcriptText(live.events()).some((line) => line.includes('Writing')), 'the slow answer to show');
    await live.controller.handle({ type: 'cancel' });
    await sent;
    const id = live.controller.sessionId!;
    const shownLive = transcriptText(live.events());
    await live.controller.dispose();
    assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'old notes\n', '/undo put the notes back');

    const later = chat(root, home, env());
    try {
      await later.controller.handle({ type: 'resume', sessionId: id });
      assert.deepEqual(transcriptText(later.events()), shownLive);
      assert.match(shownLive.join('\n'), /plan: in_progress Look the notes up[\s\S]*tool mcp__fx__echo[\s\S]*subagent explorer started[\s\S]*review round 1[\s\S]*verdict approved/);
      assert.match(shownLive.join('\n'), /end of prompt: cancelled/);
    } finally {
      await later.controller.dispose();
    }
  });

  it('crow sessions show prints each prompt as crow run printed it', async () => {
    const shown: string[] = [];
    const run = async (args: string[], cancel = false): Promise<string> => {
      const file = join(home, `run-${shown.length}.txt`);
      const fd = openSync(file, 'w');
      // One file for stdout and stderr, so the answer and the work interleave as a person saw them.
      const child = spawn(process.execPath, [CROW, 'run', ...args], { cwd: root, env: isolatedEnv(home, env()), stdio: ['ignore', fd, fd] });
      if (cancel) {
        await until(() => streaming() && readFileSync(file, 'utf8').includes('Writing'), 'the slow answer to show');
        child.kill('SIGINT');
      }
      await new Promise((done) => child.on('close', done));
      closeSync(fd);
      const text = readFileSync(file, 'utf8');
      shown.push(text);
      return text;
    };
    // No one can answer an approval on a pipe: the edit and the MCP call are allowed up front (an approval's question is the terminal's own, not an event).
    await run(['Look up and rewrite the notes', '--agent', 'pair', '--allow', 'write,execute']);
    await run(['/undo', '--continue']);
    await run(['Keep writing', '--continue'], true);
    const list = await runCrow(['sessions', 'list', '--cwd', root], isolatedEnv(home, env()), root);
    const id = /^(\S+)/.exec(list.stdout.trim())![1]!;
    const show = await runCrow(['sessions', 'show', id], isolatedEnv(home, env()), root);
    assert.equal(show.code, 0, show.stderr);

    const prompts = show.stdout.split(/\n(?=› )/).slice(1).map((part) => part.split('\n').slice(1).join('\n').trim());
    const lived = shown.map(liveBody);
    assert.deepEqual(prompts, lived);
    assert.match(prompts[0]!, /● Using mcp__fx__echo \{"text":"notes"\}[\s\S]*● Handing over to explorer[\s\S]*✓ Reviewer approved/);
  });
});

/** The person's message as session/load sends it. */
function userMessage(text: string): SessionUpdate {
  return { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } };
}

/**
 * Updates of prompts only, compared as JSON but for what differs by nature:
 * message ids (fresh each time), how text was chunked (streamed in pieces
 * live, whole when stored), and a diff's texts (the whole file live, the
 * changed hunks once the file has moved on).
 */
function normalised(updates: SessionUpdate[]): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  for (const update of updates) {
    if (SESSION_LEVEL.has(update.sessionUpdate)) continue;
    const { messageId: _id, ...rest } = update as SessionUpdate & { messageId?: string };
    const copy: Record<string, any> = JSON.parse(JSON.stringify(rest));
    if (Array.isArray(copy.content)) copy.content = copy.content.map((item: any) => (item.type === 'diff' ? { type: 'diff', path: item.path } : item));
    const previous = out.at(-1);
    if (previous && copy.sessionUpdate.endsWith('_chunk') && previous.sessionUpdate === copy.sessionUpdate && copy.content?.type === 'text') {
      previous.content = { ...previous.content, text: previous.content.text + copy.content.text };
      continue;
    }
    out.push(copy);
  }
  return out;
}

const SESSION_LEVEL = new Set(['available_commands_update', 'config_option_update', 'current_mode_update', 'session_info_update']);

/**
 * What a `crow run` printed of its prompt: without its header line, its
 * closing lines (tokens and time, the session id) and what the terminal
 * itself answered to the person (that Ctrl-C is cancelling), which are the
 * run's and not the session's.
 */
function liveBody(text: string): string {
  // The header (printed once the agents are built, after any notice of a slow start) and the two closing lines are the run's, not the prompt's.
  const lines = text.trimEnd().split('\n').filter((line) => !line.startsWith('crow · '));
  return lines
    .slice(0, -2)
    .join('\n')
    .replace(/Cancelling… \(press Ctrl-C again to quit at once\)\n\n?/, '')
    .trim();
}

/** The chat view's controller on the folder, approving what it is asked, and every transcript event it posted. */
function chat(root: string, home: string, extra: Record<string, string>): { controller: ChatController; events(): TranscriptEvent[] } {
  const env = isolatedEnv(home, extra);
  mkdirSync(dataHome(env), { recursive: true });
  const posted: HostMessage[] = [];
  const host = folderChatHost(root, env);
  const view = quietViewActions();
  const controller: ChatController = new ChatController(host, (message) => {
    posted.push(structuredClone(message));
    if (message.type === 'approval') void controller.handle({ type: 'approve', id: message.request.id, decision: 'allow_once' });
  }, view);
  return { controller, events: () => posted.flatMap((message) => (message.type === 'events' ? message.events : [])) };
}

/** A transcript as lines of text: what each event shows. */
function transcriptText(events: TranscriptEvent[]): string[] {
  const lines: string[] = [];
  for (const event of events) {
    const last = lines.length - 1;
    switch (event.type) {
      case 'text_delta':
      case 'thinking_delta': {
        const head = `${event.type === 'text_delta' ? 'text' : 'thinking'} ${event.actor.agent}: `;
        if (lines[last]?.startsWith(head)) lines[last] += event.delta;
        else lines.push(head + event.delta);
        break;
      }
      case 'user_message':
        lines.push(`user: ${event.text}`);
        break;
      case 'tool_start':
        lines.push(`tool ${event.tool} ${event.title} (${event.actor.agent})`);
        break;
      case 'tool_end':
        lines.push(`end ${event.callId} ${event.status}: ${event.output}${event.diff ? ` diff ${event.diff.path}` : ''}`);
        break;
      case 'plan':
        lines.push(`plan: ${event.entries.map((entry) => `${entry.status} ${entry.content}`).join('; ')}`);
        break;
      case 'handoff':
        lines.push(`handoff ${event.from.agent} → ${event.to.agent} (${event.purpose})`);
        break;
      case 'subagent':
        lines.push(`subagent ${event.subagent} ${event.state}: ${event.text}`);
        break;
      case 'notice':
        lines.push(`notice ${event.level}: ${event.text}`);
        break;
      case 'review_start':
        lines.push(`review round ${event.round} by ${event.reviewer.agent}`);
        break;
      case 'verdict':
        lines.push(`verdict ${event.verdict} (round ${event.round})`);
        break;
      case 'prompt_end':
        lines.push(`end of prompt: ${event.status} ${event.message}`);
        break;
    }
  }
  return lines;
}
