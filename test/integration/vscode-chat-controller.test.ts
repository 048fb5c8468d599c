import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { editorless } from '../support/view-actions';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import type { ViewActions } from '../../src/adapters/vscode/chat/chat-actions';
import { folderChatHost, waitFor } from '../support/chat-host';
import { providerSettings } from '../../src/adapters/vscode/chat/provider-setup';
import { readConfiguration, type VscodeModelInfo } from '../../src/adapters/vscode/configuration';
import { registerHostProvider } from '../../src/llm/host-providers';
import { ScriptedProvider } from '../../src/llm/scripted';
import { dataHome } from '../../src/config/paths';
import { SessionStore } from '../../src/session/session-store';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { isolatedEnv } from '../support/isolated-env';

const SECRET = 'sk-test-SECRET-never-shown';

/** The chat view's host side, driven as the webview drives it, against the fake LLM server. */
describe('VS Code chat controller: a prompt in, view messages and files out', () => {
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let posted: HostMessage[];
  let actions: { diffs: string[]; traces: string[]; changed: number; previews: { id: string; unified: string }[]; settings: string[]; logs: number; copied: string[]; signIns: string[] };
  let settings: Record<string, unknown>;
  /** Keys the set-up stored (VS Code's secret storage in the extension). */
  let stored: Record<string, string>;

  before(async () => (server = await FakeLlmServer.start()));
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-chat-'));
    root = join(home, 'project');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.md'), '# Notes\n');
    posted = [];
    actions = { diffs: [], traces: [], changed: 0, previews: [], settings: [], logs: 0, copied: [], signIns: [] };
    settings = { provider: 'openai', model: 'fake-model', baseUrls: { openai: server.openaiBaseUrl } };
    stored = {};
    last = undefined;
  });
  /** Every controller a test opened: closed (its prompt and snapshots ended) before the home goes, so nothing still writes there. */
  let opened: ChatController[] = [];
  afterEach(async () => {
    await Promise.all(opened.map((chat) => chat.dispose().catch(() => undefined)));
    opened = [];
    rmSync(home, { recursive: true, force: true });
  });

  /** The session the view showed last (VS Code's workspace state in the extension). */
  let last: string | undefined;
  /** What the extension calls when the models VS Code offers change; set while a controller given VS Code's models lives. */
  let modelsChanged: (() => void) | undefined;

  function controller(trusted?: () => boolean, keys: Record<string, string> = { OPENAI_API_KEY: SECRET }, vscodeModels?: VscodeModelInfo[]): ChatController {
    const env = isolatedEnv(home, keys);
    const host = folderChatHost(root, env, (key) => settings[key], {
      env: async () => ({ ...env, ...stored }),
      // The extension adds the models VS Code offers; a test gives its own.
      ...(vscodeModels
        ? {
            configuration: () => ({ ...readConfiguration((key) => settings[key]), vscodeModels }),
            watchVscodeModels: (listener: () => void) => {
              modelsChanged = listener;
              return () => void (modelsChanged = undefined);
            },
          }
        : {}),
      ...(trusted ? { trusted } : {}),
      lastSession: { get: () => last, set: (id) => void (last = id) },
    });
    const view: ViewActions = {
      openDiff: async (_session, callId) => void actions.diffs.push(callId),
      openFile: async () => undefined,
      showTrace: async (sessionId, callId) => void actions.traces.push(`${sessionId}:${callId ?? ''}`),
      sessionsChanged: () => void actions.changed++,
      previewChange: async (id, unified) => void actions.previews.push({ id, unified }),
      signInMcp: async (server) => void actions.signIns.push(server),
      ...editorless,
      openSettings: async (setting) => void actions.settings.push(setting),
      showLog: () => void actions.logs++,
      storeKey: async (variable, key) => void (stored[variable] = key),
      copyText: async (text) => void actions.copied.push(text),
      insertAtCursor: async () => {
        throw new Error('Open a file and put the cursor where the code goes, then press Insert again.');
      },
      pickFileForCode: async () => undefined,
      openPage: async () => true,
      confirm: async () => true,
      useProvider: async (choice) => {
        settings = { ...settings, ...providerSettings(choice, { provider: String(settings['provider']), baseUrls: settings['baseUrls'] as Record<string, string> }) };
      },
      useRoleProvider: async (role, provider) => {
        settings = { ...settings, [role === 'coagent' ? 'reviewer.provider' : 'primary.provider']: provider };
      },
    };
    const chat = new ChatController(host, (message) => posted.push(structuredClone(message)), view);
    opened.push(chat);
    return chat;
  }

  /** A view closed (its window reloading) while a long command runs; the session's id. */
  async function closeMidCommand(): Promise<string> {
    const first = controller();
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo begun; sleep 30' } }] });
    const sent = first.handle({ type: 'send', text: 'Run the long one' });
    await waitFor(() => events().find((event) => event.type === 'tool_progress' && /begun/.test(event.tail ?? '')));
    const id = first.sessionId!;
    await first.dispose();
    await sent;
    return id;
  }

  const events = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  const answerText = (): string =>
    events()
      .flatMap((event) => (event.type === 'text_delta' && event.actor.role === 'primary' ? [event.delta] : []))
      .join('');

  it('opens with the agents, models and sessions, then streams an answer and meters it', async () => {
    const chat = controller();
    await chat.handle({ type: 'ready' });
    const init = posted.find((message) => message.type === 'init');
    assert.ok(init && init.type === 'init');
    assert.equal(init.agent, 'build');
    assert.ok(init.agents.some((agent) => agent.name === 'pair'));
    assert.equal(init.models[0]?.current, 'fake-model');
    assert.deepEqual(init.sessions, [], 'opening the view stores no empty session');
    assert.match(init.welcome ?? '', /It asks before changing files and (asks before running commands|runs commands in a sandbox without asking)/);

    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Hello from **Crow**.' }], usage: { input: 120, output: 8 } });
    await chat.handle({ type: 'send', text: 'Say hello' });

    assert.equal(answerText(), 'Hello from **Crow**.');
    assert.deepEqual(events()[0], { type: 'user_message', text: 'Say hello' });
    assert.equal(events().at(-1)?.type, 'prompt_end');
    const busy = posted.filter((message) => message.type === 'busy').map((message) => message.type === 'busy' && message.busy);
    assert.deepEqual(busy, [true, false]);
    const meter = posted.filter((message) => message.type === 'meter').at(-1);
    assert.ok(meter && meter.type === 'meter');
    assert.equal(meter.prompt.inputTokens, 120);
    assert.equal(meter.session.outputTokens, 8);
    const sessions = posted.filter((message) => message.type === 'sessions').at(-1);
    assert.ok(sessions && sessions.type === 'sessions' && sessions.sessions[0]?.title === 'Say hello');
    // Listed while its first prompt runs already, not "Sessions (0)" until it ends.
    const firstListed = posted.findIndex((message) => message.type === 'sessions' && message.sessions.length === 1);
    const ended = posted.findIndex((message) => message.type === 'events' && message.events.some((event) => event.type === 'prompt_end'));
    assert.ok(firstListed !== -1 && firstListed < ended, 'the session is listed before its first prompt ends');
    assert.equal(actions.changed, 1, 'the Traces view is told to refresh');
    assert.doesNotMatch(JSON.stringify(posted), new RegExp(SECRET), 'the key never reaches the webview');
    await chat.dispose();
  });

  it('picks the models of the roles, a model the configuration does not list included, and the next prompt uses them', async () => {
    const chat = controller();
    await chat.handle({ type: 'ready' });
    await chat.pick({ agent: 'pair' });
    await chat.pick({ role: 'coagent', model: 'fake-reviewer' });
    const agents = posted.filter((message) => message.type === 'agents').at(-1);
    assert.ok(agents && agents.type === 'agents');
    const reviewer = agents.models.find((model) => model.role === 'coagent');
    assert.equal(reviewer?.current, 'fake-reviewer');
    assert.ok(reviewer?.options.includes('fake-reviewer'), 'offered from now on');
    await assert.rejects(chat.pick({ role: 'coagent', model: 'two words' }), /is not a model name/);

    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Done.' } }] });
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Approved.' } }] });
    await chat.handle({ type: 'send', text: 'Do it' });
    const models = server.requests.map((request) => (request.body as { model: string }).model);
    assert.deepEqual(models, ['fake-model', 'fake-reviewer'], 'the builder, then the reviewer on its own model');
    await chat.dispose();
  });

  it('asks before an edit, shows the diff card after the yes, and opens the diff on request', async () => {
    const chat = controller();
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n\n- shipped\n' } }] },
      { blocks: [{ type: 'text', text: 'Added the line.' }] },
    );
    const sent = chat.handle({ type: 'send', text: 'Add "- shipped" to notes.md' });
    const approval = await waitFor(() => posted.find((message) => message.type === 'approval'));
    assert.ok(approval.type === 'approval');
    assert.equal(approval.request.category, 'write');
    assert.equal(approval.request.title, 'Write notes.md');
    assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), '# Notes\n', 'nothing is written before the answer');
    assert.equal(approval.request.diff?.path, 'notes.md', 'the question shows the change');
    assert.match(approval.request.diff?.unified ?? '', /^\+- shipped$/m);
    await chat.handle({ type: 'preview_approval', id: approval.request.id });
    assert.deepEqual(actions.previews, [{ id: approval.request.id, unified: approval.request.diff!.unified }]);
    await chat.handle({ type: 'ready' });
    const asked = posted.filter((message) => message.type === 'approval' && message.request.id === approval.request.id);
    assert.equal(asked.length, 2, 'a reloaded view is asked again');
    await chat.handle({ type: 'approve', id: approval.request.id, decision: 'allow_once' });
    await sent;

    assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), '# Notes\n\n- shipped\n');
    assert.ok(posted.some((message) => message.type === 'approval_done' && message.decision === 'allow_once'));
    const end = events().find((event) => event.type === 'tool_end');
    assert.ok(end && end.type === 'tool_end');
    assert.equal(end.status, 'completed');
    assert.equal(end.diff?.path, 'notes.md');
    assert.match(end.diff?.unified ?? '', /\+- shipped/);
    await chat.handle({ type: 'open_diff', callId: end.callId });
    assert.deepEqual(actions.diffs, [end.callId]);
    await chat.handle({ type: 'show_trace', callId: end.callId });
    assert.equal(actions.traces.length, 1);
    await chat.dispose();
  });

  it('a view reloaded while a command runs gets its card and its latest output once; after the end, no live output', async () => {
    settings['permissions.execute'] = 'allow';
    const chat = controller();
    const command = 'echo live-$((6 * 7)); while [ ! -e gate ]; do sleep 0.05; done';
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command } }] }, { blocks: [{ type: 'text', text: 'Ran.' }] });
    const sent = chat.handle({ type: 'send', text: 'Run it' });
    await waitFor(() => events().find((event) => event.type === 'tool_progress' && event.tail === 'live-42'));
    const replayed = (): TranscriptEvent[] => (posted.filter((message) => message.type === 'events').at(-1) as { events: TranscriptEvent[] }).events;
    await chat.handle({ type: 'ready' });
    const live = replayed().filter((event) => event.type === 'tool_progress');
    assert.equal(live.length, 1, 'the latest progress, not every update');
    assert.equal(replayed().at(-1), live[0], 'after the card it updates');
    writeFileSync(join(root, 'gate'), '');
    await sent;
    await chat.handle({ type: 'ready' });
    assert.ok(!replayed().some((event) => event.type === 'tool_progress'), 'an ended call is shown by its result alone');
    await chat.dispose();
  });

  it('cancels a prompt waiting for an approval: the question is withdrawn and nothing is written', async () => {
    settings['permissions.execute'] = 'ask';
    const chat = controller();
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo hi > out.txt' } }] });
    const sent = chat.handle({ type: 'send', text: 'Run it' });
    await waitFor(() => posted.find((message) => message.type === 'approval'));
    await chat.handle({ type: 'cancel' });
    await sent;
    assert.ok(posted.some((message) => message.type === 'approval_done' && message.decision === 'withdrawn'));
    const end = events().at(-1);
    assert.ok(end && end.type === 'prompt_end');
    assert.equal(end.status, 'cancelled');
    assert.equal(chat.busy, false);
    assert.throws(() => readFileSync(join(root, 'out.txt')), /ENOENT/);
    await chat.dispose();
  });

  it('allows or denies the approval that has waited longest from the keyboard command, and says when none waits', async () => {
    settings['permissions.write'] = 'ask';
    const chat = controller();
    assert.equal(chat.answerWaiting('allow_once'), false, 'nothing waits yet');
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'first.txt', content: 'one\n' } }] },
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'second.txt', content: 'two\n' } }] },
      { blocks: [{ type: 'text', text: 'One written, one not.' }] },
    );
    const sent = chat.handle({ type: 'send', text: 'Write two files' });
    await waitFor(() => posted.find((message) => message.type === 'approval'));
    assert.equal(chat.answerWaiting('allow_once'), true);
    await waitFor(() => posted.filter((message) => message.type === 'approval').at(1));
    assert.equal(chat.answerWaiting('reject_once'), true);
    await sent;
    assert.equal(readFileSync(join(root, 'first.txt'), 'utf8'), 'one\n');
    assert.throws(() => readFileSync(join(root, 'second.txt')), /ENOENT/);
    await chat.dispose();
  });

  it('stops one long command from its card; the agent reads that the person stopped it and goes on', async () => {
    const chat = controller();
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo started; sleep 30; echo "fin$((1 + 1))ished"' } }] },
      { blocks: [{ type: 'text', text: 'You stopped it; I will not run it again.' }] },
    );
    const sent = chat.handle({ type: 'send', text: 'Run the slow thing' });
    const start = await waitFor(() => events().find((event) => event.type === 'tool_start'));
    assert.ok(start.type === 'tool_start');
    await waitFor(() => events().find((event) => event.type === 'tool_progress' && /started/.test(event.tail ?? '')));
    await chat.handle({ type: 'stop_call', callId: start.callId });
    await sent;
    const end = events().find((event) => event.type === 'tool_end');
    assert.ok(end && end.type === 'tool_end' && end.status === 'failed');
    assert.equal(answerText(), 'You stopped it; I will not run it again.');
    assert.equal(events().at(-1)?.type === 'prompt_end' && (events().at(-1) as { status: string }).status, 'needs_input', 'the prompt went on, not cancelled');
    const sentToModel = JSON.stringify(server.requests.at(-1)!.body);
    assert.match(sentToModel, /The person stopped this call while it ran/);
    assert.doesNotMatch(sentToModel, /fin2ished/, 'the command did not run on');
    posted = [];
    await chat.handle({ type: 'stop_call', callId: start.callId });
    assert.match(JSON.stringify(posted), /already ended/);
    await chat.dispose();
  });

  it('a new session while a prompt waits cancels that prompt, and nothing of it reaches the new transcript', async () => {
    settings['permissions.execute'] = 'ask';
    const chat = controller();
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo old' } }] });
    const sent = chat.handle({ type: 'send', text: 'Old prompt' });
    await waitFor(() => posted.find((message) => message.type === 'approval'));
    const oldId = chat.sessionId;
    await chat.handle({ type: 'new_session' });
    const resetAt = posted.findIndex((message) => message.type === 'reset');
    await sent;
    assert.notEqual(chat.sessionId, oldId);
    assert.ok(posted.some((message) => message.type === 'approval_done' && message.decision === 'withdrawn'));
    const after = posted.slice(resetAt).flatMap((message) => (message.type === 'events' ? message.events : []));
    assert.deepEqual(after, [], 'the old prompt stays out of the new session');
    await chat.dispose();
  });

  it('a prompt sent right after New Session (from the view title, not yet done) runs in the new session and stays on screen', async () => {
    const chat = controller();
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'First answer.' }] }, { blocks: [{ type: 'text', text: 'Answer in the new session.' }] });
    await chat.handle({ type: 'send', text: 'First prompt' });
    const oldId = chat.sessionId;
    // The view title's New Session goes through a VS Code command; the person's Enter comes through the webview, unordered with it.
    const reset = chat.newSession();
    const sent = chat.handle({ type: 'send', text: 'Right after' });
    await Promise.all([reset, sent]);
    assert.notEqual(chat.sessionId, oldId);
    const resetAt = posted.map((message) => message.type).lastIndexOf('reset');
    const shown = JSON.stringify(posted.slice(resetAt));
    assert.match(shown, /Right after/, 'the prompt shows after the reset, not wiped by it');
    assert.match(shown, /Answer in the new session\./);
    const stored = new SessionStore({ dataHome: dataHome(isolatedEnv(home, {})) }).list({ cwd: root });
    assert.ok(stored.some((meta) => meta.id === chat.sessionId && meta.title.includes('Right after')), 'stored as the new session');
    await chat.dispose();
  });

  it('offers the thinking level of a model that thinks, and picks it', async () => {
    settings = { provider: 'anthropic', model: 'claude-sonnet-4-6', baseUrls: { anthropic: server.anthropicBaseUrl } };
    const chat = controller();
    await chat.handle({ type: 'ready' });
    const init = posted.find((message) => message.type === 'init');
    assert.ok(init && init.type === 'init' && init.thinking, 'offered for a thinking model');
    await chat.handle({ type: 'pick_thinking', level: 'high' });
    const agents = posted.filter((message) => message.type === 'agents').at(-1);
    assert.ok(agents && agents.type === 'agents');
    assert.equal(agents.thinking?.current, 'high');
    await chat.handle({ type: 'pick_thinking', level: 'extreme' });
    assert.match(JSON.stringify(events().at(-1)), /not a thinking level/);
    await chat.dispose();
  });

  it('says why an answer stopped short when the model refuses', async () => {
    const chat = controller();
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'I cannot' }], stopReason: 'refusal' });
    await chat.handle({ type: 'send', text: 'Do the questionable thing.' });
    const warned = events().filter((event) => event.type === 'notice' && event.level === 'warning');
    assert.ok(warned.some((event) => event.type === 'notice' && /builder: The model declined to continue .*rephrase the request/.test(event.text)), JSON.stringify(warned));
    await chat.dispose();
  });

  it('a provider that is down: one retry line, then an error with a hint, and Retry sends the prompt again', async () => {
    const chat = controller();
    settings = { ...settings, baseUrls: { openai: 'http://127.0.0.1:9/v1' } };
    await chat.handle({ type: 'send', text: 'Anyone there?' });
    const retries = events().filter((event) => event.type === 'notice' && event.replaces === 'retry');
    assert.ok(retries.length >= 1, 'the retries are told');
    const line = retries[0]!.type === 'notice' ? retries[0]!.text : '';
    assert.match(line, /^The provider failed; retry 1 in [\d.]+ m?s: /, 'the reason comes last, not in brackets around its own brackets');
    assert.ok(events().filter((event) => event.type === 'notice' && !event.replaces).every((event) => event.type === 'notice' && !/The provider failed; retry/.test(event.text)), 'every retry line replaces the one before');
    const end = events().at(-1);
    assert.ok(end && end.type === 'prompt_end' && end.status === 'error');
    assert.equal(end.hint?.setting, 'crow.baseUrls');
    settings = { ...settings, baseUrls: { openai: server.openaiBaseUrl } };
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Back again.' }] });
    await chat.handle({ type: 'retry' });
    assert.equal(server.requests.length, 1);
    assert.match(JSON.stringify(server.requests[0]!.body.messages), /Anyone there\?/);
    await chat.handle({ type: 'open_settings', setting: 'crow.baseUrls' });
    await chat.handle({ type: 'show_log' });
    assert.deepEqual([actions.settings, actions.logs], [['crow.baseUrls'], 1]);
    await chat.dispose();
  }).timeout(60_000);

  it('a reviewed run resumed shows what it showed live: rounds, verdicts, handoffs, the final line', async () => {
    const live = controller();
    await live.pick({ agent: 'pair' });
    const call = (name: string, args: unknown) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
    server.enqueue(
      'openai',
      call('write_file', { path: 'notes.md', content: '# Notes\n\n- one\n' }),
      call('task_complete', { summary: 'Added a line.' }),
      { blocks: [{ type: 'text', text: 'Changes requested: add a second line.' }] },
      call('write_file', { path: 'notes.md', content: '# Notes\n\n- one\n- two\n' }),
      call('task_complete', { summary: 'Added the second line.' }),
      call('task_complete', { summary: 'Approved.' }),
    );
    settings = { ...settings, 'permissions.write': 'allow' };
    posted = [];
    await live.handle({ type: 'send', text: 'Add lines to notes.md' });
    const shape = (list: TranscriptEvent[]) =>
      list.flatMap((event) => {
        switch (event.type) {
          case 'review_start':
            return [`review ${event.reviewer.agent} round ${event.round}`];
          case 'verdict':
            return [`${event.verdict} round ${event.round}`];
          case 'handoff':
            return [`handoff ${event.purpose}`];
          case 'prompt_end':
            return [`end ${event.status}: ${event.message}`];
          case 'notice':
            return [`notice ${event.text}`];
          case 'tool_start':
            return [`${event.actor.agent} ${event.tool} ${event.title}`];
          default:
            return [];
        }
      });
    const liveShape = shape(events());
    const id = live.sessionId!;
    await live.dispose();
    posted = [];
    const resumed = controller();
    await resumed.handle({ type: 'resume', sessionId: id });
    assert.deepEqual(shape(events()), liveShape);
    assert.ok(liveShape.includes('review reviewer round 2') && liveShape.includes('feedback round 1') && liveShape.includes('approved round 2'), liveShape.join('\n'));
    assert.ok(!liveShape.some((line) => /task was completed|marked the task complete/.test(line)), 'the claim that goes to review is not announced as done');
    await resumed.dispose();
  });

  it('after a window reload mid-prompt, opens on that session: its command reads interrupted, and Resume goes on', async () => {
    const first = controller();
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo step-one' } }] }, { blocks: [{ type: 'text', text: 'Done.' }] });
    await first.handle({ type: 'send', text: 'Run step one' });
    const id = first.sessionId!;
    await first.dispose();
    // What a reload leaves: the record stops after the command started.
    const file = join(dataHome(isolatedEnv(home, {})), 'sessions', id, 'events.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const started = lines.findIndex((line) => line.includes('"tool_call_start"'));
    writeFileSync(file, `${lines.slice(0, started + 1).join('\n')}\n`);

    posted = [];
    const reloaded = controller();
    await reloaded.handle({ type: 'ready' });
    assert.equal(reloaded.sessionId, id, 'the view opens on the interrupted session');
    const end = events().find((event) => event.type === 'prompt_end');
    assert.ok(end && end.type === 'prompt_end' && end.status === 'cancelled' && end.hint?.resume, 'its end offers Resume');
    const card = events().find((event) => event.type === 'tool_end');
    assert.ok(card && card.type === 'tool_end' && card.status === 'cancelled', 'no card spins on as running');
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Going on from step one.' }] });
    await reloaded.handle({ type: 'send', text: 'You were interrupted (the window was reloaded). Go on from where you stopped.' });
    assert.equal(answerText(), 'Going on from step one.');
    assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /Run step one[\s\S]*Go on from where you stopped/);
    await reloaded.dispose();

    // A session that ended normally is not reopened: the view starts afresh.
    posted = [];
    const again = controller();
    await again.handle({ type: 'ready' });
    assert.notEqual(again.sessionId, id);
    await again.dispose();
  });

  it('a window closing while an approval waits writes nothing; the next view offers Resume, which asks again', async () => {
    const first = controller();
    const write = { blocks: [{ type: 'tool_call' as const, name: 'write_file', arguments: { path: 'note.txt', content: 'after the reload\n' } }] };
    server.enqueue('openai', write);
    const sent = first.handle({ type: 'send', text: 'Write the note' });
    await waitFor(() => posted.find((message) => message.type === 'approval'));
    const id = first.sessionId!;
    await first.dispose();
    await sent;
    assert.equal(existsSync(join(root, 'note.txt')), false, 'nothing is written unasked');
    posted = [];
    const reopened = controller();
    await reopened.handle({ type: 'ready' });
    assert.equal(reopened.sessionId, id, 'the view opens on the interrupted session');
    const end = events().find((event) => event.type === 'prompt_end');
    assert.ok(end && end.type === 'prompt_end' && end.hint?.resume, JSON.stringify(end));
    assert.ok(!posted.some((message) => message.type === 'approval'), 'the withdrawn approval is not offered again by itself');
    await reopened.dispose();
  });

  it('after a reload, waits for the old window to let go of the session before reopening it (the two extension hosts overlap)', async () => {
    const id = await closeMidCommand();
    // The old extension host, still winding down as the new view opens: a live process holds the session for a moment.
    const lock = join(dataHome(isolatedEnv(home, {})), 'sessions', id, 'writer.json');
    const oldHost = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      writeFileSync(lock, JSON.stringify({ pid: oldHost.pid, hostname: hostname(), since: Date.now(), command: 'the old window' }));
      setTimeout(() => rmSync(lock, { force: true }), 500);
      posted = [];
      const reopened = controller();
      await reopened.handle({ type: 'ready' });
      assert.equal(reopened.sessionId, id, 'the view opens on the interrupted session once the old window let go');
      const end = events().find((event) => event.type === 'prompt_end');
      assert.ok(end && end.type === 'prompt_end' && end.hint?.resume, JSON.stringify(end));
      await reopened.dispose();
    } finally {
      oldHost.kill();
    }
  });

  it('a window closing mid-command (the view disposed) ends the prompt as interrupted, and the next view offers Resume', async () => {
    const id = await closeMidCommand();
    posted = [];
    const reopened = controller();
    await reopened.handle({ type: 'ready' });
    assert.equal(reopened.sessionId, id);
    const end = events().find((event) => event.type === 'prompt_end');
    assert.ok(end && end.type === 'prompt_end' && end.hint?.resume, JSON.stringify(end));
    await reopened.dispose();
  });

  it('resumes a stored session: the transcript comes back, and the next prompt continues it', async () => {
    const first = controller();
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'First answer.' }] });
    await first.handle({ type: 'send', text: 'First question' });
    const id = first.sessionId!;
    const live = events();
    await first.dispose();

    posted = [];
    const second = controller();
    await second.handle({ type: 'resume', sessionId: id });
    // What the view showed live, again: the message, the answer (one delta now), the context meter, the prompt's end.
    assert.deepEqual(events().map((event) => event.type), ['user_message', 'checkpoint', 'text_delta', 'context', 'prompt_end']);
    assert.deepEqual(events().at(-1), live.at(-1));
    assert.equal(answerText(), 'First answer.');
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Second answer.' }] });
    await second.handle({ type: 'send', text: 'Second question' });
    const history = JSON.stringify(server.requests.at(-1)!.body.messages);
    assert.match(history, /First question[\s\S]*First answer\.[\s\S]*Second question/);
    assert.equal(second.sessionId, id);
    await second.dispose();
  });

  it('keeps a key from SecretStorage out of the stored trace, even when a prompt quotes it', async () => {
    const chat = controller();
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Noted.' }] });
    await chat.handle({ type: 'send', text: `Why does ${SECRET} not work?` });
    const env = isolatedEnv(home);
    const spans = JSON.stringify(new SessionStore({ dataHome: dataHome(env) }).spans(chat.sessionId!));
    assert.match(spans, /Why does \[REDACTED\] not work/);
    assert.doesNotMatch(spans, new RegExp(SECRET));
    await chat.dispose();
  });

  it("gives the agents the tools of MCP servers set in VS Code's settings", async () => {
    const fixture = join(__dirname, '..', 'fixtures', 'mcp-server.ts');
    settings = { ...settings, mcpServers: { fixture: { command: process.execPath, args: ['--require', require.resolve('tsx/cjs'), fixture], permission: 'read' } } };
    const chat = controller();
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'mcp__fixture__echo', arguments: { text: 'from the settings' } }] },
      { blocks: [{ type: 'text', text: 'Echoed.' }] },
    );
    await chat.handle({ type: 'send', text: 'Echo through MCP' });
    const end = events().find((event) => event.type === 'tool_end');
    assert.ok(end && end.type === 'tool_end', JSON.stringify(events()));
    assert.equal(end.status, 'completed', end.output);
    assert.match(end.output, /fixture echo: from the settings/);
    const offered = JSON.stringify(server.requests[0]!.body.tools);
    assert.match(offered, /mcp__fixture__echo/);
    await chat.dispose();
  });

  it("follows VS Code's Workspace Trust: an untrusted folder's .crow/ widens nothing and says so once; trusted, it applies", async () => {
    mkdirSync(join(root, '.crow'));
    writeFileSync(
      join(root, '.crow', 'config.toml'),
      `[permissions]\nexecute = "allow"\n[mcp_servers.fixture]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(['--require', require.resolve('tsx/cjs'), join(__dirname, '../fixtures/mcp-server.ts')])}\n`,
    );
    let trusted = false;
    const chat = controller(() => trusted);
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'One.' }] }, { blocks: [{ type: 'text', text: 'Two.' }] });
    await chat.handle({ type: 'send', text: 'First' });
    await chat.handle({ type: 'send', text: 'Second' });
    const told = events().filter((event) => event.type === 'notice' && /Manage Workspace Trust/.test(event.text));
    assert.equal(told.length, 1, 'said once');
    assert.match(told[0]!.type === 'notice' ? told[0]!.text : '', /permissions\.execute, mcp_servers\.fixture/);
    assert.doesNotMatch(JSON.stringify(server.requests.map((request) => request.body.tools)), /mcp__fixture/, "the project's server did not start");

    trusted = true;
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Three.' }] });
    await chat.handle({ type: 'send', text: 'Third' });
    assert.match(JSON.stringify(server.requests.at(-1)!.body.tools), /mcp__fixture__echo/, 'once trusted, the server runs');
    await chat.dispose();
  });

  it('exports the spans to the OTLP endpoint set in crow.telemetry.otlpEndpoint', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(`${request.url} ${body}`);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      settings = { ...settings, 'telemetry.otlpEndpoint': `http://127.0.0.1:${port}/v1/traces` };
      const chat = controller();
      server.enqueue('openai', { blocks: [{ type: 'text', text: 'Exported.' }] });
      await chat.handle({ type: 'send', text: 'Trace me' });
      await chat.dispose();
      assert.ok(received.length > 0, 'the receiver got the spans');
      assert.match(received.join('\n'), /^\/v1\/traces .*"resourceSpans".*chat fake-model/s);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('opens on the provider set-up when the provider has no key; a key given there answers the next prompt, with no reload', async () => {
    settings = { provider: 'anthropic', model: 'claude-test', baseUrls: { anthropic: server.anthropicBaseUrl } };
    const chat = controller(undefined, {});
    await chat.handle({ type: 'ready' });
    assert.deepEqual(posted.find((message) => message.type === 'setup'), { type: 'setup', need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' } });

    // Sent anyway: one error card, which offers the set-up, and no model request.
    await chat.handle({ type: 'send', text: 'Hello' });
    const ends = events().filter((event) => event.type === 'prompt_end');
    assert.equal(ends.length, 1);
    assert.ok(ends[0]!.type === 'prompt_end' && ends[0]!.hint?.setup, 'the error card offers the set-up');
    assert.equal(ends[0]!.type === 'prompt_end' && ends[0]!.message, 'Crow has no key for anthropic yet.', 'in the set-up\'s words, not an environment variable to set');
    assert.equal(events().filter((event) => event.type === 'notice').length, 0, 'no second notice saying the same');
    assert.equal(server.requests.length, 0);

    posted = [];
    await chat.handle({ type: 'setup_key', provider: 'anthropic', key: '  has spaces inside  ' });
    assert.match(JSON.stringify(posted), /does not look like an API key/);
    await chat.handle({ type: 'setup_key', provider: 'anthropic', key: 'sk-ant-given-in-the-view' });
    assert.equal(stored['ANTHROPIC_API_KEY'], 'sk-ant-given-in-the-view');
    assert.deepEqual(posted.filter((message) => message.type === 'setup').at(-1), { type: 'setup' }, 'the set-up goes once a key is there');
    assert.ok(!JSON.stringify(posted).includes('sk-ant-given-in-the-view'), 'the key never goes back to the view');
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Now I can answer.' }] });
    await chat.handle({ type: 'send', text: 'Hello again' });
    assert.equal(answerText(), 'Now I can answer.');
    const { headers } = server.requests.at(-1)!;
    assert.ok(headers['x-api-key'] === 'sk-ant-given-in-the-view' || headers.authorization === 'Bearer sk-ant-given-in-the-view', 'the request carries the key given');
    await chat.dispose();
  });

  it('offers the models VS Code already has first in the set-up, and one picked there answers through provider "vscode"', async () => {
    settings = { provider: 'anthropic', model: 'claude-test', baseUrls: {} };
    const offered: VscodeModelInfo[] = [{ id: 'copilot/gpt-4o', name: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64_000, vision: true }];
    const chat = controller(undefined, {}, offered);
    await chat.handle({ type: 'ready' });
    assert.deepEqual(posted.find((message) => message.type === 'setup'), {
      type: 'setup',
      need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY', vscodeModels: [{ id: 'copilot/gpt-4o', label: 'GPT-4o (copilot)' }] },
    });
    posted = [];
    await chat.handle({ type: 'use_vscode_model', model: 'copilot/o9' });
    assert.match(JSON.stringify(posted), /VS Code does not offer \\"copilot\/o9\\" now/);
    await chat.handle({ type: 'use_vscode_model', model: 'copilot/gpt-4o' });
    assert.deepEqual(settings, { provider: 'vscode', model: 'copilot/gpt-4o', baseUrls: {} });
    assert.deepEqual(posted.filter((message) => message.type === 'setup').at(-1), { type: 'setup' }, 'no key is needed any more');
    // What the extension registers when its engine loads; here a scripted model stands in for VS Code's.
    const made: string[] = [];
    const unregister = registerHostProvider('vscode', (connection) => {
      made.push(connection.model);
      return new ScriptedProvider([{ text: 'Answered by a model VS Code has.' }], connection.model);
    });
    try {
      await chat.handle({ type: 'send', text: 'Hello' });
    } finally {
      unregister();
    }
    assert.equal(answerText(), 'Answered by a model VS Code has.');
    assert.deepEqual(made, ['copilot/gpt-4o']);
    await chat.dispose();
  });

  it("lists VS Code's models in the model picker by vendor; one picked there moves the role onto it", async () => {
    const offered: VscodeModelInfo[] = [{ id: 'copilot/gpt-4o', name: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64_000, vision: true }];
    const chat = controller(undefined, undefined, offered);
    await chat.handle({ type: 'ready' });
    const init = posted.find((message) => message.type === 'init');
    assert.ok(init && init.type === 'init');
    const primary = init.models.find((model) => model.role === 'primary')!;
    assert.equal(primary.current, 'fake-model');
    assert.ok(primary.options.includes('vscode:copilot/gpt-4o'), JSON.stringify(primary));
    assert.equal(primary.labels?.['vscode:copilot/gpt-4o'], 'GPT-4o (copilot) in VS Code');

    posted = [];
    await chat.handle({ type: 'pick_model', role: 'primary', model: 'vscode:copilot/gpt-4o' });
    assert.equal(settings['primary.provider'], 'vscode');
    const agents = posted.filter((message) => message.type === 'agents').at(-1);
    assert.ok(agents && agents.type === 'agents');
    const picked = agents.models.find((model) => model.role === 'primary')!;
    assert.equal(picked.current, 'copilot/gpt-4o');
    assert.equal(picked.labels?.['copilot/gpt-4o'], 'GPT-4o (copilot)');
    const made: string[] = [];
    const unregister = registerHostProvider('vscode', (connection) => {
      made.push(connection.model);
      return new ScriptedProvider([{ text: 'Picked and answered.' }], connection.model);
    });
    try {
      await chat.handle({ type: 'send', text: 'Hello' });
    } finally {
      unregister();
    }
    assert.equal(answerText(), 'Picked and answered.');
    assert.deepEqual(made, ['copilot/gpt-4o']);
    assert.equal(server.requests.length, 0, 'nothing went to the provider the role left');
    await chat.dispose();
  });

  it('shows a model VS Code offers only later (Copilot after sign-in) in the pickers at once', async () => {
    const offered: VscodeModelInfo[] = [];
    const chat = controller(undefined, undefined, offered);
    await chat.handle({ type: 'ready' });
    const init = posted.find((message) => message.type === 'init');
    assert.ok(init && init.type === 'init');
    assert.ok(!init.models[0]!.options.some((option) => option.startsWith('vscode:')));
    posted = [];
    offered.push({ id: 'copilot/gpt-4o', name: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64_000, vision: true });
    modelsChanged!();
    const agents = await waitFor(() => posted.find((message) => message.type === 'agents'));
    assert.ok(agents.type === 'agents');
    assert.ok(agents.models[0]!.options.includes('vscode:copilot/gpt-4o'), JSON.stringify(agents.models));
    await chat.dispose();
    assert.equal(modelsChanged, undefined, 'a disposed controller stops listening');
  });

  it("tests a server of the person's own, lists its models, and makes the one picked the default", async () => {
    // A server of one's own (here with Ollama's rules) asks for no key, where OpenAI itself would.
    const server = await FakeLlmServer.start({ chatServer: 'ollama' });
    settings = { provider: 'anthropic', model: 'claude-test', baseUrls: {} };
    const chat = controller(undefined, {});
    await chat.handle({ type: 'ready' });
    server.models = ['llama3.2:3b', 'qwen2.5-coder:7b'];
    posted = [];
    await chat.handle({ type: 'test_server', url: 'ftp://example.com' });
    await chat.handle({ type: 'test_server', url: 'http://127.0.0.1:9/v1' });
    await chat.handle({ type: 'test_server', url: `${server.url}/v2` });
    await chat.handle({ type: 'test_server', url: `${server.url}/v1/` });
    const answers = posted.flatMap((message) => (message.type === 'server_test' ? [message] : []));
    assert.equal(answers.length, 4);
    assert.match(answers[0]!.message, /must start with http/);
    assert.match(answers[1]!.message, /Could not reach http:\/\/127\.0\.0\.1:9\/v1/);
    assert.match(answers[2]!.message, /HTTP 404.*often in \/v1/);
    assert.deepEqual(answers[3], { type: 'server_test', url: `${server.url}/v1/`, ok: true, message: `Connected: ${server.url}/v1 serves 2 models.`, models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });

    await chat.handle({ type: 'use_server', url: `${server.url}/v1/`, model: 'qwen2.5-coder:7b', key: 'sk-own-server' });
    assert.deepEqual(settings, { provider: 'openai', model: 'qwen2.5-coder:7b', baseUrls: { openai: `${server.url}/v1` } });
    assert.equal(stored['OPENAI_API_KEY'], 'sk-own-server', 'the key typed beside Test is kept as the key the server is reached with');
    assert.deepEqual(posted.filter((message) => message.type === 'setup').at(-1), { type: 'setup' });
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Answered locally.' }] });
    await chat.handle({ type: 'send', text: 'Hello' });
    assert.equal(answerText(), 'Answered locally.');
    assert.equal((server.requests.at(-1)!.body as { model: string }).model, 'qwen2.5-coder:7b');
    await chat.dispose();
    await server.close();
  });

  it("copies a code block of an answer, and says what to do when Insert finds no editor", async () => {
    const chat = controller();
    await chat.handle({ type: 'copy_code', text: 'const x = 1;\n' });
    assert.deepEqual(actions.copied, ['const x = 1;\n']);
    await chat.handle({ type: 'insert_code', text: 'const x = 1;\n' });
    const notices = events().filter((event) => event.type === 'notice');
    assert.match(JSON.stringify(notices), /Open a file and put the cursor where the code goes/);
    await chat.dispose();
  });

  it('turns a bad setting into an error in the view that names the setting, and recovers once it is fixed', async () => {
    settings = { ...settings, 'permissions.write': 'sometimes' };
    const chat = controller();
    await chat.handle({ type: 'send', text: 'Hello' });
    const errors = events().filter((event) => (event.type === 'notice' && event.level === 'error') || (event.type === 'prompt_end' && event.status === 'error'));
    assert.equal(errors.length, 1, 'one card says what went wrong');
    const [error] = errors;
    assert.ok(error && error.type === 'notice');
    assert.match(error.text, /crow\.permissions\.write/);
    settings = { provider: 'openai', model: 'fake-model', baseUrls: { openai: server.openaiBaseUrl } };
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Fixed.' }] });
    await chat.handle({ type: 'send', text: 'Hello again' });
    assert.equal(answerText(), 'Fixed.');
    await chat.dispose();
  });
});
