import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { ToolCallIds, UpdateTranslator } from '../../../../src/adapters/acp/update-translator';
import { UpdateSink } from '../../../../src/adapters/acp/update-sink';
import type { AgentEvent } from '../../../../src/engine/events';

function translator(): { t: UpdateTranslator; updates: SessionUpdate[]; sink: UpdateSink } {
  const updates: SessionUpdate[] = [];
  const sink = new UpdateSink(async (update) => void updates.push(update), (err) => assert.fail(String(err)));
  const t = new UpdateTranslator({
    cwd: '/work',
    sink,
    toolCallIds: new ToolCallIds(),
    contextWindow: () => undefined,
    readText: async () => '',
    notices: true,
    sessionCost: () => undefined,
  });
  t.handle({ type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Run the tests' }] });
  return { t, updates, sink };
}

const start = (callId: string, tool = 'bash'): AgentEvent => ({ type: 'tool_call_start', agent: 'builder', callId, tool, kind: 'execute', arguments: {}, summary: 'npm test', locations: [] });
const progress = (callId: string, fields: Partial<Extract<AgentEvent, { type: 'tool_progress' }>>): AgentEvent => ({ type: 'tool_progress', agent: 'builder', callId, tool: 'bash', elapsedMs: 1_000, ...fields });

describe('a running call over ACP', () => {
  it('sends its growing output as the in-progress content of its tool call, and nothing for a beat without news', async () => {
    const { t, updates, sink } = translator();
    t.handle(start('c1'));
    t.handle(progress('c1', { tail: 'compiling', lines: 1 }));
    t.handle(progress('c1', { elapsedMs: 2_000, tail: 'compiling', lines: 1 }));
    t.handle(progress('c1', { elapsedMs: 2_250, tail: 'compiling\nlinking ```odd``` name', lines: 2, step: { message: 'Building', done: 1, total: 2 } }));
    await sink.drained();
    const live = updates.filter((update) => update.sessionUpdate === 'tool_call_update');
    assert.deepEqual(live, [
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress', content: [{ type: 'content', content: { type: 'text', text: '```console\ncompiling\n```' } }] },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'in_progress',
        content: [
          { type: 'content', content: { type: 'text', text: 'Building (1/2)' } },
          { type: 'content', content: { type: 'text', text: '````console\ncompiling\nlinking ```odd``` name\n````' } },
        ],
      },
    ]);
  });

  it('leaves a command in a client terminal to the terminal, and a task call to its subagent\'s steps', async () => {
    const { t, updates, sink } = translator();
    t.handle(start('c1'));
    assert.equal(t.attachTerminal('term-1'), true);
    t.handle(progress('c1', { tail: 'in the terminal already', lines: 1 }));
    t.handle(start('c2', 'task'));
    t.handle({ type: 'subagent_progress', agent: 'builder', subagent: 'explorer', callId: 'c2', text: 'read_file a.ts' });
    t.handle(progress('c2', { step: { message: 'ignored' } }));
    await sink.drained();
    const contents = updates.flatMap((update) => (update.sessionUpdate === 'tool_call_update' ? [JSON.stringify(update.content)] : []));
    assert.deepEqual(contents, ['[{"type":"terminal","terminalId":"term-1"}]', '[{"type":"content","content":{"type":"text","text":"explorer: read_file a.ts"}}]']);
  });

  it('replaces the live output with the result once the call ends', async () => {
    const { t, updates, sink } = translator();
    t.handle(start('c1'));
    t.handle(progress('c1', { tail: 'partial', lines: 1 }));
    t.handle({ type: 'tool_call_end', agent: 'builder', callId: 'c1', tool: 'bash', result: { status: 'success', output: 'all\n[exit code 0]', metadata: { filesModified: [], durationMs: 5, extra: {} } }, durationMs: 5 });
    await sink.drained();
    const last = updates.at(-1)!;
    assert.equal(last.sessionUpdate, 'tool_call_update');
    assert.deepEqual(last.sessionUpdate === 'tool_call_update' && [last.status, last.content], ['completed', [{ type: 'content', content: { type: 'text', text: '```console\nall\n[exit code 0]\n```' } }]]);
  });
});

describe('a finished command over ACP', () => {
  it("shows its output as a terminal would: no spinner frames, colours or cursor moves reach the client's text", async () => {
    const { t, updates, sink } = translator();
    t.handle(start('c1'));
    const output = '⠋\x1b[1G\x1b[0K⠙\x1b[1G\x1b[0K\x1b[32madded 3 packages\x1b[0m\n[exit code 0]';
    t.handle({ type: 'tool_call_end', agent: 'builder', callId: 'c1', tool: 'bash', result: { status: 'success', output, metadata: {} }, durationMs: 10 } as AgentEvent);
    await sink.drained();
    const end = updates.filter((update) => update.sessionUpdate === 'tool_call_update').at(-1);
    // What the client shows; rawOutput keeps the bytes as they came, for whoever asks for the machinery.
    const shown = JSON.stringify(end && 'content' in end ? end.content : undefined);
    assert.match(shown, /added 3 packages\\n\[exit code 0\]/);
    assert.doesNotMatch(shown, /[\u2800-\u28ff]|\\u001b/);
  });
});
