import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meterOfSpans } from '../../src/host/cost';
import { ACPSession } from '../../src/session/acp-session';
import { SessionStore } from '../../src/session/session-store';

describe('session running totals', () => {
  let data: string;
  beforeEach(() => (data = mkdtempSync(join(tmpdir(), 'crow-totals-'))));
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  /** A stored session of `prompts` prompts, each with one model call by the builder and one by the reviewer (priced). */
  function storedSession(store: SessionStore, prompts: number): ACPSession {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    for (let i = 0; i < prompts; i++) modelCalls(session, i);
    handle.close();
    return session;
  }

  function modelCalls(session: ACPSession, i: number): void {
    const prompt = session.trace.startTrace('prompt', `prompt ${i}`, { agent: 'builder' });
    for (const [agent, input] of [['builder', 1_000], ['reviewer', 300]] as const) {
      const call = prompt.child('llm_call', 'chat model', { agent });
      call.set({ 'gen_ai.usage.input_tokens': input + i, 'gen_ai.usage.output_tokens': 20, 'gen_ai.usage.cache_read.input_tokens': 100, 'crow.cost_usd': 0.25 });
      call.end('ok');
    }
    prompt.end('ok');
  }

  /** Blanks the trace file where it is, same size: whatever reads it finds no spans. */
  function blankTrace(store: SessionStore, id: string): void {
    const text = readFileSync(store.traceFile(id), 'utf8');
    writeFileSync(store.traceFile(id), text.replace(/[^\n]/g, ' '));
  }

  it('gives a resumed session its tokens and cost, per agent, without reading its trace', () => {
    const store = new SessionStore({ dataHome: data });
    const { id } = storedSession(store, 3);
    const summed = meterOfSpans(store.spans(id));
    blankTrace(store, id);

    const totals = new SessionStore({ dataHome: data }).totals(id);
    assert.deepEqual(totals.meter, summed);
    assert.deepEqual(totals.meter, { inputTokens: 3_906, outputTokens: 120, cachedTokens: 600, costUsd: 1.5 });
    assert.deepEqual(totals.agents.builder, { inputTokens: 3_003, outputTokens: 60, cachedTokens: 300, costUsd: 0.75 });
    assert.deepEqual(totals.agents.reviewer, { inputTokens: 903, outputTokens: 60, cachedTokens: 300, costUsd: 0.75 });
  });

  it('goes on counting after a resume, and counts spans written after the last save (a process that died)', () => {
    const store = new SessionStore({ dataHome: data });
    const { id } = storedSession(store, 1);
    const resumed = new SessionStore({ dataHome: data });
    const loaded = resumed.load(id);
    const handle = resumed.attach(loaded);
    modelCalls(loaded, 1);
    handle.close();
    // An ended model call the meta never heard of: its process was killed before saving.
    const orphan = { traceId: 't', spanId: 's', kind: 'llm_call', name: 'chat model', agent: 'builder', start: 1, end: 2, status: 'ok', attributes: { 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.output_tokens': 1, 'crow.cost_usd': 0.5 } };
    appendFileSync(resumed.traceFile(id), `${JSON.stringify(orphan)}\n`);

    const totals = new SessionStore({ dataHome: data }).totals(id);
    assert.deepEqual(totals.meter, meterOfSpans(store.spans(id)));
    assert.deepEqual(totals.meter, { inputTokens: 2_607, outputTokens: 81, cachedTokens: 400, costUsd: 1.5 });
  });

  it('sums a session stored before totals were kept from its trace, once, and keeps totals from then on', () => {
    const store = new SessionStore({ dataHome: data });
    const { id } = storedSession(store, 2);
    const metaFile = join(store.root, id, 'meta.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    delete meta.totals;
    writeFileSync(metaFile, JSON.stringify(meta));

    const old = new SessionStore({ dataHome: data });
    assert.deepEqual(old.totals(id).meter, { inputTokens: 2_602, outputTokens: 80, cachedTokens: 400, costUsd: 1 });
    old.attach(old.load(id)).close();
    blankTrace(store, id);
    assert.deepEqual(new SessionStore({ dataHome: data }).totals(id).meter, { inputTokens: 2_602, outputTokens: 80, cachedTokens: 400, costUsd: 1 });
  });

  it('counts the trace again from the start when it is shorter than the stored totals say', () => {
    const store = new SessionStore({ dataHome: data });
    const { id } = storedSession(store, 2);
    const lines = readFileSync(store.traceFile(id), 'utf8').split('\n');
    // Keep the first prompt's records only (start and end of the prompt and of its two calls).
    writeFileSync(store.traceFile(id), `${lines.filter((line) => line.includes('"prompt 0"') || line.includes('"input_tokens":1000') || line.includes('"input_tokens":300')).join('\n')}\n`);
    assert.deepEqual(new SessionStore({ dataHome: data }).totals(id).meter, meterOfSpans(store.spans(id)));
  });

  it("shows a resumed session's earlier events before the ones it records now", () => {
    const store = new SessionStore({ dataHome: data });
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    session.events.record({ type: 'prompt_start', agent: 'build' });
    handle.close();
    const loaded = store.load(session.id);
    loaded.events.record({ type: 'run_complete', agent: 'build' });
    assert.deepEqual(
      loaded.events.list().map((record) => record.event.type),
      ['prompt_start', 'run_complete'],
    );
  });
});
