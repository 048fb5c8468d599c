import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../../src/session/history';
import { InternalSession, toMessages } from '../../../src/session/internal-session';

const meta = { filesModified: [], durationMs: 1, extra: {} };
const at = 0;

describe('InternalSession history → messages', () => {
  it('batches an interleaved timeline into alternating messages, thinking signatures intact', () => {
    const history: HistoryEntry[] = [
      { kind: 'user', content: [{ type: 'text', text: 'Fix the bug' }], at },
      { kind: 'thinking', text: 'Look first.', signature: 'sig-abc', at },
      { kind: 'assistant_text', text: 'Reading.', at },
      { kind: 'tool_call', id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}', at },
      { kind: 'tool_call', id: 'c2', name: 'bash', arguments: '{"command":"false"}', at },
      { kind: 'tool_result', callId: 'c1', name: 'read_file', status: 'success', output: '1\tx', metadata: meta, at },
      { kind: 'tool_result', callId: 'c2', name: 'bash', status: 'error', output: 'out', error: 'exit 1', metadata: meta, at },
      { kind: 'redacted_thinking', data: 'opaque', at },
      { kind: 'assistant_text', text: 'Done.', at },
      { kind: 'system', event: 'task_complete', message: 'done', at },
      { kind: 'user', content: [{ type: 'text', text: 'Thanks' }], at },
    ];
    assert.deepEqual(toMessages(history), [
      { role: 'user', content: [{ type: 'text', text: 'Fix the bug' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'Look first.', signature: 'sig-abc' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' },
          { type: 'tool_call', id: 'c2', name: 'bash', arguments: '{"command":"false"}' },
        ],
      },
      {
        role: 'tool_results',
        results: [
          { callId: 'c1', content: '1\tx', isError: false },
          { callId: 'c2', content: 'Error: exit 1\n\nout', isError: true },
        ],
      },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'text', text: 'Done.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('gives every tool call exactly one result, even when the result was never recorded', () => {
    const session = new InternalSession('primary');
    session.addUserMessage('Go');
    session.append({ kind: 'tool_call', id: 'c1', name: 'bash', arguments: '{}', at });
    session.append({ kind: 'tool_call', id: 'c2', name: 'bash', arguments: '{}', at });
    session.append({ kind: 'tool_result', callId: 'c2', name: 'bash', status: 'success', output: 'ok', metadata: meta, at });
    session.append({ kind: 'tool_result', callId: 'c2', name: 'bash', status: 'success', output: 'dup', metadata: meta, at });
    session.append({ kind: 'tool_result', callId: 'ghost', name: 'bash', status: 'success', output: '?', metadata: meta, at });
    session.addUserMessage('Continue');

    const messages = session.toMessages();
    const results = messages[2]!;
    assert.ok(results.role === 'tool_results');
    assert.deepEqual(results.results.map((r) => [r.callId, r.isError]), [['c2', false], ['c1', true]]);
    assert.match(results.results[1]!.content, /interrupted/);
    assert.equal(messages[3]!.role, 'user');
  });

  it('answers a dangling call at the end of the history', () => {
    const messages = toMessages([
      { kind: 'user', content: [{ type: 'text', text: 'Go' }], at },
      { kind: 'tool_call', id: 'c1', name: 'bash', arguments: '{}', at },
    ]);
    assert.deepEqual(messages.at(-1), {
      role: 'tool_results',
      results: [{ callId: 'c1', content: 'No result was recorded for this call: it was interrupted before it finished.', isError: true }],
    });
  });
});
