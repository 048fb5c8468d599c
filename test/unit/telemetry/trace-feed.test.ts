import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTraceFeed, type TraceFeed } from '../../../src/adapters/vscode/traces/trace-feed';
import { ACPSession } from '../../../src/session/acp-session';
import { SessionStore } from '../../../src/session/session-store';
import type { SpanRecord } from '../../../src/telemetry/span';
import type { HostMessage } from '../../../webview/trace-viewer/protocol';

async function eventually(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((done) => setTimeout(done, 25));
  assert.ok(check(), `timed out waiting for ${what}`);
}

/** What the viewer would hold after these messages: the latest record per span, never going back from ended. */
function viewOf(messages: HostMessage[]): { spans: Map<string, SpanRecord>; recording: boolean | undefined } {
  const spans = new Map<string, SpanRecord>();
  let recording: boolean | undefined;
  for (const message of messages) {
    if (message.type === 'recording') recording = message.recording;
    if (message.type !== 'spans') continue;
    for (const span of message.spans) if (spans.get(span.spanId)?.end === undefined || span.end !== undefined) spans.set(span.spanId, span);
  }
  return { spans, recording };
}

describe('trace panel feed (the spans a VS Code trace panel is sent)', () => {
  let data: string;
  let store: SessionStore;
  let feed: TraceFeed | undefined;
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'crow-trace-feed-'));
    store = new SessionStore({ dataHome: data });
  });
  afterEach(() => {
    feed?.close();
    feed = undefined;
    rmSync(data, { recursive: true, force: true });
  });

  it('follows a session running in this host through its recorder: stored spans, then starts and ends in place', async () => {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    session.trace.startTrace('prompt', 'first prompt').end('ok');
    const messages: HostMessage[] = [];
    feed = await openTraceFeed({ store, sessionId: session.id, live: session.trace, send: (m) => messages.push(m), batchMs: 5 });
    assert.deepEqual(viewOf(messages).spans.size, 1);
    assert.equal(viewOf(messages).recording, true);

    const prompt = session.trace.startTrace('prompt', 'second prompt');
    const llm = prompt.child('llm_call', 'chat m', { agent: 'builder' });
    await eventually('the running spans', () => viewOf(messages).spans.size === 3);
    const running = [...viewOf(messages).spans.values()].find((s) => s.name === 'chat m')!;
    assert.equal(running.end, undefined, 'sent as running, not as it looks later');

    llm.set({ 'gen_ai.usage.output_tokens': 42 });
    llm.end('ok');
    prompt.end('ok');
    await eventually('the ends', () => [...viewOf(messages).spans.values()].every((s) => s.end !== undefined));
    assert.equal([...viewOf(messages).spans.values()].find((s) => s.name === 'chat m')!.attributes['gen_ai.usage.output_tokens'], 42);

    feed.close();
    const count = messages.length;
    session.trace.startTrace('prompt', 'after close').end('ok');
    await new Promise((done) => setTimeout(done, 30));
    assert.equal(messages.length, count, 'a closed feed sends nothing');
    handle.close();
  });

  it('follows a session another process records through its trace.jsonl, and tells when the writer stops', async () => {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    // The store here stands in for the other process: the feed only reads the files.
    const handle = store.attach(session);
    session.trace.startTrace('prompt', 'first prompt').end('ok');
    const messages: HostMessage[] = [];
    feed = await openTraceFeed({ store, sessionId: session.id, live: undefined, send: (m) => messages.push(m), batchMs: 5 });
    assert.equal(viewOf(messages).spans.size, 1);
    assert.equal(viewOf(messages).recording, true);

    const prompt = session.trace.startTrace('prompt', 'second prompt');
    await eventually('the started prompt', () => viewOf(messages).spans.size === 2);
    prompt.end('error', 'boom');
    await eventually('the ended prompt', () => [...viewOf(messages).spans.values()].every((s) => s.end !== undefined));
    assert.equal([...viewOf(messages).spans.values()].find((s) => s.name === 'second prompt')!.statusMessage, 'boom');

    handle.close();
    await eventually('recording to stop', () => viewOf(messages).recording === false);
  });

  it('sends no spans, and no error, for a session that has none stored', async () => {
    const messages: HostMessage[] = [];
    feed = await openTraceFeed({ store, sessionId: 'never-stored', live: undefined, send: (m) => messages.push(m) });
    assert.deepEqual(viewOf(messages), { spans: new Map(), recording: false });
  });
});
