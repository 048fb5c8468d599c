import assert from 'node:assert/strict';
import { sendableCallIds, uniqueCallIds } from '../../../src/llm/call-ids';
import type { AssistantBlock, Message } from '../../../src/llm/types';

const call = (id: string, name = 'bash'): AssistantBlock => ({ type: 'tool_call', id, name, arguments: '{}' });
const result = (callId: string, content: string) => ({ callId, content, isError: false });
const ids = (blocks: readonly AssistantBlock[]) => blocks.flatMap((block) => (block.type === 'tool_call' ? [block.id] : []));

describe('tool call ids every provider takes', () => {
  describe('as a response arrives', () => {
    it('gives the second of two calls with one id an id of its own, and avoids ids the history holds', () => {
      const taken = new Set(['call_0']);
      const content = uniqueCallIds([{ type: 'text', text: 'Two at once.' }, call('call_0'), call('call_0'), call('call_1')], taken);
      assert.deepEqual(ids(content), ['call_0_2', 'call_0_3', 'call_1']);
      assert.deepEqual([...taken].sort(), ['call_0', 'call_0_2', 'call_0_3', 'call_1']);
    });

    it('rewrites ids outside ^[a-zA-Z0-9_-]+$ (Kimi-K2 parsers, no id at all) and leaves good ones, the same array when nothing changes', () => {
      assert.deepEqual(ids(uniqueCallIds([call('functions.bash:0'), call(''), call('x'.repeat(80))], new Set())), [
        'functions_bash_0',
        'call',
        'x'.repeat(56),
      ]);
      const good = [call('toolu_01'), call('call_abc-1')];
      assert.equal(uniqueCallIds(good, new Set()), good);
    });
  });

  describe('as a history is sent', () => {
    it('renames calls and their results together: a stored history with one id twice keeps both results, each with its call', () => {
      const history: Message[] = [
        { role: 'user', content: [{ type: 'text', text: 'List and count.' }] },
        { role: 'assistant', content: [call('functions.bash:0'), call('functions.bash:0')] },
        { role: 'tool_results', results: [result('functions.bash:0', 'a b'), result('functions.bash:0', '2')] },
        { role: 'assistant', content: [call('functions.bash:0')] },
        { role: 'tool_results', results: [result('functions.bash:0', 'done')] },
      ];
      const sent = sendableCallIds(history);
      const calls = sent.flatMap((message) => (message.role === 'assistant' ? ids(message.content) : []));
      const results = sent.flatMap((message) => (message.role === 'tool_results' ? message.results.map((r) => [r.callId, r.content]) : []));
      assert.deepEqual(calls, ['functions_bash_0', 'functions_bash_0_2', 'functions_bash_0_3']);
      assert.deepEqual(results, [
        ['functions_bash_0', 'a b'],
        ['functions_bash_0_2', '2'],
        ['functions_bash_0_3', 'done'],
      ]);
      assert.ok(calls.every((id) => /^[a-zA-Z0-9_-]{1,64}$/.test(id)));
    });

    it('sends a history Crow made itself as it is (the same array, so the prompt cache holds), and is the same each time', () => {
      const history: Message[] = [
        { role: 'assistant', content: [call('toolu_1')] },
        { role: 'tool_results', results: [result('toolu_1', 'ok')] },
      ];
      assert.equal(sendableCallIds(history), history);
      const odd: Message[] = [{ role: 'assistant', content: [call('a.b')] }, { role: 'tool_results', results: [result('a.b', 'ok')] }];
      assert.deepEqual(sendableCallIds(odd), sendableCallIds(odd));
    });
  });
});
