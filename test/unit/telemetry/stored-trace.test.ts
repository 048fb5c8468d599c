import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACPSession } from '../../../src/session/acp-session';
import { SessionStore } from '../../../src/session/session-store';
import type { SpanRecord } from '../../../src/telemetry/span';
import { mergeSpanRecords } from '../../../src/telemetry/stored-spans';
import { followTrace } from '../../../src/telemetry/trace-follow';
import { buildTraceTrees, renderTraceTree } from '../../../src/telemetry/trace-tree';

/** Resolves once `check` holds, polling briefly; fails naming `what` after a few seconds. */
async function eventually(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((done) => setTimeout(done, 25));
  assert.ok(check(), `timed out waiting for ${what}`);
}

function lines(file: string): SpanRecord[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SpanRecord);
}

describe('stored traces: spans recorded when they start and when they end', () => {
  let data: string;
  let store: SessionStore;
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'crow-stored-trace-'));
    store = new SessionStore({ dataHome: data });
  });
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  it('writes a start record then the ended record, and reads one span per id', () => {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    const prompt = session.trace.startTrace('prompt', 'prompt build');
    const tool = prompt.child('tool', 'execute_tool bash', { agent: 'builder', attributes: { 'gen_ai.tool.call.id': 'call-1' } });

    const running = store.spans(session.id);
    assert.deepEqual(running.map((s) => [s.name, s.end]), [['prompt build', undefined], ['execute_tool bash', undefined]], 'visible while they run');
    assert.equal(running[1]!.attributes['gen_ai.tool.call.id'], 'call-1', 'with what is known at the start');

    tool.set({ 'crow.tool.status': 'success' });
    tool.end('ok');
    prompt.end('ok');
    handle.close();

    const raw = lines(store.traceFile(session.id));
    assert.deepEqual(raw.map((s) => [s.name, s.end === undefined ? 'start' : 'end']), [
      ['prompt build', 'start'],
      ['execute_tool bash', 'start'],
      ['execute_tool bash', 'end'],
      ['prompt build', 'end'],
    ]);
    const spans = store.spans(session.id);
    assert.deepEqual(spans.map((s) => [s.name, s.status]), [['prompt build', 'ok'], ['execute_tool bash', 'ok']], 'start order, ended records');
    assert.equal(spans[1]!.attributes['crow.tool.status'], 'success');
  });

  it('reads a file from before start records (ended spans only, children first) as it always did', () => {
    const folder = storedSession('old-session');
    const child: SpanRecord = { traceId: 't', spanId: 'c', parentSpanId: 'p', kind: 'tool', name: 'execute_tool read_file', start: 2, end: 3, status: 'ok', attributes: {} };
    const parent: SpanRecord = { traceId: 't', spanId: 'p', kind: 'prompt', name: 'prompt build', start: 1, end: 4, status: 'ok', attributes: {} };
    writeFileSync(join(folder, 'trace.jsonl'), `${JSON.stringify(child)}\n${JSON.stringify(parent)}\n`);
    assert.deepEqual(store.spans('old-session'), [child, parent]);
    assert.match(renderTraceTree(buildTraceTrees(store.spans('old-session'))), /^prompt build \(3ms\) ✓\n└─ execute_tool read_file \(1ms\) ✓/);
  });

  it('keeps the ended record whatever the order, and skips lines that are not spans', () => {
    const started: SpanRecord = { traceId: 't', spanId: 'a', kind: 'llm_call', name: 'chat m', start: 1, attributes: {} };
    const ended: SpanRecord = { ...started, end: 5, status: 'ok', attributes: { 'gen_ai.usage.output_tokens': 3 } };
    assert.deepEqual(mergeSpanRecords([ended, started]), [ended]);
    assert.deepEqual(mergeSpanRecords([started, ended, { hello: 'world' } as unknown as SpanRecord]), [ended]);
  });

  it('shows the spans of a killed run as unfinished, and those of a live one as running', () => {
    const folder = storedSession('killed');
    const open: SpanRecord = { traceId: 't', spanId: 'p', kind: 'prompt', name: 'prompt build', start: 1, attributes: {} };
    writeFileSync(join(folder, 'trace.jsonl'), `${JSON.stringify(open)}\n`);
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(join(folder, 'writer.json'), JSON.stringify({ pid: dead, hostname: hostname(), since: 0 }));

    assert.equal(store.isRecording('killed'), false, 'the writer is gone');
    const [span] = store.spans('killed');
    assert.equal(span!.end, undefined);
    assert.equal(renderTraceTree(buildTraceTrees(store.spans('killed')), { recording: false }).trim(), 'prompt build (unfinished) …');

    writeFileSync(join(folder, 'writer.json'), JSON.stringify({ pid: process.pid, hostname: hostname(), since: 0 }));
    assert.equal(store.isRecording('killed'), true);
    assert.equal(renderTraceTree(buildTraceTrees(store.spans('killed')), { recording: true }).trim(), 'prompt build (running) …');
  });

  it('counts a session as recording exactly while it is attached', () => {
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    assert.equal(store.isRecording(session.id), true);
    handle.close();
    assert.equal(store.isRecording(session.id), false);
  });

  it('follows a trace file: records as they are appended (a torn line waits for its end), and the recording state', async () => {
    const folder = storedSession('followed');
    const file = join(folder, 'trace.jsonl');
    writeFileSync(file, `${JSON.stringify({ traceId: 't', spanId: 'old', kind: 'prompt', name: 'before', start: 0, end: 1, attributes: {} })}\n`);
    let recording = true;
    const seen: string[] = [];
    const states: boolean[] = [];
    const follower = await followTrace({
      file,
      pollMs: 20,
      onRecord: (record) => seen.push(`${record.spanId}:${record.end === undefined ? 'start' : 'end'}`),
      isRecording: () => recording,
      onRecording: (state) => states.push(state),
    });
    try {
      assert.deepEqual(states, [true], 'told the state at once');
      const start = JSON.stringify({ traceId: 't', spanId: 'new', kind: 'tool', name: 'execute_tool bash', start: 2, attributes: {} });
      appendFileSync(file, `${start}\n{"not":"a span"}\n`);
      const end = `${JSON.stringify({ traceId: 't', spanId: 'new', kind: 'tool', name: 'execute_tool bash', start: 2, end: 3, status: 'ok', attributes: {} })}\n`;
      appendFileSync(file, end.slice(0, 30));
      await eventually('the start record', () => seen.length === 1);
      appendFileSync(file, end.slice(30));
      await eventually('the end record', () => seen.length === 2);
      assert.deepEqual(seen, ['new:start', 'new:end'], 'only what was appended after following began, and only spans');
      recording = false;
      await eventually('the writer stopping', () => states.length === 2);
      assert.deepEqual(states, [true, false]);
    } finally {
      follower.stop();
    }
  });

  it('follows a line that was being written when following began, once it ends (a stored read leaves it out)', async () => {
    const file = join(storedSession('torn-at-start'), 'trace.jsonl');
    const line = `${JSON.stringify({ traceId: 't', spanId: 'torn', kind: 'tool', name: 'execute_tool bash', start: 2, attributes: {} })}\n`;
    writeFileSync(file, `${JSON.stringify({ traceId: 't', spanId: 'old', kind: 'prompt', name: 'before', start: 0, end: 1, attributes: {} })}\n${line.slice(0, 25)}`);
    const seen: string[] = [];
    const follower = await followTrace({ file, pollMs: 20, onRecord: (record) => seen.push(record.spanId) });
    try {
      appendFileSync(file, line.slice(25));
      await eventually('the record whose line was torn', () => seen.length === 1);
      assert.deepEqual(seen, ['torn'], 'not the line before it, which a stored read has');
    } finally {
      follower.stop();
    }
  });

  function storedSession(id: string): string {
    const folder = join(store.root, id);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'meta.json'), JSON.stringify({ id, agentName: 'build', cwd: data, title: id, createdAt: 0, updatedAt: 0, models: {}, todos: [], internal: [] }));
    return folder;
  }
});
