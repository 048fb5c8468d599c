import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { AcpLogger } from '../../src/adapters/acp/acp-log';
import { createAcpServer } from '../../src/adapters/acp/acp-server';
import type { CommandCatalog } from '../../src/host/commands';
import { ScriptedProvider } from '../../src/llm/scripted';
import { SessionStore } from '../../src/session/session-store';
import { TestCatalog, testCommands } from '../support/acp-catalog';
import { memoryStreams, TestClient, type TestClientOptions } from '../support/acp-client';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';
import { assertPromptly } from '../support/promptly';

const quiet: AcpLogger = { log: () => undefined, close: async () => undefined };

/** Updates about the session rather than a prompt (sent when it opens, or when a setting changes). */
const SESSION_LEVEL = new Set(['available_commands_update', 'config_option_update', 'current_mode_update', 'session_info_update']);

describe('ACP server in memory', () => {
  let root: string;
  let data: string;
  let store: SessionStore;
  const clients: TestClient[] = [];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-acp-ws-'));
    data = mkdtempSync(join(tmpdir(), 'crow-acp-data-'));
    store = new SessionStore({ dataHome: data });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  /** A connected, initialized client on a fresh server over `catalog`. */
  async function connect(catalog: TestCatalog, options: TestClientOptions = {}, commands: CommandCatalog = testCommands()): Promise<TestClient> {
    const streams = memoryStreams();
    catalog.commandCatalog = commands;
    createAcpServer({
      sessions: () => ({ catalogFor: () => catalog, store }),
      missingKeys: () => catalog.missingKeys(),
      logger: quiet,
      version: 'test',
    }).connect(streams.agent);
    const client = new TestClient(streams.client, options);
    clients.push(client);
    await client.initialize();
    return client;
  }

  async function session(client: TestClient): Promise<string> {
    return (await client.newSession(root)).sessionId;
  }

  it('answers initialize with truthful capabilities and auth methods for missing keys', async () => {
    const client = await connect(new TestCatalog({ providers: { m: new ScriptedProvider() }, missingKeys: ['ANTHROPIC_API_KEY'] }));
    const init = await client.initialize();
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.deepEqual(init.agentCapabilities?.promptCapabilities, { image: true, audio: false, embeddedContext: true });
    assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
    assert.deepEqual(Object.keys(init.agentCapabilities?.sessionCapabilities ?? {}).sort(), ['close', 'delete', 'list', 'resume']);
    assert.deepEqual(init.authMethods?.map((method) => method.id), ['crow-login', 'env:ANTHROPIC_API_KEY']);
    await assert.rejects(client.agent.request('authenticate', { methodId: 'env:ANTHROPIC_API_KEY' }), /No API key yet for ANTHROPIC_API_KEY: run "crow login"/);
    await assert.rejects(client.agent.request('authenticate', { methodId: 'crow-login' }), /No API key yet for ANTHROPIC_API_KEY/);
    await assert.rejects(client.agent.request('authenticate', { methodId: 'oauth' }), /Unknown auth method/);
  });

  it('offers one mode per agent and a model select per role', async () => {
    const client = await connect(new TestCatalog({ providers: { a: new ScriptedProvider(), b: new ScriptedProvider() } }));
    const created = await client.newSession(root);
    assert.equal(created.modes?.currentModeId, 'build');
    assert.deepEqual(created.modes?.availableModes.map((mode) => mode.id), ['build', 'loop', 'pair']);
    assert.deepEqual(
      created.configOptions?.map((option) => [option.id, option.category, option.type === 'select' ? option.currentValue : undefined]),
      [
        ['model', 'model', 'a'],
        ['attempts', undefined, '1'],
      ],
    );
    await client.until(() => client.updates(created.sessionId, 'available_commands_update').length === 1);
  });

  it('streams text and thoughts, coalescing tiny deltas, and ends the turn', async () => {
    const text = 'Here is a careful answer that arrives in many tiny pieces.';
    const provider = new ScriptedProvider([{ thinking: 'Let me think it over.', text }], 'm', 2);
    const client = await connect(new TestCatalog({ providers: { m: provider } }));
    const id = await session(client);
    const answer = await client.prompt(id, 'Explain');
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(client.said(id), text);
    assert.equal(client.thought(id), 'Let me think it over.');
    const chunks = client.updates(id, 'agent_message_chunk');
    assert.ok(chunks.length < text.length / 2, `${chunks.length} chunks for ${Math.ceil(text.length / 2)} deltas`);
    const kinds = client.updates(id).map((update) => update.sessionUpdate);
    assert.ok(kinds.indexOf('agent_thought_chunk') < kinds.indexOf('agent_message_chunk'));
    assert.deepEqual(provider.requests[0]!.messages[0], { role: 'user', content: [{ type: 'text', text: 'Explain' }] });
  });

  it('shows tool calls: whole-file diffs for edits, command output for bash, usage', async () => {
    writeFileSync(join(root, 'app.ts'), 'const a = 1;\nconst b = 2;\n');
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'edit-1', name: 'edit_file', arguments: { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' } },
          { id: 'bash-1', name: 'bash', arguments: { command: 'echo tested' } },
        ],
        usage: { input: 100, output: 20 },
      },
      { text: 'Changed b and ran the check.' },
    ]);
    const client = await connect(new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL }));
    const id = await session(client);
    assert.equal((await client.prompt(id, 'Set b to 3')).stopReason, 'end_turn');

    const [edit, bash] = client.updates(id, 'tool_call');
    assert.deepEqual(
      { id: edit!.toolCallId, title: edit!.title, kind: edit!.kind, status: edit!.status, locations: edit!.locations },
      { id: 'edit-1', title: 'Editing app.ts', kind: 'edit', status: 'in_progress', locations: [{ path: join(root, 'app.ts') }] },
    );
    assert.deepEqual(edit!.rawInput, { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' });
    assert.equal(bash!.title, 'Running echo tested');
    assert.equal(bash!.kind, 'execute');

    const done = client.updates(id, 'tool_call_update');
    const editDone = done.find((update) => update.toolCallId === 'edit-1')!;
    assert.equal(editDone.status, 'completed');
    assert.deepEqual(editDone.content, [
      { type: 'diff', path: join(root, 'app.ts'), oldText: 'const a = 1;\nconst b = 2;\n', newText: 'const a = 1;\nconst b = 3;\n' },
    ]);
    const [bashLive, bashDone] = done.filter((update) => update.toolCallId === 'bash-1');
    assert.deepEqual([bashLive!.status, textOf(bashLive!.content)], ['in_progress', '```console\ntested\n```'], 'its output first shows as it comes');
    assert.equal(bashDone!.status, 'completed');
    assert.match(textOf(bashDone!.content), /```console\ntested\n\[exit code 0\]\n```/);
    assert.equal((bashDone!.rawOutput as { metadata: { extra: { exitCode: number } } }).metadata.extra.exitCode, 0);

    assert.deepEqual(client.updates(id, 'usage_update')[0], { sessionUpdate: 'usage_update', used: 120, size: 1_000 });
    assert.equal(client.said(id), 'Changed b and ran the check.');
  });

  it('shows who acts in a reviewed composition', async () => {
    const builder = new ScriptedProvider([{ text: 'Built it.', toolCalls: [{ name: 'task_complete', arguments: { summary: 'Added the feature.' } }] }]);
    const reviewer = new ScriptedProvider([
      { thinking: 'Check the output.', toolCalls: [{ name: 'bash', arguments: { command: 'echo checked' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Verified: it works.' } }] },
    ]);
    const catalog = new TestCatalog({ providers: { b: builder, r: reviewer }, defaults: { primary: 'b', coagent: 'r' }, policy: ALLOW_ALL });
    const client = await connect(catalog);
    const id = await session(client);
    await client.agent.request('session/set_mode', { sessionId: id, modeId: 'pair' });
    assert.equal((await client.prompt(id, 'Add the feature')).stopReason, 'end_turn');

    const thoughts = client.thought(id);
    assert.match(thoughts, /First review: the reviewer checks the work\./);
    assert.match(thoughts, /Sent for review:\n> /);
    assert.match(thoughts, /\[reviewer\] Check the output\./);
    const titles = client.updates(id, 'tool_call').map((call) => call.title);
    assert.deepEqual(titles, ['[reviewer] Running echo checked']);
    assert.match(client.said(id), /Built it\.[\s\S]*Added the feature\.[\s\S]*✓ Reviewer approved\.\n\nVerified: it works\./);
  });

  it('turns the shared todo list into plan updates', async () => {
    const todos = [
      { id: '1', content: 'Write the test', status: 'completed', priority: 'high' },
      { id: '2', content: 'Fix the bug', status: 'in_progress', priority: 'medium' },
    ];
    const client = await connect(
      new TestCatalog({ providers: { m: new ScriptedProvider([{ toolCalls: [{ name: 'todo_write', arguments: { todos } }] }, { text: 'On it.' }]) } }),
    );
    const id = await session(client);
    await client.prompt(id, 'Plan it');
    assert.deepEqual(client.updates(id, 'plan'), [
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Write the test', status: 'completed', priority: 'high' },
          { content: 'Fix the bug', status: 'in_progress', priority: 'medium' },
        ],
      },
    ]);
  });

  it('asks permission for a write; a rejection leaves the file unchanged', async () => {
    writeFileSync(join(root, 'keep.txt'), 'original\n');
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'keep.txt', content: 'overwritten\n' } }] },
      { text: 'I was not allowed.' },
    ]);
    const client = await connect(new TestCatalog({ providers: { m: provider } }), { permission: () => 'reject_once' });
    const id = await session(client);
    assert.equal((await client.prompt(id, 'Overwrite keep.txt')).stopReason, 'end_turn');

    assert.equal(readFileSync(join(root, 'keep.txt'), 'utf8'), 'original\n');
    const [asked] = client.permissionRequests;
    assert.equal(asked!.toolCall.toolCallId, 'w1');
    assert.deepEqual(asked!.options.map((option) => option.kind), ['allow_once', 'allow_always', 'reject_once', 'reject_always']);
    assert.ok(client.arrivals.indexOf('tool_call w1') < client.arrivals.indexOf('permission w1'), 'announced before asked');
    assert.ok(client.arrivals.indexOf('permission w1') < client.arrivals.indexOf('tool_call_update w1'));
    const failed = client.updates(id, 'tool_call_update').find((update) => update.toolCallId === 'w1')!;
    assert.equal(failed.status, 'failed');
    assert.match(textOf(failed.content), /Permission denied by the user/);
  });

  it('remembers allow_always for the session', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: '1' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'two.txt', content: '2' } }] },
      { text: 'Both written.' },
    ]);
    const client = await connect(new TestCatalog({ providers: { m: provider } }), { permission: () => 'allow_always' });
    const id = await session(client);
    await client.prompt(id, 'Write two files');
    assert.equal(client.permissionRequests.length, 1);
    assert.equal(readFileSync(join(root, 'one.txt'), 'utf8'), '1');
    assert.equal(readFileSync(join(root, 'two.txt'), 'utf8'), '2');
  });

  it('a pending permission request blocks neither other sessions nor a cancel', async () => {
    const asking = new ScriptedProvider([{ toolCalls: [{ name: 'bash', arguments: { command: 'touch never.txt' } }] }]);
    const other = new ScriptedProvider([{ text: 'Meanwhile, done.' }]);
    const catalog = new TestCatalog({ providers: { asking, other } });
    const client = await connect(catalog, { permission: () => new Promise<never>(() => undefined) });
    const waiting = await session(client);
    const pending = client.prompt(waiting, 'Touch a file');
    await client.until(() => client.permissionRequests.length === 1);

    const second = await session(client);
    await client.agent.request('session/set_config_option', { sessionId: second, configId: 'model', value: 'other' });
    assert.equal((await client.prompt(second, 'Anything')).stopReason, 'end_turn');
    assert.equal(client.said(second), 'Meanwhile, done.');

    const cancelledAt = Date.now();
    await client.cancel(waiting);
    assert.equal((await pending).stopReason, 'cancelled');
    assertPromptly(cancelledAt, 'answered the cancel');
    assert.equal(existsSync(join(root, 'never.txt')), false);
  });

  it('cancels mid-stream at once; the next prompt ends its own turn', async () => {
    const provider = new ScriptedProvider([{ text: 'This answer never ends', hangAfterDeltas: true }, { text: 'Fresh answer.' }]);
    const client = await connect(new TestCatalog({ providers: { m: provider } }));
    const id = await session(client);
    const pending = client.prompt(id, 'Talk');
    await client.until(() => client.said(id).length > 0);
    const cancelledAt = Date.now();
    await client.cancel(id);
    assert.equal((await pending).stopReason, 'cancelled');
    assertPromptly(cancelledAt, 'answered the cancel');

    const before = client.notifications.length;
    assert.equal((await client.prompt(id, 'Again')).stopReason, 'end_turn');
    const next = client.notifications.slice(before).map((n) => n.update);
    const text = next.flatMap((update) => (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text' ? [update.content.text] : []));
    assert.equal(text.join(''), 'Fresh answer.');
  });

  it('queues a second prompt while one runs (or refuses it when the client asks), and prompts for unknown sessions', async () => {
    const provider = new ScriptedProvider([{ text: 'slow', hangAfterDeltas: true }]);
    const client = await connect(new TestCatalog({ providers: { m: provider } }));
    const id = await session(client);
    const first = client.prompt(id, 'One');
    await assert.rejects(
      client.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'Two' }], _meta: { 'crow/whileBusy': 'refuse' } }),
      (err: { code: number; message: string }) => {
        assert.equal(err.code, -32600);
        assert.match(err.message, /already running/);
        return true;
      },
    );
    await assert.rejects(
      client.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'Two' }], _meta: { 'crow/whileBusy': 'later' } }),
      /must be "queue", "interrupt" or "refuse"/,
    );
    // Queued: the run it joined never reaches another step, so the run's end hands it back and it runs as the next prompt.
    provider.enqueue({ text: 'Second answer.' });
    const second = client.prompt(id, 'Two');
    await client.cancel(id);
    assert.equal((await first).stopReason, 'cancelled');
    assert.equal((await second).stopReason, 'end_turn');
    assert.match(JSON.stringify(provider.requests.at(-1)!.messages), /Two/);
    await assert.rejects(client.prompt('no-such-session', 'Hi'), (err: { code: number; message: string }) => {
      assert.equal(err.code, -32002);
      assert.match(err.message, /Unknown session "no-such-session"/);
      return true;
    });
    await assert.rejects(client.agent.request('session/new', { cwd: 'relative/path', mcpServers: [] }), /absolute path/);
  });

  it('switches modes: the next prompt runs the chosen agent, history continues', async () => {
    const builder = new ScriptedProvider([{ text: 'First.' }, { text: 'Second.', toolCalls: [{ name: 'task_complete', arguments: { summary: 'Done.' } }] }]);
    const catalog = new TestCatalog({ providers: { m: builder } });
    const client = await connect(catalog);
    const id = await session(client);
    await client.prompt(id, 'One');
    await client.agent.request('session/set_mode', { sessionId: id, modeId: 'loop' });
    await client.prompt(id, 'Two');
    assert.deepEqual(
      catalog.builds.map((build) => build.agent),
      ['build', 'loop'],
    );
    const lastRequest = builder.requests[1]!.messages;
    assert.equal(lastRequest.length, 3, 'the builder saw the first exchange');
    await assert.rejects(client.agent.request('session/set_mode', { sessionId: id, modeId: 'nope' }), /Unknown mode "nope"/);

    await client.agent.request('session/set_mode', { sessionId: id, modeId: 'pair' });
    await client.until(() => client.updates(id, 'config_option_update').length >= 2);
    const options = client.updates(id, 'config_option_update').at(-1)!.configOptions.map((option) => option.id);
    assert.deepEqual(options, ['model', 'coagent_model', 'attempts']);
  });

  it('sets a model through config options and rebuilds the composition', async () => {
    const a = new ScriptedProvider([{ text: 'from a' }], 'a');
    const b = new ScriptedProvider([{ text: 'from b' }], 'b');
    const catalog = new TestCatalog({ providers: { a, b } });
    const client = await connect(catalog);
    const id = await session(client);
    const set = await client.agent.request('session/set_config_option', { sessionId: id, configId: 'model', value: 'b' });
    assert.equal(set.configOptions[0]!.type === 'select' && set.configOptions[0]!.currentValue, 'b');
    await client.prompt(id, 'Who?');
    assert.equal(client.said(id), 'from b');
    assert.deepEqual(catalog.builds.at(-1), { agent: 'build', models: { primary: 'b' } });
    await assert.rejects(
      client.agent.request('session/set_config_option', { sessionId: id, configId: 'model', value: 'z' }),
      (err: { code: number; message: string }) => err.code === -32602 && /"z" is not a model offered/.test(err.message),
    );
  });

  it('ends each prompt with the stop reason that says how it ended: end_turn, max_tokens, refusal, max_turn_requests, cancelled', async () => {
    const provider = new ScriptedProvider([
      { text: 'An answer.' },
      { text: 'An answer cut off at the lim', stopReason: 'max_tokens' },
      { text: 'I cannot', stopReason: 'refusal' },
      // loop mode without task_complete: three turns, then the flow's limit.
      { text: 'Turn one.' },
      { text: 'Turn two.' },
      { text: 'Turn three.' },
      { text: 'Streaming on and on', hangAfterDeltas: true },
    ]);
    const client = await connect(new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL }));
    const id = await session(client);
    assert.equal((await client.prompt(id, 'Answer')).stopReason, 'end_turn');
    assert.equal((await client.prompt(id, 'Answer at length')).stopReason, 'max_tokens');
    assert.equal((await client.prompt(id, 'Do the questionable thing')).stopReason, 'refusal');
    await client.agent.request('session/set_mode', { sessionId: id, modeId: 'loop' });
    assert.equal((await client.prompt(id, 'Keep going')).stopReason, 'max_turn_requests');
    const streaming = client.prompt(id, 'Talk');
    await client.until(() => client.said(id).includes('Streaming'));
    await client.cancel(id);
    assert.equal((await streaming).stopReason, 'cancelled');
  });

  it('replays the history on session/load, on a new connection', async () => {
    writeFileSync(join(root, 'notes.txt'), 'old\n');
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'old', new_string: 'new' } }] },
      { text: 'Updated the notes.' },
    ]);
    const catalog = new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL });
    const first = await connect(catalog);
    const id = await session(first);
    await first.prompt(id, 'Update the notes');
    await first.agent.request('session/close', { sessionId: id });
    await assert.rejects(first.prompt(id, 'More'), /Unknown session/);

    const second = await connect(catalog);
    const listed = await second.agent.request('session/list', { cwd: root });
    assert.deepEqual(listed.sessions.map((info) => [info.sessionId, info.title]), [[id, 'Update the notes']]);
    await second.agent.request('session/load', { sessionId: id, cwd: root, mcpServers: [] });
    // The prompt's updates, shown again as they were live, opened by the person's message (which live the client showed).
    // Text is compared by message, not by how it was chunked: live it streamed in pieces, stored it is whole.
    const prompted = (updates: { sessionUpdate: string }[]) =>
      updates
        .map((update) => update.sessionUpdate)
        .filter((kind, i, all) => !SESSION_LEVEL.has(kind) && !(kind.endsWith('_chunk') && all[i - 1] === kind));
    assert.deepEqual(prompted(second.updates(id)), ['user_message_chunk', ...prompted(first.updates(id))]);
    assert.deepEqual(prompted(second.updates(id)), ['user_message_chunk', 'usage_update', 'tool_call', 'tool_call_update', 'agent_message_chunk', 'usage_update']);
    assert.deepEqual(second.updates(id, 'user_message_chunk')[0]!.content, { type: 'text', text: 'Update the notes' });
    assert.deepEqual(second.updates(id, 'tool_call_update')[0]!.content, [{ type: 'diff', path: join(root, 'notes.txt'), oldText: 'old', newText: 'new' }]);
    assert.equal(second.said(id), 'Updated the notes.');

    provider.enqueue({ text: 'Still with you.' });
    assert.equal((await second.prompt(id, 'And now?')).stopReason, 'end_turn');
    assert.match(second.said(id), /Still with you\.$/);
    await second.agent.request('session/close', { sessionId: id });

    const third = await connect(catalog);
    const resumed = await third.agent.request('session/resume', { sessionId: id, cwd: root });
    assert.equal(resumed.modes?.currentModeId, 'build');
    assert.deepEqual(third.updates(id, 'user_message_chunk'), [], 'resume does not replay');
    await third.agent.request('session/delete', { sessionId: id });
    assert.deepEqual((await third.agent.request('session/list', {})).sessions, []);
  });

  it('reads and writes through the client when it offers fs, and runs commands in its terminals', async () => {
    const file = join(root, 'draft.md');
    writeFileSync(file, 'saved on disk\n');
    const buffers = new Map([[file, 'unsaved edit\n']]);
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'draft.md' } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'draft.md', old_string: 'unsaved edit', new_string: 'agent edit' } }] },
      { toolCalls: [{ id: 't1', name: 'bash', arguments: { command: 'echo from-terminal' } }] },
      { text: 'Done.' },
    ]);
    const client = await connect(new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL }), {
      capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      buffers,
    });
    const id = await session(client);
    await client.prompt(id, 'Edit the draft');

    assert.match(JSON.stringify(provider.requests[1]!.messages), /unsaved edit/, 'the model read the editor buffer');
    assert.deepEqual(client.fsWrites, [{ path: file, content: 'agent edit\n' }]);
    assert.equal(readFileSync(file, 'utf8'), 'saved on disk\n', 'the edit went to the editor, not the disk');
    const terminalId = [...client.terminals.keys()][0]!;
    const embedded = client.updates(id, 'tool_call_update').filter((update) => update.toolCallId === 't1');
    assert.deepEqual(embedded[0]!.content, [{ type: 'terminal', terminalId }]);
    assert.equal(embedded.at(-1)!.status, 'completed');
    assert.deepEqual(embedded.at(-1)!.content, [{ type: 'terminal', terminalId }]);
    assert.match(JSON.stringify(provider.requests[3]!.messages), /from-terminal/, 'the model read the terminal output');
  });

  it('keeps a byte order mark when a file edited through the client has one', async () => {
    const file = join(root, 'bom.md');
    writeFileSync(file, '\uFEFF# Notes\r\nold line\r\n');
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'bom.md', old_string: 'old line', new_string: 'new line' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'bom.md', content: '\uFEFFrewritten\n' } }] },
      { text: 'Done.' },
    ]);
    const client = await connect(new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL }), {
      capabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    await client.prompt(await session(client), 'Edit the notes');
    assert.deepEqual(
      client.fsWrites.map((write) => write.content),
      ['\uFEFF# Notes\r\nnew line\r\n', '\uFEFFrewritten\n'],
    );
  });

  it('takes images, resource links and embedded resources; expands slash commands', async () => {
    const provider = new ScriptedProvider([{ text: 'Seen.' }, { text: 'Reviewed.' }]);
    const client = await connect(new TestCatalog({ providers: { m: provider } }), {}, testCommands({ review: { prompt: 'Review the diff carefully.' } }));
    const id = await session(client);
    await client.prompt(id, [
      { type: 'text', text: 'Look' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'resource_link', name: 'spec.md', uri: 'file:///w/spec.md' },
      { type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'const x = 1;' } },
    ]);
    assert.deepEqual(provider.requests[0]!.messages[0], {
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'text', text: '[spec.md](file:///w/spec.md)' },
        { type: 'text', text: '<resource uri="file:///w/a.ts">\nconst x = 1;\n</resource>' },
      ],
    });
    await client.until(() => client.updates(id, 'available_commands_update').length === 1);
    assert.deepEqual(client.updates(id, 'available_commands_update')[0]!.availableCommands.map((command) => command.name), ['review']);
    await client.prompt(id, '/review');
    assert.match(JSON.stringify(provider.requests[1]!.messages.at(-1)), /Review the diff carefully\./);
  });

  it('fails the prompt request with a readable message when the provider fails, and takes the next prompt', async () => {
    const provider = new ScriptedProvider([{ stopReason: 'error', errorMessage: 'anthropic: 401 invalid x-api-key' }, { text: 'Back.' }]);
    const client = await connect(new TestCatalog({ providers: { m: provider } }));
    const id = await session(client);
    await assert.rejects(client.prompt(id, 'Hi'), /builder stopped on an error: anthropic: 401 invalid x-api-key/);
    assert.doesNotMatch(client.said(id), /stopped on an error/);
    assert.equal((await client.prompt(id, 'Again')).stopReason, 'end_turn');
  });
});

function textOf(content: ToolCallContent[] | null | undefined): string {
  return (content ?? []).map((item) => (item.type === 'content' && item.content.type === 'text' ? item.content.text : '')).join('\n');
}
