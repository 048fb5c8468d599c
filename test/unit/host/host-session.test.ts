/**
 * The session host as every door uses it: one prompt at a time, a cancel
 * that winds down within its grace, notices told once, what leaves the
 * process redacted, a composition reused while nothing changed, and a
 * stored session that resumes with its visible record.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptTranslator } from '../../../src/adapters/vscode/chat/transcript-translator';
import type { AgentEvent } from '../../../src/engine/events';
import { HostError } from '../../../src/host/host-error';
import { HostSession, type HostSessionOptions } from '../../../src/host/host-session';
import { INTERRUPTED, storedPrompts } from '../../../src/host/stored-prompts';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { SessionStore } from '../../../src/session/session-store';
import { Redactor } from '../../../src/telemetry/redact';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { TestCatalog } from '../../support/acp-catalog';
import { ALLOW_ALL } from '../tools/temp-workspace';

const SECRET = 'sk-host-test-0123456789abcdef';

describe('HostSession', () => {
  let root: string;
  let data: string;
  let provider: ScriptedProvider;
  let catalog: TestCatalog & { notices?(): string[]; redactor?(): Redactor };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-host-ws-'));
    data = mkdtempSync(join(tmpdir(), 'crow-host-data-'));
    provider = new ScriptedProvider([], 'm', 4);
    catalog = Object.assign(new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL }), {
      notices: () => ['The folder has a problem worth telling once.'],
      redactor: () => new Redactor({ OPENAI_API_KEY: SECRET }),
    });
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  const options = (): HostSessionOptions => ({
    catalog: () => catalog,
    store: new SessionStore({ dataHome: data }),
    workspace: new NodeWorkspace(root),
    env: {},
  });

  async function run(host: HostSession, prompt: string): Promise<AgentEvent[]> {
    const events: AgentEvent[] = [];
    const stream = host.prompt(prompt);
    for await (const event of stream) events.push(event);
    await stream.result;
    return events;
  }

  it('opens every prompt with prompt_start, naming who answers, and tells the folder\'s notices once', async () => {
    provider.enqueue({ text: 'First.' }, { text: 'Second.' });
    const host = await HostSession.create(options());
    try {
      const first = await run(host, 'One');
      const start = first.find((event) => event.type === 'prompt_start');
      assert.deepEqual(start, { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'One' }] });
      assert.equal(first.filter((event) => event.type === 'notice').length, 1);
      const second = await run(host, 'Two');
      assert.equal(second.filter((event) => event.type === 'notice').length, 0, 'told once per session');
      assert.equal(catalog.builds.length, 1, 'the composition is reused while nothing it depends on changed');
      await host.setAgent('pair');
      provider.enqueue({ text: 'Third.' }, { text: 'A summary.' }, { toolCalls: [{ name: 'task_complete', arguments: { summary: 'ok' } }] });
      await run(host, 'Three');
      assert.equal(catalog.builds.length, 2, 'and rebuilt when the agent changed');
    } finally {
      await host.close();
    }
  });

  it('refuses a second prompt while one runs, and lets one in once a cancelled one has wound down', async () => {
    provider.enqueue({ text: 'A long answer that keeps going.', delayMs: 30 }, { text: 'Next.' });
    const host = await HostSession.create(options());
    try {
      const running = host.prompt('Long');
      const refused = host.prompt('Meanwhile');
      await assert.rejects(refused.result, (err: unknown) => err instanceof HostError && err.kind === 'busy');
      host.cancel();
      const next = host.prompt('After the cancel');
      assert.equal((await running.result).status, 'cancelled');
      assert.equal((await next.result).status, 'needs_input');
    } finally {
      await host.close();
    }
  });

  it('keeps a secret out of the events it hands on and out of the stored record, even split across deltas', async () => {
    // The model repeats the key the person typed, in deltas of four characters.
    provider.enqueue({ text: `The key is ${SECRET}.` });
    const host = await HostSession.create(options());
    try {
      const events = await run(host, `Remember ${SECRET}`);
      const handedOn = events.filter((event) => event.type !== 'text_delta');
      assert.doesNotMatch(JSON.stringify(handedOn), new RegExp(SECRET), 'whole texts are redacted when handed on');
      const stored = readFileSync(join(data, 'sessions', host.id, 'events.jsonl'), 'utf8');
      assert.doesNotMatch(stored, new RegExp(SECRET));
      assert.doesNotMatch(stored, /sk-host/, 'not even its start: the merged delta is redacted whole');
      assert.match(stored, /The key is/);
    } finally {
      await host.close();
    }
  });

  it('resumes a stored session with its record: the same events, shown the same way, and the history goes on', async () => {
    provider.enqueue({ text: 'Noted.', toolCalls: [{ name: 'todo_write', arguments: { todos: [{ id: '1', content: 'Do it', status: 'pending', priority: 'high' }] } }] }, { text: 'Planned.' });
    const host = await HostSession.create(options());
    const live = await run(host, 'Plan it');
    await host.close();

    const resumed = await HostSession.load(options(), host.id);
    try {
      const [prompt] = storedPrompts(resumed.session);
      assert.ok(prompt);
      const shown = (events: AgentEvent[]) => {
        const translator = new TranscriptTranslator();
        return events.flatMap((event) => translator.handle(event)).filter((item) => item.type !== 'text_delta');
      };
      assert.deepEqual(shown([prompt.start, ...prompt.events]), shown(live));
      assert.ok(prompt.events.some((event) => event.type === 'plan'), 'the plan is part of the record');
      provider.enqueue({ text: 'Done.' });
      await run(resumed, 'Now do it');
      assert.match(JSON.stringify(provider.requests.at(-1)!.messages), /Plan it[\s\S]*Planned\.[\s\S]*Now do it/);
    } finally {
      await resumed.close();
    }
  });

  it('shows a session stored before it kept a record from its history, as a live one is shown', async () => {
    provider.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }] }, { text: 'Wrote it.' });
    const host = await HostSession.create(options());
    await run(host, 'Write a.txt');
    await host.close();
    const store = new SessionStore({ dataHome: data });
    const recorded = storedPrompts(store.load(host.id));
    writeFileSync(join(data, 'sessions', host.id, 'events.jsonl'), '');
    const rebuilt = storedPrompts(store.load(host.id));
    const essentials = (prompts: typeof recorded) => {
      const translator = new TranscriptTranslator({ replaying: true });
      return prompts
        .flatMap(({ start, events }) => [start, ...events])
        .flatMap((event) => translator.handle(event))
        .filter((item) => ['user_message', 'text_delta', 'tool_start', 'tool_end'].includes(item.type))
        .map((item) => (item.type === 'tool_end' ? { ...item, durationMs: 0 } : item));
    };
    assert.deepEqual(essentials(rebuilt), essentials(recorded));
  });

  it('closes what a stopped process left running: the call and the prompt end as interrupted', async () => {
    provider.enqueue({ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 100' } }] });
    const host = await HostSession.create(options());
    const events: AgentEvent[] = [];
    const stream = host.prompt('Run it');
    for await (const event of stream) {
      events.push(event);
      // The window is reloaded while the command runs: nothing after this reaches the record.
      if (event.type === 'tool_call_start') break;
    }
    const file = join(data, 'sessions', host.id, 'events.jsonl');
    const upToTheCall = readFileSync(file, 'utf8');
    host.cancel();
    await host.close();
    writeFileSync(file, upToTheCall);
    const [prompt] = storedPrompts(new SessionStore({ dataHome: data }).load(host.id));
    const ended = prompt!.events.find((event) => event.type === 'tool_call_end');
    assert.ok(ended && ended.type === 'tool_call_end');
    assert.equal(ended.result.status, 'cancelled');
    assert.equal(ended.result.error, INTERRUPTED);
    assert.deepEqual(prompt!.events.at(-1), { type: 'run_complete', agent: 'build', status: 'cancelled', message: INTERRUPTED });
    assert.equal(storedPrompts(new SessionStore({ dataHome: data }).load(host.id), { live: true })[0]!.events.some((event) => event.type === 'run_complete'), false, 'a session still recording is left open');
  });

  it('gives a message sent while it works to the agent at its next step boundary, shown and stored where it arrived', async () => {
    writeFileSync(join(root, 'a.txt'), 'A\n');
    provider.enqueue(
      { text: 'Looking at a.txt first.', delayMs: 30, toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      (request) => {
        assert.equal(request.messages.at(-2)!.role, 'tool_results', 'after the tool call returned');
        const last = JSON.stringify(request.messages.at(-1));
        assert.match(last, /sent this message while you were working[\s\S]*Also look at b\.txt/, 'with a note the model reads');
        return { text: 'Looked at both.' };
      },
    );
    const host = await HostSession.create(options());
    try {
      const events: AgentEvent[] = [];
      const stream = host.prompt('Look at a.txt');
      let steered: Promise<unknown> | undefined;
      for await (const event of stream) {
        events.push(event);
        if (event.type === 'text_delta' && !steered) {
          steered = host.steer('Also look at b.txt');
          assert.equal(await Promise.race([steered, Promise.resolve('waiting')]), 'waiting', 'queued until a boundary');
        }
      }
      const outcome = await stream.result;
      assert.equal(outcome.status, 'needs_input', outcome.message);
      assert.deepEqual(await steered, { delivered: true });
      const order = events.map((event) => event.type).filter((type) => ['tool_call_end', 'steer', 'text_complete'].includes(type));
      assert.deepEqual(order, ['text_complete', 'tool_call_end', 'steer', 'text_complete']);
      assert.deepEqual(events.find((event) => event.type === 'steer'), { type: 'steer', agent: 'builder', content: [{ type: 'text', text: 'Also look at b.txt' }] });
      const [stored] = storedPrompts(new SessionStore({ dataHome: data }).load(host.id));
      assert.ok(stored!.events.some((event) => event.type === 'steer'), 'the record keeps it where it arrived');
    } finally {
      await host.close();
    }
  });

  it('hands a message back when the prompt ends before any step boundary took it, and at once when nothing runs', async () => {
    provider.enqueue({ text: 'A slow and final answer.', delayMs: 20 });
    const host = await HostSession.create(options());
    try {
      const stream = host.prompt('Answer');
      let steered: Promise<unknown> | undefined;
      for await (const event of stream) if (event.type === 'text_delta' && !steered) steered = host.steer('And one more thing');
      await stream.result;
      assert.deepEqual(await steered, { delivered: false, content: [{ type: 'text', text: 'And one more thing' }] });
      assert.equal(host.busy, false, 'handed back once the session is free for it');
      assert.deepEqual(await host.steer('Idle'), { delivered: false, content: [{ type: 'text', text: 'Idle' }] });
      assert.equal(host.queued, 0);
    } finally {
      await host.close();
    }
  });

  it('closes at once for what waits: a queued message goes back, a prompt sent after ends cancelled without running, nothing is stored again', async () => {
    provider.enqueue({ text: 'An answer that never ends', hangAfterDeltas: true });
    const store = new SessionStore({ dataHome: data });
    const host = await HostSession.create({ ...options(), store });
    const stream = host.prompt('Long');
    let steered: Promise<unknown> | undefined;
    for await (const event of stream) {
      if (event.type !== 'text_delta' || steered) continue;
      steered = host.steer('And then this');
      const closing = host.close();
      assert.equal(host.close(), closing, 'a second close waits for the same');
      assert.equal(host.closed, true);
    }
    assert.equal((await stream.result).status, 'cancelled');
    assert.deepEqual(await steered, { delivered: false, content: [{ type: 'text', text: 'And then this' }] });
    await host.close();

    store.delete(host.id);
    const late = host.prompt('After the close');
    const outcome = await late.result;
    assert.deepEqual([outcome.status, outcome.message], ['cancelled', `Session ${host.id} was closed before this prompt could start.`]);
    assert.equal(provider.requests.length, 1, 'the late prompt never reached the model');
    assert.deepEqual(store.list(), [], 'nor was the deleted session stored again');
  });

  it('is busy with a prompt from the moment it is sent, while the last one still winds down, so a message sent then joins it', async () => {
    provider.enqueue({ text: 'First.' }, { text: 'Second.' });
    const host = await HostSession.create(options());
    try {
      const first = host.prompt('One');
      await first.result;
      const second = host.prompt('Two');
      assert.equal(host.busy, true, 'busy before the first has let go of the session');
      const steered = host.steer('And this');
      const events: AgentEvent[] = [];
      for await (const event of second) events.push(event);
      assert.equal((await second.result).status, 'needs_input');
      assert.deepEqual(await steered, { delivered: true });
      assert.match(JSON.stringify(provider.requests[1]!.messages), /And this/, 'taken before the second prompt\'s first model call');
    } finally {
      await host.close();
    }
  });

  it('names a stored session that does not exist as such', async () => {
    await assert.rejects(HostSession.load(options(), 'no-such-session'), (err: unknown) => err instanceof HostError && err.kind === 'unknown-session');
  });
});
