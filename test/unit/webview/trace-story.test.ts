/**
 * The trace viewer's story wording and keyboard moves, as pure functions of
 * span records: what a row says ("builder · read greeting.txt"), what a cost
 * reads, and where a key takes the selection.
 */
import assert from 'node:assert/strict';
import type { SpanRecord } from '../../../src/telemetry/span';
import { compactCount, cost } from '../../../webview/trace-viewer/format';
import type { Row } from '../../../webview/trace-viewer/model';
import { storyLabel, storyLine, WHOLE } from '../../../webview/trace-viewer/story';
import { treeMove } from '../../../webview/trace-viewer/tree-keys';

let ids = 0;
function span(kind: SpanRecord['kind'], fields: Partial<SpanRecord> = {}): SpanRecord {
  ids += 1;
  return { traceId: 't', spanId: `s${ids}`, kind, name: `${kind} span`, start: 0, end: 1, status: 'ok', attributes: {}, ...fields };
}

function tool(name: string, args: unknown, fields: Partial<SpanRecord> = {}): SpanRecord {
  return span('tool', { agent: 'builder', name: `execute_tool ${name}`, attributes: { 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': JSON.stringify(args) }, ...fields });
}

describe('trace viewer: the story a span tells', () => {
  it('says what a tool call did in the words of its main argument', () => {
    assert.equal(storyLine(tool('read_file', { path: 'greeting.txt' })), 'builder · read greeting.txt');
    assert.equal(storyLine(tool('write_file', { path: 'notes.md', content: 'x' })), 'builder · wrote notes.md');
    assert.equal(storyLine(tool('edit_file', { path: 'src/a.ts' })), 'builder · edited src/a.ts');
    assert.equal(storyLine(tool('bash', { command: 'npm  test\n  --silent' })), 'builder · ran `npm test --silent`');
    assert.equal(storyLine(tool('grep', { pattern: 'TODO' })), 'builder · searched for TODO');
    assert.equal(storyLine(tool('task', { agent: 'explorer', task: 'Map the repo.' })), 'builder · gave explorer a task: Map the repo.');
    assert.equal(storyLine(tool('bash', { command: 'make' }, { status: 'error' })), 'builder · ran `make` — failed');
    assert.equal(storyLine(tool('mcp__db__query', {})), 'builder · used mcp__db__query');
  });

  it('falls back to the files a write changed, and survives arguments that are not JSON', () => {
    const write = span('tool', { agent: 'builder', name: 'execute_tool write_file', attributes: { 'crow.tool.files_modified': ['a.txt'], 'gen_ai.tool.call.arguments': '{not json' } });
    assert.equal(storyLine(write), 'builder · wrote a.txt');
  });

  it('tells a model call by what it read and wrote and what it cost', () => {
    const call = span('llm_call', { agent: 'builder', attributes: { 'gen_ai.usage.input_tokens': 1234, 'gen_ai.usage.output_tokens': 80, 'crow.cost_usd': 0.0031 } });
    assert.equal(storyLine(call), 'builder · model (1.2k in / 80 out, $0.0031)');
    assert.equal(storyLabel(span('llm_call', { agent: 'x', attributes: { 'gen_ai.usage.input_tokens': 12, 'crow.cost_usd': 0.000001 } })).text, 'model (12 in / 0 out, <$0.0001)');
    assert.equal(storyLabel(span('llm_call', { agent: 'x' })).text, 'model', 'no usage recorded: no made-up figures');
  });

  it('gives a review its verdict and the start of its feedback, on one line', () => {
    const feedback = span('agent_turn', { agent: 'reviewer', role: 'coagent', attributes: { 'crow.review.verdict': 'feedback', 'crow.review.feedback': 'Add tests\nfor the parser.' } });
    assert.equal(storyLine(feedback), 'reviewer · asked for changes: Add tests for the parser.');
    const approved = span('agent_turn', { agent: 'reviewer', role: 'coagent', attributes: { 'crow.review.verdict': 'approved', 'crow.review.feedback': 'Looks right.' } });
    assert.equal(storyLine(approved), 'reviewer · approved: Looks right.');
    const echoed = span('agent_turn', { agent: 'reviewer', attributes: { 'crow.review.verdict': 'approved', 'crow.review.feedback': 'Approved: story.md has its title.' } });
    assert.equal(storyLine(echoed), 'reviewer · approved: story.md has its title.', 'the verdict said once');
    const asked = span('agent_turn', { agent: 'reviewer', attributes: { 'crow.review.verdict': 'feedback', 'crow.review.feedback': 'Changes requested: add a title.' } });
    assert.equal(storyLine(asked), 'reviewer · asked for changes: add a title.');
    const only = span('agent_turn', { agent: 'reviewer', attributes: { 'crow.review.verdict': 'approved', 'crow.review.feedback': 'LGTM' } });
    assert.equal(storyLine(only), 'reviewer · approved: LGTM', 'a review that is only its verdict keeps its words');
    const cancelled = span('agent_turn', { agent: 'reviewer', role: 'coagent', attributes: { 'crow.review.verdict': 'cancelled' } });
    assert.equal(storyLine(cancelled), 'reviewer · review cancelled');
  });

  it('cuts a long review on its row but keeps it whole for the tooltip', () => {
    const long = 'x'.repeat(500);
    const review = span('agent_turn', { agent: 'reviewer', attributes: { 'crow.review.verdict': 'feedback', 'crow.review.feedback': long } });
    const row = storyLabel(review).text;
    assert.ok(row.length < 200 && row.endsWith('…'), row);
    assert.equal(storyLine(review, WHOLE), `reviewer · asked for changes: ${long}`);
  });

  it('tells turns, handoffs, the prompt and hooks as who did what', () => {
    assert.equal(storyLine(span('agent_turn', { agent: 'builder', role: 'primary', attributes: { 'crow.turn.stop_reason': 'task_complete', 'crow.turn.tool_calls': 3 } })), 'builder · worked, then handed over (3 tool calls)');
    const handoff = span('handoff', { agent: 'reviewer', attributes: { 'handoff.from': 'reviewer', 'handoff.to': 'builder', 'crow.handoff.purpose': 'feedback' } });
    assert.equal(storyLine(handoff), 'reviewer · sent the feedback to builder');
    assert.equal(storyLine(span('prompt', { attributes: { 'crow.prompt': 'Fix the\nbuild' } })), 'you · asked: Fix the build');
    assert.equal(storyLine(span('hook', { attributes: { 'crow.hook.event': 'pre_tool_use', 'crow.hook.decision': 'deny' } })), 'pre_tool_use hook: deny');
  });
});

describe('trace viewer: figures', () => {
  it('shows a cost with meaningful precision, never $0.0000', () => {
    assert.equal(cost(0), '$0');
    assert.equal(cost(0.00002), '<$0.0001');
    assert.equal(cost(0.0001), '$0.0001');
    assert.equal(cost(0.003), '$0.003');
    assert.equal(cost(0.0123), '$0.012');
    assert.equal(cost(0.5), '$0.5');
    assert.equal(cost(12.345), '$12.35');
  });

  it('shows token counts compactly', () => {
    assert.deepEqual([80, 999, 1_234, 12_345, 999_499, 1_500_000].map(compactCount), ['80', '999', '1.2k', '12k', '999k', '1.5M']);
  });
});

describe('trace viewer: tree keys', () => {
  // prompt > builder > (model, tool), reviewer
  const spans = [span('prompt'), span('agent_turn'), span('llm_call'), span('tool'), span('agent_turn')];
  const rows: Row[] = [
    { span: spans[0]!, depth: 0, hasChildren: true },
    { span: spans[1]!, depth: 1, hasChildren: true },
    { span: spans[2]!, depth: 2, hasChildren: false },
    { span: spans[3]!, depth: 2, hasChildren: false },
    { span: spans[4]!, depth: 1, hasChildren: false },
  ];
  const none = new Set<string>();

  it('moves up and down, to the ends, and stops at the edges', () => {
    assert.deepEqual(treeMove('ArrowDown', rows, 1, none), { type: 'select', index: 2 });
    assert.deepEqual(treeMove('ArrowDown', rows, 4, none), { type: 'select', index: 4 });
    assert.deepEqual(treeMove('ArrowUp', rows, 0, none), { type: 'select', index: 0 });
    assert.deepEqual(treeMove('End', rows, 0, none), { type: 'select', index: 4 });
    assert.deepEqual(treeMove('Home', rows, 3, none), { type: 'select', index: 0 });
    assert.deepEqual(treeMove('ArrowDown', rows, -1, none), { type: 'select', index: 0 }, 'nothing selected: the first row');
  });

  it('opens, closes, goes into and out of rows with Right and Left', () => {
    assert.deepEqual(treeMove('ArrowLeft', rows, 1, none), { type: 'toggle', spanId: spans[1]!.spanId }, 'closes an open row');
    assert.deepEqual(treeMove('ArrowRight', rows, 1, new Set([spans[1]!.spanId])), { type: 'toggle', spanId: spans[1]!.spanId }, 'opens a closed one');
    assert.deepEqual(treeMove('ArrowRight', rows, 1, none), { type: 'select', index: 2 }, 'goes to the first child of an open one');
    assert.deepEqual(treeMove('ArrowLeft', rows, 3, none), { type: 'select', index: 1 }, 'a leaf goes to its parent');
    assert.deepEqual(treeMove('ArrowRight', rows, 3, none), { type: 'none' });
    assert.deepEqual(treeMove('ArrowLeft', rows.slice(0, 1), 0, new Set([spans[0]!.spanId])), { type: 'none' }, 'a closed root has nowhere to go');
  });

  it('leaves other keys to the page', () => {
    assert.equal(treeMove('a', rows, 1, none), undefined);
    assert.equal(treeMove('ArrowDown', [], -1, none), undefined);
  });
});
