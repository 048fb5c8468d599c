import assert from 'node:assert/strict';
import { PromptRegistry } from '../../../src/config/prompts';
import type { CompactionSettings } from '../../../src/engine/compaction';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { echoTool, eventsOfType, runTurn } from '../../support/engine';
import { InternalSession } from '../../../src/session/internal-session';

const prompts = new PromptRegistry();
const settings = (contextWindow: number): CompactionSettings => ({
  contextWindow,
  prompts: {
    instructions: () => prompts.render('compaction', {}),
    note: (summary) => prompts.render('compaction-note', { summary }).trim(),
  },
});

/** A session with `rounds` earlier exchanges, each with a big tool output. */
function longSession(rounds: number): InternalSession {
  const session = new InternalSession('primary');
  for (let i = 0; i < rounds; i++) {
    session.addUserMessage(`Task ${i}: look at file ${i}.`);
    session.append({ kind: 'tool_call', id: `c${i}`, name: 'echo', arguments: `{"text":"${i}"}`, at: 0 });
    session.append({
      kind: 'tool_result',
      callId: `c${i}`,
      name: 'echo',
      status: 'success',
      output: `${'x'.repeat(2_000)} (output ${i})`,
      metadata: { filesModified: [], durationMs: 1, extra: {} },
      at: 0,
    });
    session.append({ kind: 'assistant_text', text: `Done with task ${i}.`, at: 0 });
  }
  return session;
}

describe('compaction', () => {
  it('leaves a session that fits alone', async () => {
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    const { events } = await runTurn(provider, [echoTool], 'Hi', { compaction: settings(100_000) });
    assert.equal(eventsOfType(events, 'compaction').length, 0);
  });

  it('trims old tool outputs first, keeping the session and its full history', async () => {
    const session = longSession(10);
    const before = session.entries.length;
    const provider = new ScriptedProvider([{ text: 'Continuing.' }]);
    const { events } = await runTurn(provider, [echoTool], 'Next task.', { session, compaction: settings(5_000) });

    const [compaction] = eventsOfType(events, 'compaction');
    assert.match(compaction!.how, /trimmed old tool outputs/);
    assert.ok(compaction!.tokensAfter < compaction!.tokensBefore);
    assert.equal(provider.requests.length, 1, 'no summary call was needed');
    const sent = JSON.stringify(provider.requests[0]!.messages);
    assert.match(sent, /Output trimmed to save context/);
    assert.match(sent, /output 9/, 'the newest outputs are intact');
    assert.ok(session.entries.length > before && session.entries.some((e) => e.kind === 'tool_result' && e.output.includes('output 0')), 'history on disk keeps everything');
  });

  it('summarises older history with the model when trimming is not enough', async () => {
    const session = longSession(40);
    const provider = new ScriptedProvider([
      (request) => {
        // The agent's own request over the older history, asked not to call tools: valid with its tool calls, and its prefix cached.
        assert.equal(request.toolChoice, 'none');
        assert.deepEqual(request.tools.map((tool) => tool.name), ['echo']);
        assert.equal(request.system, 'You are a test agent.');
        assert.match(JSON.stringify(request.messages.at(-1)), /this session is being compacted/);
        assert.ok(request.messages.some((message) => message.role === 'tool_results'), 'the older tool calls are sent as they are');
        return { text: 'Tasks 0-29 done: looked at files 0-29.' };
      },
      { text: 'Continuing after compaction.' },
    ]);
    const { events, result } = await runTurn(provider, [echoTool], 'Next task.', { session, compaction: settings(4_000) });

    assert.equal(result.stopReason, 'answered');
    assert.match(eventsOfType(events, 'compaction').at(-1)!.how, /summarised \d+ earlier entries/);
    const messages = provider.requests[1]!.messages;
    assert.equal(messages[0]!.role, 'user');
    assert.match(JSON.stringify(messages[0]), /compacted to save context.*Tasks 0-29 done/);
    assert.doesNotMatch(JSON.stringify(messages), /Task 0: look at file 0\./, 'the summarised part is not resent');
    assert.match(JSON.stringify(messages), /Next task\./);
    const results = messages.filter((m) => m.role === 'tool_results');
    const calls = messages.flatMap((m) => (m.role === 'assistant' ? m.content.filter((b) => b.type === 'tool_call') : []));
    assert.equal(results.flatMap((m) => (m.role === 'tool_results' ? m.results : [])).length, calls.length, 'no call lost its result');
  });
});
