/**
 * The transcript model: a session's events in, what a person sees out, in
 * the words every door shows; a stored session shown again gives the same
 * entries as it did live, each prompt opened by the person's message.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/engine/events';
import type { TranscriptEntry } from '../../../src/transcript/entries';
import { TranscriptModel } from '../../../src/transcript/transcript-model';

const edit = { status: 'success' as const, output: 'Edited greet.ts', metadata: { filesModified: ['greet.ts'], durationMs: 3, extra: { linesAdded: 1, linesRemoved: 1 } } };

/** A reviewed prompt: the builder reads, edits and finishes; the reviewer approves with a summary for the person. */
const REVIEWED: AgentEvent[] = [
  { type: 'prompt_start', agent: 'pair', primary: 'builder', coagent: 'reviewer', content: [{ type: 'text', text: 'Greet louder' }] },
  { type: 'turn_start', agent: 'builder' },
  { type: 'text_delta', agent: 'builder', delta: 'I will edit it.' },
  { type: 'text_complete', agent: 'builder', text: 'I will edit it.' },
  { type: 'tool_call_start', agent: 'builder', callId: 'c1', tool: 'read_file', kind: 'read', arguments: { path: 'greet.ts' }, summary: 'greet.ts', locations: [{ path: 'greet.ts' }] },
  { type: 'tool_call_end', agent: 'builder', callId: 'c1', tool: 'read_file', result: { status: 'success', output: 'x', metadata: { filesModified: [], durationMs: 0, extra: {} } }, durationMs: 1 },
  { type: 'tool_call_start', agent: 'builder', callId: 'c2', tool: 'edit_file', kind: 'edit', arguments: { path: 'greet.ts' }, summary: 'greet.ts', locations: [{ path: 'greet.ts' }] },
  { type: 'tool_call_end', agent: 'builder', callId: 'c2', tool: 'edit_file', result: edit, durationMs: 3 },
  { type: 'tool_call_start', agent: 'builder', callId: 'c3', tool: 'task_complete', kind: 'other', arguments: { summary: 'Greets louder.' }, summary: 'Greets louder.', locations: [] },
  { type: 'tool_call_end', agent: 'builder', callId: 'c3', tool: 'task_complete', result: { status: 'success', output: 'Greets louder.', metadata: { filesModified: [], durationMs: 0, extra: {} } }, durationMs: 0 },
  { type: 'handoff', agent: 'builder', to: 'reviewer', purpose: 'review', text: 'builder reports on the task below' },
  { type: 'coagent_start', agent: 'reviewer', primary: 'builder', round: 1 },
  { type: 'coagent_end', agent: 'reviewer', primary: 'builder', round: 1, verdict: 'approved', summary: 'Checked: it greets louder.' },
  { type: 'task_complete', agent: 'reviewer', summary: 'Checked: it greets louder.' },
  { type: 'run_complete', agent: 'pair', status: 'completed', message: 'reviewer approved the work after 1 review round.' },
];

function entries(events: readonly AgentEvent[], replaying = false): TranscriptEntry[] {
  const model = new TranscriptModel({ replaying });
  return events.flatMap((event) => model.handle(event));
}

const shown = (list: TranscriptEntry[]): TranscriptEntry[] => list.filter((entry) => !['turn_start', 'turn_end', 'cost', 'files_changed'].includes(entry.type));

describe('the transcript model', () => {
  it('titles each tool call in a person\'s words, as it runs and once it ended, with what it changed', () => {
    const calls = entries(REVIEWED).flatMap((entry) => (entry.type === 'tool_start' || entry.type === 'tool_end' ? [[entry.type, entry.title, entry.type === 'tool_end' ? (entry.outcome ?? '') : '']] : []));
    assert.deepEqual(calls, [
      ['tool_start', 'Reading greet.ts', ''],
      ['tool_end', 'Read greet.ts', ''],
      ['tool_start', 'Editing greet.ts', ''],
      ['tool_end', 'Edited greet.ts', '+1 −1'],
    ]);
  });

  it('shows the call that ends the task as its answer, not as a card, and a review in the chat\'s words', () => {
    const list = entries(REVIEWED);
    assert.deepEqual(list.find((entry) => entry.type === 'summary'), { type: 'summary', actor: { agent: 'builder', role: 'primary' }, text: 'Greets louder.', separated: false });
    const review = list.filter((entry) => entry.type === 'review_start' || entry.type === 'verdict' || entry.type === 'handoff');
    assert.deepEqual(
      review.map((entry) => (entry.type === 'review_start' ? `${entry.roundText}: ${entry.text}` : entry.type === 'verdict' ? `${entry.mark} ${entry.text} / ${entry.summary}` : entry.type === 'handoff' ? entry.words : '')),
      ['Sent for review', 'First review: the reviewer checks the work', '✓ Reviewer approved / Checked: it greets louder.'],
    );
    assert.doesNotMatch(JSON.stringify(review.map((entry) => ('words' in entry ? entry.words : 'text' in entry ? entry.text : ''))), /→/, 'no "builder → reviewer" in the words');
  });

  it('ends a prompt whose answer or approval was shown without repeating it, and says what to do about a failure', () => {
    const end = entries(REVIEWED).at(-1)!;
    assert.deepEqual(end.type === 'prompt_end' && [end.status, end.said], ['completed', '']);
    const failed = entries([
      { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Hi' }] },
      { type: 'error', agent: 'builder', message: 'connect ECONNREFUSED 127.0.0.1:9' },
      { type: 'run_complete', agent: 'build', status: 'error', message: 'connect ECONNREFUSED 127.0.0.1:9' },
    ]);
    assert.deepEqual(failed.slice(-2), [
      { type: 'stopped', actor: { agent: 'builder', role: 'primary' }, why: 'error', message: 'connect ECONNREFUSED 127.0.0.1:9' },
      {
        type: 'prompt_end',
        status: 'error',
        message: 'connect ECONNREFUSED 127.0.0.1:9',
        said: 'connect ECONNREFUSED 127.0.0.1:9',
        hint: { text: 'The provider did not answer. Is the server running, and is its base URL right?', setting: 'crow.baseUrls' },
      },
    ]);
  });

  it('words retries, doom loops and compactions once, for every door', () => {
    const model = new TranscriptModel();
    const said = [
      { type: 'retry', agent: 'builder', attempt: 2, delayMs: 1500, reason: 'HTTP 529 (overloaded)' },
      { type: 'doom_loop', agent: 'builder', tool: 'bash', repeats: 3 },
      { type: 'compaction', agent: 'builder', tokensBefore: 9000, tokensAfter: 2000, how: 'summarised' },
    ].flatMap((event) => model.handle(event as AgentEvent)).map((entry) => (entry.type === 'notice' ? entry.text : ''));
    assert.deepEqual(said, [
      'The provider failed; retry 2 in 1.5 s: HTTP 529 (overloaded)',
      'builder called bash the same way 3 times in a row and was stopped.',
      "builder's history was compacted to fit the context window (9000 \u2192 2000 tokens, summarised).",
    ]);
  });

  it('takes a complete block only when its deltas never came', () => {
    const list = entries([
      { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Hi' }] },
      { type: 'thinking_complete', agent: 'builder', text: 'Plan it.' },
      { type: 'text_delta', agent: 'builder', delta: 'Hel' },
      { type: 'text_delta', agent: 'builder', delta: 'lo.' },
      { type: 'text_complete', agent: 'builder', text: 'Hello.' },
    ]);
    assert.deepEqual(list.map((entry) => (entry.type === 'text' || entry.type === 'thinking' ? `${entry.type}:${entry.delta}` : entry.type)), ['prompt', 'thinking:Plan it.', 'text:Hel', 'text:lo.']);
  });

  it('replays a stored session as it showed live, each prompt opened by what the person sent (an Apply in their words)', () => {
    const applied: AgentEvent[] = [
      { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Apply the code block to src/a.ts' }] },
      { type: 'run_complete', agent: 'build', status: 'completed', message: 'Done.' },
    ];
    const stream = [...REVIEWED, ...applied];
    const live = entries(stream);
    const replayed = entries(stream, true);
    const prompts = replayed.filter((entry) => entry.type === 'prompt');
    assert.ok(live.filter((entry) => entry.type === 'prompt').every((entry) => entry.type === 'prompt' && entry.sent), 'live, the door showed each as it was sent');
    assert.deepEqual(
      prompts.map((entry) => entry.type === 'prompt' && [entry.text, entry.action ?? false]),
      [
        ['Greet louder', false],
        ['Applied a code block to src/a.ts', true],
      ],
    );
    assert.deepEqual(shown(replayed.filter((entry) => entry.type !== 'prompt')), shown(live.filter((entry) => entry.type !== 'prompt')));
  });

  it('words a person\'s message sent while the agents worked as theirs, live and replayed', () => {
    const steer: AgentEvent = { type: 'steer', agent: 'builder', content: [{ type: 'text', text: 'Use tabs' }] };
    for (const replaying of [false, true]) {
      assert.deepEqual(new TranscriptModel({ replaying }).handle(steer), [{ type: 'prompt', content: steer.content, text: 'Use tabs', steered: { agent: 'builder' } }]);
    }
  });

  it('speaks the display language it is given', () => {
    const t = (message: string, ...values: (string | number)[]): string => `«${message.replace(/\{(\d+)\}/g, (_, i: string) => String(values[Number(i)]))}»`;
    const model = new TranscriptModel({ t });
    const start = [REVIEWED[0]!, REVIEWED[4]!].flatMap((event) => model.handle(event)).find((entry) => entry.type === 'tool_start');
    assert.equal(start?.type === 'tool_start' && start.title, '«Reading» greet.ts');
  });
});
