import assert from 'node:assert/strict';
import { PRESETS } from '../../../src/config/control-flow';
import { ScriptedProvider } from '../../../src/llm/scripted';
import type { SpanRecord } from '../../../src/telemetry/span';
import { costOf } from '../../../src/llm/types';
import { baseAgent, composition, flowFixture, runFlow, tools, type FlowFixture } from '../../support/flows';

function childrenOf(spans: readonly SpanRecord[], parent: SpanRecord): SpanRecord[] {
  return spans.filter((s) => s.parentSpanId === parent.spanId);
}

describe('telemetry: spans at two levels', () => {
  let fx: FlowFixture;
  beforeEach(() => (fx = flowFixture({ 'a.txt': 'a\n' })));
  afterEach(() => fx.dispose());

  it('records the prompt, agent turns, LLM calls with gen_ai attributes, tools and handoffs as one tree', async () => {
    const builder = new ScriptedProvider(
      [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }], usage: { input: 100, output: 10, cacheRead: 50 } },
        { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Read it.' } }], usage: { input: 20, output: 5 } },
      ],
      'builder-model',
    );
    builder.pricing = { input: 3, output: 15, cacheRead: 0.3 };
    const reviewer = new ScriptedProvider(
      [{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'Approved.' } }], usage: { input: 30, output: 4 } }],
      'reviewer-model',
    );
    const agent = composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools('read_file', 'task_complete')),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools('read_file', 'task_complete')),
    });

    await runFlow(agent, fx.session, 'Read a.txt.');
    const spans = fx.session.trace.spans;

    const roots = spans.filter((s) => s.parentSpanId === undefined);
    assert.equal(roots.length, 1);
    const prompt = roots[0]!;
    assert.equal(prompt.kind, 'prompt');
    assert.ok(spans.every((s) => s.traceId === prompt.traceId && s.end !== undefined), 'one trace, every span ended');
    assert.equal(prompt.attributes['crow.run.status'], 'completed');
    assert.equal(prompt.attributes['gen_ai.usage.input_tokens'], 200);
    assert.equal(prompt.attributes['gen_ai.usage.output_tokens'], 19);

    const turns = childrenOf(spans, prompt).filter((s) => s.kind === 'agent_turn');
    assert.deepEqual(turns.map((t) => [t.agent, t.role]), [['builder', 'primary'], ['reviewer', 'coagent']]);
    const handoffs = childrenOf(spans, prompt).filter((s) => s.kind === 'handoff');
    // Seed 000 names the handoff span's attributes handoff.from / handoff.to / handoff.prompt.
    assert.deepEqual(handoffs.map((h) => [h.agent, h.attributes['handoff.from'], h.attributes['handoff.to'], h.attributes['crow.handoff.purpose']]), [
      ['builder', 'builder', 'reviewer', 'review'],
    ]);
    assert.match(String(handoffs[0]!.attributes['handoff.prompt']), /Read a\.txt\./, 'the text the reviewer was handed');

    const [firstCall] = childrenOf(spans, turns[0]!).filter((s) => s.kind === 'llm_call');
    assert.deepEqual(
      Object.fromEntries(Object.entries(firstCall!.attributes).filter(([k]) => k.startsWith('gen_ai.'))),
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'builder-model',
        'gen_ai.response.model': 'builder-model',
        'gen_ai.response.finish_reasons': ['tool_use'],
        'gen_ai.usage.input_tokens': 150,
        'gen_ai.usage.output_tokens': 10,
        'gen_ai.usage.cache_read.input_tokens': 50,
        'gen_ai.usage.cache_creation.input_tokens': 0,
        'gen_ai.usage.reasoning.output_tokens': 0,
      },
    );
    assert.equal(firstCall!.attributes['crow.cost_usd'], costOf({ input: 100, output: 10, cacheRead: 50, cacheWrite: 0, reasoning: 0 }, builder.pricing));

    assert.equal(firstCall!.attributes['crow.request.last_message'], 'Read a.txt.');
    assert.equal(firstCall!.attributes['crow.response.content'], '[call read_file] {"path":"a.txt"}');
    assert.match(String(firstCall!.attributes['crow.request.system']), /You are builder/);

    const toolSpan = childrenOf(spans, turns[0]!).find((s) => s.kind === 'tool')!;
    assert.match(String(toolSpan.attributes['crow.tool.output']), /1\ta/);
    assert.equal(toolSpan.attributes['gen_ai.tool.name'], 'read_file');
    assert.equal(toolSpan.attributes['gen_ai.tool.call.arguments'], '{"path":"a.txt"}');
    assert.equal(toolSpan.attributes['crow.tool.status'], 'success');
    assert.equal(toolSpan.status, 'ok');
  });

  it('puts each review\'s verdict and the start of its feedback on the reviewer\'s turn span, never on the builder\'s', async () => {
    const builder = new ScriptedProvider(
      [
        { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Did it.' } }] },
        { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Fixed it.' } }] },
      ],
      'builder-model',
    );
    const reviewer = new ScriptedProvider(
      [{ text: 'Please add <b>tests</b> first.' }, { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Approved: tests added.' } }] }],
      'reviewer-model',
    );
    const agent = composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools('task_complete')),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools('task_complete')),
    });

    await runFlow(agent, fx.session, 'Add tests.');
    const turns = fx.session.trace.spans.filter((s) => s.kind === 'agent_turn');
    const reviews = turns.filter((t) => t.role === 'coagent').map((t) => [t.attributes['crow.review.verdict'], t.attributes['crow.review.feedback']]);
    assert.deepEqual(reviews, [
      ['feedback', 'Please add <b>tests</b> first.'],
      ['approved', 'Approved: tests added.'],
    ]);
    assert.ok(turns.filter((t) => t.role === 'primary').every((t) => t.attributes['crow.review.verdict'] === undefined));
  });

  it('marks a cancelled run and its open work as cancelled', async () => {
    const builder = new ScriptedProvider([{ text: 'Working on a long answer...', hangAfterDeltas: true }]);
    const agent = composition({ flow: { kind: 'hitl' }, primary: baseAgent('builder', builder, fx.workspace, []) });
    const controller = new AbortController();
    await runFlow(agent, fx.session, 'Go.', { signal: controller.signal, onEvent: (e) => e.type === 'text_delta' && controller.abort() });

    const byKind = (kind: string) => fx.session.trace.spans.filter((s) => s.kind === kind).map((s) => s.status);
    assert.deepEqual(byKind('prompt'), ['cancelled']);
    assert.deepEqual(byKind('agent_turn'), ['cancelled']);
    assert.deepEqual(byKind('llm_call'), ['cancelled']);
  });

  it('prices cache reads and writes, falling back to the input price', () => {
    const usage = { input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000, reasoning: 0 };
    assert.equal(costOf(usage, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }), 3 + 15 + 0.3 + 3.75);
    assert.equal(costOf(usage, { input: 1, output: 2 }), 1 + 2 + 1 + 1);
  });
});
