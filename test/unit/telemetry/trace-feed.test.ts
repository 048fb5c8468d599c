import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTraceFeed, type TraceFeed } from '../../../src/adapters/vscode/traces/trace-feed';
import { ACPSession } from '../../../src/session/acp-session';
import { SessionStore } from '../../../src/session/session-store';
import type { SpanRecord } from '../../../src/telemetry/span';
import type { HostMessage } from '../../../webview/trace-viewer/protocol';
import { parseStoredLines } from '../../../webview/trace-viewer/stored-lines';

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
    const records = message.type === 'spans' ? message.spans : message.type === 'stored' ? parseStoredLines(message.lines).spans : [];
    for (const span of records) if (spans.get(span.spanId)?.end === undefined || span.end !== undefined) spans.set(span.spanId, span);
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
  /** Stands in for the viewer: keeps each message, and answers each piece of the stored trace as the webview does. */
  const viewer = (messages: HostMessage[]) => (message: HostMessage) => {
    messages.push(message);
    if (message.type === 'stored') queueMicrotask(() => feed?.taken());
  };
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
    feed = await openTraceFeed({ store, sessionId: session.id, live: session.trace, send: viewer(messages), batchMs: 5 });
    await feed.stored;
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
    feed = await openTraceFeed({ store, sessionId: session.id, live: undefined, send: viewer(messages), batchMs: 5 });
    await feed.stored;
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
    feed = await openTraceFeed({ store, sessionId: 'never-stored', live: undefined, send: viewer(messages) });
    await feed.stored;
    assert.deepEqual(viewOf(messages), { spans: new Map(), recording: false });
    assert.deepEqual(messages.filter((m) => m.type === 'stored-end'), [{ type: 'stored-end' }], 'the load ends, with no error');
  });

  it('sends a large stored trace in pieces, never more than a few ahead of the viewer, and stops reading when closed', async () => {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    const prompt = session.trace.startTrace('prompt', 'big prompt');
    for (let i = 0; i < 3_000; i++) prompt.child('tool', `execute_tool t${i}`, { attributes: { 'crow.tool.output': 'x'.repeat(2_000) } }).end('ok');
    prompt.end('ok');
    handle.close();
    const messages: HostMessage[] = [];
    feed = await openTraceFeed({ store, sessionId: session.id, live: undefined, send: (m) => messages.push(m) });
    const pieces = (): Extract<HostMessage, { type: 'stored' }>[] => messages.filter((m): m is Extract<HostMessage, { type: 'stored' }> => m.type === 'stored');
    await eventually('the first pieces', () => pieces().length === 2);
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(pieces().length, 2, 'no answer from the viewer, no more pieces');
    const total = pieces()[0]!.total;
    assert.ok(total > 12_000_000, `a trace of ${total} bytes`);
    for (let answered = 0; !messages.some((m) => m.type === 'stored-end'); answered++) {
      await eventually('the next piece', () => pieces().length > answered || messages.some((m) => m.type === 'stored-end'));
      feed.taken();
      if (answered === 2) assert.ok(pieces().length <= 4, 'a few ahead at most');
    }
    await feed.stored;
    assert.ok(pieces().length > 10, `in pieces (${pieces().length})`);
    assert.deepEqual(pieces().map((piece) => piece.read), [...pieces().map((piece) => piece.read)].sort((a, b) => a - b), 'each says how far the load has come');
    assert.equal(pieces().at(-1)!.read, total);
    assert.equal(viewOf(messages).spans.size, 3_001, 'every span, once the viewer has taken every piece');
    assert.deepEqual(messages.at(-1), { type: 'stored-end' });

    const again: HostMessage[] = [];
    feed.close();
    feed = await openTraceFeed({ store, sessionId: session.id, live: undefined, send: (m) => again.push(m) });
    await eventually('the first pieces', () => again.filter((m) => m.type === 'stored').length === 2);
    feed.close();
    feed.taken();
    await feed.stored;
    assert.equal(again.filter((m) => m.type === 'stored').length, 2, 'a closed feed reads no further');
    assert.ok(!again.some((m) => m.type === 'stored-end'));
  });

  it('says why when the stored trace cannot be read', async () => {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    handle.close();
    mkdirSync(store.traceFile(session.id));
    const messages: HostMessage[] = [];
    feed = await openTraceFeed({ store, sessionId: session.id, live: undefined, send: viewer(messages) });
    await feed.stored;
    const end = messages.find((m) => m.type === 'stored-end');
    assert.match(end?.type === 'stored-end' ? (end.error ?? '') : '', /^Could not read the trace: EISDIR/);
  });
});
