import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { ToolCallIds, UpdateTranslator } from '../../../../src/adapters/acp/update-translator';
import { UpdateSink } from '../../../../src/adapters/acp/update-sink';
import type { AgentEvent } from '../../../../src/engine/events';
import { EventLog } from '../../../../src/session/event-log';

function translator(): { t: UpdateTranslator; updates: SessionUpdate[]; sink: UpdateSink } {
  const updates: SessionUpdate[] = [];
  const sink = new UpdateSink(async (update) => void updates.push(update), (err) => assert.fail(String(err)));
  const t = new UpdateTranslator({ cwd: '/work', sink, toolCallIds: new ToolCallIds(), contextWindow: () => undefined, readText: async () => '', notices: true, sessionCost: () => undefined });
  t.handle({ type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Say hello' }] });
  return { t, updates, sink };
}

const delta = (text: string, agent = 'builder'): AgentEvent => ({ type: 'text_delta', agent, delta: text });
const complete = (text: string, agent = 'builder'): AgentEvent => ({ type: 'text_complete', agent, text });
const thinking = (text: string): AgentEvent => ({ type: 'thinking_delta', agent: 'builder', delta: text });
const thought = (text: string): AgentEvent => ({ type: 'thinking_complete', agent: 'builder', text });

/** The text of the answer and of the thoughts as a client puts them together. */
function shown(updates: SessionUpdate[]): { answer: string; thoughts: string } {
  const text = (kind: 'agent_message_chunk' | 'agent_thought_chunk') =>
    updates
      .flatMap((update) =>
        (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'agent_thought_chunk') && update.sessionUpdate === kind && update.content.type === 'text'
          ? [update.content.text]
          : [],
      )
      .join('');
  return { answer: text('agent_message_chunk'), thoughts: text('agent_thought_chunk') };
}

describe('streamed text over ACP', () => {
  it('shows each block once: its deltas, not its complete event again; a block that came whole is shown whole', async () => {
    const { t, updates, sink } = translator();
    for (const event of [thinking('Let me '), thinking('think.'), thought('Let me think.'), delta('Hel'), delta('lo'), complete('Hello'), complete(' again.'), delta(' And'), delta(' more.'), complete(' And more.')]) {
      t.handle(event);
    }
    t.flush();
    await sink.drained();
    assert.deepEqual(shown(updates), { answer: 'Hello again. And more.', thoughts: 'Let me think.' });
  });

  it('sends thousands of tiny deltas as a few chunks holding all the text, in order', async () => {
    const { t, updates, sink } = translator();
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i} `);
    for (const word of words) t.handle(delta(word));
    t.handle(complete(words.join('')));
    t.flush();
    await sink.drained();
    assert.equal(shown(updates).answer, words.join(''));
    assert.ok(updates.length < 100, `${updates.length} updates for 20,000 deltas`);
  });

  it("records a run of deltas as one event, and leaves the events it recorded unchanged", () => {
    const log = new EventLog();
    log.record(delta('Hel'), 1);
    log.record(delta('lo'), 2);
    log.record({ type: 'tool_call_start', agent: 'builder' }, 3);
    log.record(delta('Bye'), 4);
    const first = log.list()[0];
    log.record(delta('!'), 5);
    log.flush();
    assert.deepEqual(
      log.list().map(({ at, event }) => [at, event.type, (event as { delta?: string }).delta]),
      [[1, 'text_delta', 'Hello'], [3, 'tool_call_start', undefined], [4, 'text_delta', 'Bye!']],
    );
    assert.equal((first!.event as { delta?: string }).delta, 'Hello');
  });
});
