import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PRESETS } from '../../src/config/control-flow';
import type { AgentEvent } from '../../src/engine/events';
import { ScriptedProvider } from '../../src/llm/scripted';
import { SessionStore } from '../../src/session/session-store';
import { baseAgent, composition, flowFixture, runFlow, tools, type FlowFixture } from '../support/flows';

describe('session store', () => {
  let data: string;
  let fx: FlowFixture;
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'crow-data-'));
    fx = flowFixture({ 'a.txt': 'a\n' });
  });
  afterEach(() => {
    rmSync(data, { recursive: true, force: true });
    fx.dispose();
  });

  function reviewedAgent() {
    const builder = new ScriptedProvider([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'b\n' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Changed a.txt.' } }] },
      { text: 'Second prompt answered.' },
      { text: 'Summary: answered.' },
    ]);
    const reviewer = new ScriptedProvider([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Approved.' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Approved again.' } }] },
    ]);
    return composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools('write_file', 'todo_write', 'task_complete')),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools('read_file', 'task_complete')),
    });
  }

  it('writes meta.json when something in it changed, every time, and leaves it alone when only the time would', () => {
    const store = new SessionStore({ dataHome: data });
    const meta = join(data, 'sessions', fx.session.id, 'meta.json');
    fx.session.title = 'First title';
    const handle = store.attach(fx.session);
    const written = statSync(meta);
    handle.save();
    assert.equal(statSync(meta).ino, written.ino, 'an unchanged session is not written again');
    fx.session.title = 'Second title';
    handle.save();
    assert.equal(store.list()[0]!.title, 'Second title');
    fx.session.title = 'First title';
    handle.save();
    assert.equal(store.list()[0]!.title, 'First title', 'a change back is a change too');
    handle.close();
    const again = store.attach(fx.session);
    rmSync(meta);
    again.save();
    assert.equal(store.list()[0]!.title, 'First title', 'a meta.json removed behind its back is written again');
    again.close();
  });

  it('persists every agent, lists newest first, loads and continues the same session', async () => {
    const store = new SessionStore({ dataHome: data });
    const agent = reviewedAgent();
    fx.session.title = 'Change a.txt';
    const handle = store.attach(fx.session);
    await runFlow(agent, fx.session, 'Change a.txt.');
    handle.close();

    const [meta] = store.list({ cwd: fx.root });
    assert.equal(meta!.id, fx.session.id);
    assert.equal(meta!.title, 'Change a.txt');
    assert.deepEqual(meta!.internal.map((m) => [m.role, m.agentName, m.parentId]), [
      ['primary', 'builder', fx.session.id],
      ['coagent', 'reviewer', fx.session.id],
    ]);
    assert.deepEqual(meta!.internal[0]!.siblingIds, [meta!.internal[1]!.id]);
    assert.deepEqual(store.list({ cwd: '/elsewhere' }), []);

    const loaded = store.load(fx.session.id);
    assert.deepEqual(
      loaded.internalSessions().map(({ session }) => session.entries.length),
      fx.session.internalSessions().map(({ session }) => session.entries.length),
      'every entry of every agent came back',
    );
    assert.deepEqual(loaded.sessionFor('primary', 'builder').toMessages(), fx.session.sessionFor('primary', 'builder').toMessages());

    const again = store.attach(loaded);
    const { result } = await runFlow(agent, loaded, 'And now?');
    again.close();
    assert.equal(result.status, 'completed');
    const reloaded = store.load(fx.session.id);
    const builderHistory = reloaded.sessionFor('primary', 'builder').entries;
    assert.ok(builderHistory.some((e) => e.kind === 'assistant_text' && e.text === 'Second prompt answered.'));
    assert.equal(store.spans(fx.session.id).filter((s) => s.kind === 'prompt').length, 2, 'both prompts traced');
  });

  it('skips a torn last line with a warning and keeps everything before it', async () => {
    const warnings: string[] = [];
    const store = new SessionStore({ dataHome: data, warn: (w) => warnings.push(w) });
    store.attach(fx.session);
    await runFlow(reviewedAgent(), fx.session, 'Change a.txt.');
    const primary = fx.session.sessionFor('primary', 'builder');
    appendFileSync(join(store.root, fx.session.id, `${primary.id}.jsonl`), '{"kind":"assistant_text","te');

    const loaded = store.load(fx.session.id);
    assert.equal(loaded.sessionFor('primary', 'builder').entries.length, primary.entries.length);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /the last line was cut short/);
  });

  it('deletes a session and refuses ids that are not session ids', async () => {
    const store = new SessionStore({ dataHome: data });
    store.attach(fx.session);
    store.delete(fx.session.id);
    assert.deepEqual(store.list(), []);
    assert.throws(() => store.load('../../etc'), /is not a session id/);
    assert.throws(() => store.load('missing-id'), /No stored session "missing-id"\. List them with: crow sessions list/);
  });

  it('goes on without storing, told once, when the folder of an attached session is removed, and never makes it again', async () => {
    const warnings: string[] = [];
    const store = new SessionStore({ dataHome: data, warn: (warning) => warnings.push(warning) });
    const handle = store.attach(fx.session);
    const folder = join(data, 'sessions', fx.session.id);
    rmSync(folder, { recursive: true });

    const { result } = await runFlow(reviewedAgent(), fx.session, 'Change a.txt.');
    assert.equal(result.status, 'completed');
    fx.session.title = 'Titled after the removal';
    handle.save();
    handle.close();
    assert.equal(existsSync(folder), false, 'no write made the folder again');
    assert.deepEqual(warnings, [`Session ${fx.session.id} was deleted while it was open (its folder ${folder} is gone): nothing more of it is stored.`]);
  });

  it('writes nothing of a session once it is closed, however long its last prompt takes to wind down', async () => {
    const store = new SessionStore({ dataHome: data });
    fx.session.title = 'Before the close';
    const handle = store.attach(fx.session);
    const folder = join(data, 'sessions', fx.session.id);
    const before = readdirSync(folder).sort();
    handle.close();

    await runFlow(reviewedAgent(), fx.session, 'Change a.txt.');
    fx.session.title = 'After the close';
    handle.save();
    assert.deepEqual(readdirSync(folder).sort(), before.filter((name) => name !== 'writer.json'));
    assert.equal(store.meta(fx.session.id).title, 'Before the close');
    assert.deepEqual(store.events(fx.session.id), []);
  });

  it('survives kill -9 mid-run: every entry whose event was emitted is on disk', async function () {
    this.timeout(30_000);
    const sessionId = 'crash-test';
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../fixtures/store-child.ts'), fx.root, sessionId], {
      env: { ...process.env, XDG_DATA_HOME: data },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const seen: AgentEvent[] = [];
    await new Promise<void>((done) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        seen.push(JSON.parse(line) as AgentEvent);
        if (seen.filter((e) => e.type === 'tool_call_end').length === 7) child.kill('SIGKILL');
      });
      child.on('exit', () => done());
    });

    const store = new SessionStore({ dataHome: join(data, 'crow-agent') });
    const history = store.load(sessionId).sessionFor('primary', 'builder').entries;
    const announced = seen.filter((e) => e.type === 'tool_call_end').map((e) => (e.type === 'tool_call_end' ? e.callId : ''));
    const stored = history.flatMap((e) => (e.kind === 'tool_result' ? [e.callId] : []));
    assert.ok(announced.length >= 7);
    for (const callId of announced) assert.ok(stored.includes(callId), `result of ${callId} was announced, so it is stored`);
    assert.ok(readdirSync(fx.root).length >= 8, 'the child really ran');
  });
});
