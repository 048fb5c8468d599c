import assert from 'node:assert/strict';
import { PromptRegistry } from '../../../src/config/prompts';
import { type CompactionSettings, ContextWindowKeeper } from '../../../src/engine/compaction';
import type { LlmRequest } from '../../../src/llm/types';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { echoTool, eventsOfType, runTurn } from '../../support/engine';
import type { HistoryEntry } from '../../../src/session/history';
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
  return addRounds(new InternalSession('primary'), 0, rounds);
}

/** Appends exchanges `first` to `first + count - 1`, each with a big tool output. */
function addRounds(session: InternalSession, first: number, count: number): InternalSession {
  for (let i = first; i < first + count; i++) {
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

  /** A session summarised once (rounds 0-29) and 40 rounds longer since: what the model reads is the summary and rounds 30-69. */
  function summarisedOnce(): { entries: HistoryEntry[]; cut: number } {
    const session = longSession(40);
    const cut = session.entries.findIndex((entry) => entry.kind === 'user' && JSON.stringify(entry).includes('Task 30:'));
    session.append({ kind: 'compaction', upTo: cut, note: 'Tasks 0-29 done.', at: 0 });
    addRounds(session, 40, 30);
    return { entries: [...session.entries], cut };
  }
  /** The session as resumed after that compaction: it holds the entries from the cut on, and notes any read of those before. */
  function resumedAfterCompaction(): { session: InternalSession; entries: HistoryEntry[]; cut: number; readEarlier: () => boolean } {
    const { entries, cut } = summarisedOnce();
    let read = false;
    const session = new InternalSession('primary', {
      history: entries.slice(cut),
      earlier: { count: cut, load: () => ((read = true), entries.slice(0, cut)) },
    });
    return { session, entries, cut, readEarlier: () => read };
  }
  const size = (entries: readonly HistoryEntry[]): number => entries.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0);

  it('cuts a later compaction by shares of what the model reads, not of the whole history (summarised parts included)', async () => {
    const { entries, cut } = summarisedOnce();
    const session = new InternalSession('primary', { history: entries });
    const provider = new ScriptedProvider([{ text: 'Tasks 30-60 done.' }, { text: 'Continuing.' }]);
    await runTurn(provider, [echoTool], 'Next task.', { session, compaction: settings(4_000) });
    const latest = session.findLast('compaction');
    assert.ok(latest && latest.upTo > cut, 'summarised again');
    const kept = size(session.entries.slice(latest.upTo));
    const read = size(session.entries.slice(cut));
    // The newest quarter of what the model read stays as it is; a quarter of the whole history would be half of it here.
    assert.ok(kept <= read * 0.35, `kept ${kept} of ${read} characters the model read`);
  });

  it('compacts a resumed session from the part it holds, never reading the summarised history', async () => {
    const { session, cut, readEarlier } = resumedAfterCompaction();
    const provider = new ScriptedProvider([{ text: 'Tasks 30-60 done.' }, { text: 'Continuing.' }]);
    const { events } = await runTurn(provider, [echoTool], 'Next task.', { session, compaction: settings(4_000) });
    assert.match(eventsOfType(events, 'compaction').at(-1)!.how, /summarised \d+ earlier entries/);
    assert.equal(readEarlier(), false, 'the entries before the last compaction were not read');
    const summaryRequest = JSON.stringify(provider.requests[0]!.messages);
    assert.match(summaryRequest, /Tasks 0-29 done\./, 'the summary call reads the earlier summary');
    assert.doesNotMatch(summaryRequest, /Task 0: look at file 0\./);
    assert.ok(session.findLast('compaction')!.upTo > cut, 'the cut is an index into the whole history');
  });

  it('compacts a resumed session on request (/compact) from the part it holds, too', async () => {
    const { session, entries, readEarlier } = resumedAfterCompaction();
    const provider = new ScriptedProvider([{ text: 'Everything so far: tasks 0-69 done.' }]);
    const build = (): LlmRequest => ({ system: 'You are a test agent.', tools: [], messages: session.toMessages() });
    const scope = { agent: 'primary', provider, session, emit: () => undefined, span: undefined, signal: new AbortController().signal };
    const outcome = await new ContextWindowKeeper(settings(100_000)).compactNow(scope, build);
    assert.deepEqual(outcome, { compacted: true });
    assert.equal(readEarlier(), false, 'the entries before the last compaction were not read');
    assert.equal(session.findLast('compaction')!.upTo, entries.length);
    assert.match(JSON.stringify(provider.requests[0]!.messages), /Tasks 0-29 done\./);
  });
});
