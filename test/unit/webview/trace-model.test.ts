/**
 * The trace viewer's model as a stored trace fills it piece by piece: the
 * tree it shows does not depend on the order the records arrive in, every
 * span stays in view whatever its parent says, no nesting is too deep, and
 * a span whose end has not been read yet is "loading", not "unfinished".
 */
import assert from 'node:assert/strict';
import type { SpanRecord } from '../../../src/telemetry/span';
import { TraceModel, type Filter } from '../../../webview/trace-viewer/model';

const ALL: Filter = { agent: '', kind: '', status: '', search: '' };

function span(spanId: string, parentSpanId: string | undefined, start: number, fields: Partial<SpanRecord> = {}): SpanRecord {
  return { traceId: 't', spanId, ...(parentSpanId !== undefined ? { parentSpanId } : {}), kind: 'tool', name: spanId, agent: 'builder', start, end: start + 5, status: 'ok', attributes: {}, ...fields };
}

/** The rows as "depth:name", the way the tree shows them. */
function shown(model: TraceModel, collapsed: ReadonlySet<string> = new Set(), filter: Filter = ALL): string[] {
  return model.rows(collapsed, filter).map((row) => `${row.depth}:${row.span.name}`);
}

/** Two prompts, each a turn with calls; as a file holds them, start records first. */
function session(): SpanRecord[] {
  const spans: SpanRecord[] = [];
  for (let p = 0; p < 2; p++) {
    const base = p * 1_000;
    spans.push(span(`p${p}`, undefined, base, { kind: 'prompt', name: `prompt ${p}`, end: base + 900 }));
    spans.push(span(`t${p}`, `p${p}`, base + 1, { kind: 'agent_turn', name: `turn ${p}`, end: base + 800 }));
    for (let c = 0; c < 3; c++) {
      spans.push(span(`l${p}${c}`, `t${p}`, base + 10 + c * 100, { kind: 'llm_call', name: `llm ${p}.${c}`, attributes: { 'gen_ai.usage.input_tokens': 100, 'crow.cost_usd': 0.5 } }));
      spans.push(span(`x${p}${c}`, `t${p}`, base + 60 + c * 100, { name: `tool ${p}.${c}`, ...(c === 1 ? { status: 'error' as const } : {}), attributes: { 'gen_ai.tool.call.id': `call-${p}-${c}` } }));
    }
  }
  return spans;
}

describe('trace viewer: the model a stored trace fills piece by piece', () => {
  it('shows the same tree whatever order the records arrive in: children before parents, the last line early', () => {
    const inOrder = new TraceModel();
    for (const record of session()) inOrder.upsert(record);
    const expected = shown(inOrder);
    assert.equal(expected.length, 16);
    assert.deepEqual(expected.slice(0, 4), ['0:prompt 0', '1:turn 0', '2:llm 0.0', '2:tool 0.0']);
    const orders = [[...session()].reverse(), [session().at(-1)!, ...session()], [...session()].sort((a, b) => a.spanId.localeCompare(b.spanId))];
    for (const order of orders) {
      const model = new TraceModel();
      for (const record of order) model.upsert(record);
      assert.deepEqual(shown(model), expected);
      assert.deepEqual(model.ancestors('x11'), ['t1', 'p1']);
      assert.deepEqual(model.totals('p1'), inOrder.totals('p1'));
    }
  });

  it('keeps every span in view when records name a parent in a loop, or themselves', () => {
    const model = new TraceModel();
    model.upsert(span('a', 'b', 1));
    model.upsert(span('b', 'a', 2));
    model.upsert(span('self', 'self', 3));
    model.upsert(span('child', 'a', 4));
    assert.deepEqual(shown(model), ['0:a', '1:b', '1:child', '0:self'], 'the loop is cut where it would close: no span is lost in it');
    assert.equal(model.totals('a').toolCalls + model.totals('self').toolCalls, model.size, 'sums end');
    assert.deepEqual(model.ancestors('b'), ['a']);
  });

  it('walks any depth of nesting, and any number of children', () => {
    const model = new TraceModel();
    const depth = 60_000;
    for (let i = 0; i < depth; i++) model.upsert(span(`d${i}`, i === 0 ? undefined : `d${i - 1}`, i));
    const rows = model.rows(new Set(), ALL);
    assert.equal(rows.length, depth);
    assert.equal(rows.at(-1)!.depth, depth - 1);
    assert.equal(model.totals('d0').toolCalls, depth);
    assert.equal(model.lastSeen('d0'), depth - 1 + 5);
    assert.equal(model.rows(new Set(), { ...ALL, search: `d${depth - 1}` }).length, depth, 'a match keeps its ancestors');
    for (let i = 0; i < 70_000; i++) model.upsert(span(`w${i}`, 'd0', depth + i));
    assert.equal(model.totals('d0').toolCalls, depth + 70_000);
  });

  it('moves a span when a later record gives it another parent or start, and keeps children in start order', () => {
    const model = new TraceModel();
    for (const record of session()) model.upsert(record);
    model.upsert({ ...session().find((s) => s.spanId === 'x00')!, parentSpanId: 't1', start: 1_500, end: 1_505 });
    assert.deepEqual(shown(model).slice(7), ['0:prompt 1', '1:turn 1', '2:llm 1.0', '2:tool 1.0', '2:llm 1.1', '2:tool 1.1', '2:llm 1.2', '2:tool 1.2', '2:tool 0.0']);
    assert.deepEqual(model.ancestors('x00'), ['t1', 'p1']);
  });

  it('says "loading" for a span whose end has not been read yet, "unfinished" once the whole trace has, "running" while recorded', () => {
    const model = new TraceModel();
    const open = span('p0', undefined, 0, { kind: 'prompt', end: undefined, status: undefined });
    model.upsert(open);
    model.loading = true;
    assert.equal(model.statusOf(open), 'loading');
    model.loading = false;
    assert.equal(model.statusOf(open), 'unfinished');
    model.recording = true;
    assert.equal(model.statusOf(open), 'running');
    assert.equal(model.statusOf(session()[0]!), 'ok');
  });

  it('keeps sums, bounds, agents and tool calls up to date as records arrive', () => {
    const model = new TraceModel();
    const records = session();
    for (const record of records.slice(0, 4)) model.upsert(record);
    assert.equal(model.totals('p0').llmCalls, 1);
    assert.equal(model.totals('p0').costUsd, 0.5);
    assert.deepEqual(model.bounds(0), { start: 0, end: 900 });
    for (const record of records.slice(4)) model.upsert({ ...record, agent: record.spanId.startsWith('l1') ? 'reviewer' : 'builder' });
    assert.equal(model.totals('p0').llmCalls, 3, 'the sum follows new records');
    assert.equal(model.totals('p0').errors, 1);
    assert.deepEqual(model.bounds(0), { start: 0, end: 1_900 });
    assert.deepEqual(model.agents(), ['builder', 'reviewer']);
    assert.equal(model.toolSpan('call-1-2')?.spanId, 'x12');
    assert.equal(model.toolSpan('call-9-9'), undefined);
    assert.deepEqual(shown(model, new Set(['t0'])).slice(0, 3), ['0:prompt 0', '1:turn 0', '0:prompt 1'], 'collapsed');
    assert.deepEqual(shown(model, new Set(), { ...ALL, status: 'error' }), ['0:prompt 0', '1:turn 0', '2:tool 0.1', '0:prompt 1', '1:turn 1', '2:tool 1.1']);
  });
});
