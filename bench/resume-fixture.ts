/**
 * A long session as Crow itself leaves it, for bench/resume.ts: an agent
 * working turn after turn, stored through the SessionStore as `crow run`
 * stores it (history, shown events, spans, totals), its history kept inside
 * the context window by Crow's own ContextWindowKeeper before each model
 * call, so every compaction keeps the live tail Crow keeps (the newest
 * quarter of what the model reads) and the session ends wherever its last
 * turn ended, with whatever tail has grown since the last compaction.
 */
import { compactionSettings } from '../src/agents/definition-agent';
import { PromptRegistry } from '../src/config/prompts';
import { ContextWindowKeeper, DEFAULT_COMPACTION_THRESHOLD } from '../src/engine/compaction';
import { estimateTokens } from '../src/llm/token-estimate';
import type { LlmRequest, ToolSpec } from '../src/llm/types';
import { ScriptedProvider } from '../src/llm/scripted';
import { ACPSession } from '../src/session/acp-session';
import type { HistoryEntry } from '../src/session/history';
import type { SessionStore } from '../src/session/session-store';
import { historyEntry } from './sessions';

/** The base agent `crow run` gives the build agent's primary role. */
export const PRIMARY = 'builder';
/** What one prompt of historyEntry's (40 entries) adds to a request, at most. */
const TURN_TOKENS = 6_000;

export interface StoredSession {
  id: string;
  /** Entries in the history. */
  entries: number;
  /** Compactions Crow made while the session grew. */
  compactions: number;
  /** Entries after the last compaction's cut: what the model still reads. */
  tail: number;
  /** Bytes of the history file the model's view starts at, and of the whole file. */
  tailBytes: number;
  historyBytes: number;
}

/**
 * Stores a session of about `entries` history entries of agent work, each
 * prompt's first model call fitted to a `window`-token context window by
 * Crow's own compaction (the summaries written by a scripted model). It
 * ends after a prompt whose next call would not compact: 'any', the first
 * from `entries` on; 'long-tail', the last before the next compaction, so
 * the model's view is as long as the window lets it be.
 */
export async function storeCompactedSession(
  store: SessionStore,
  cwd: string,
  options: { entries: number; window: number; stopWhere: 'any' | 'long-tail'; system: string; tools: ToolSpec[] },
): Promise<StoredSession> {
  const session = new ACPSession({ cwd, agentName: 'build' });
  const handle = store.attach(session);
  const internal = session.sessionFor('primary', PRIMARY);
  const summaries = new ScriptedProvider([], 'claude-sonnet-4-6');
  const keeper = new ContextWindowKeeper(compactionSettings(options.window, new PromptRegistry()));
  const build = (): LlmRequest => ({ system: options.system, messages: internal.toMessages(), tools: options.tools });
  const signal = new AbortController().signal;
  let compactions = 0;
  const scope = {
    agent: PRIMARY,
    provider: summaries,
    session: internal,
    span: undefined,
    signal,
    emit: (event: Parameters<ACPSession['events']['record']>[0]) => {
      if (event.type === 'compaction') compactions += 1;
      session.events.record(event);
    },
  };
  const limit = options.window * DEFAULT_COMPACTION_THRESHOLD;
  // What the next request is estimated at, at most: its estimate when last fitted, plus each entry since at its size on disk (larger than what it adds to the request).
  let bound = 0;
  let prompt: ReturnType<ACPSession['trace']['startTrace']> | undefined;
  let i = 0;
  for (; ; i++) {
    const entry = unsigned(historyEntry(i));
    if (entry.kind === 'user') {
      if (i >= options.entries && (options.stopWhere === 'any' || bound + 2 * TURN_TOKENS > limit)) {
        bound = estimateTokens(build());
        // The next call (the resumed prompt's) must not compact: a turn's room is left.
        const room = limit - bound;
        if (room >= TURN_TOKENS && (options.stopWhere === 'any' || room < 2 * TURN_TOKENS)) break;
      }
      prompt?.end('ok');
      prompt = session.trace.startTrace('prompt', 'prompt', { agent: PRIMARY, attributes: { 'crow.cost_usd': 0.01 } });
      session.events.record({ type: 'prompt_start', agent: 'build', primary: PRIMARY, content: entry.content } as never);
    }
    internal.append(entry);
    bound += Math.ceil(JSON.stringify(entry).length / 4);
    // Before the first model call of each prompt, as the agent's turn makes it: fitted to the window first (a call well inside it is not, as fit would leave it).
    if (entry.kind === 'user' && bound > limit * 0.95) {
      summaries.enqueue(summaryOf(i));
      await keeper.fit(scope, build);
      summaries.requests.length = 0;
      bound = estimateTokens(build());
    }
    record(session, prompt!, internal.id, entry, i);
  }
  prompt?.end('ok');
  session.events.flush();
  handle.close();
  return describe(session.id, compactions, internal.entries);
}

/**
 * The entry without a thinking signature: the strict fake accepts only the
 * signatures it issued itself (as Anthropic does), and sends back no thinking
 * without one, as Crow sends none.
 */
function unsigned(entry: HistoryEntry): HistoryEntry {
  if (entry.kind !== 'thinking') return entry;
  return { kind: 'thinking', text: entry.text, at: entry.at };
}

/** What a model writes when asked to summarise, about 2 KB. */
function summaryOf(i: number): { text: string } {
  const line = `- Fixed the add test in module ${i % 97}; the next failing test is in module ${(i + 1) % 97}.`;
  return { text: `Summary of the work up to entry ${i}:\n${Array.from({ length: 24 }, () => line).join('\n')}` };
}

/** The spans and shown events a live run leaves for `entry`. */
function record(session: ACPSession, prompt: NonNullable<ReturnType<ACPSession['trace']['startTrace']>>, internalId: string, entry: HistoryEntry, i: number): void {
  if (entry.kind === 'tool_call') {
    const call = prompt.child('llm_call', 'chat claude-sonnet-4-6', {
      agent: PRIMARY,
      sessionId: internalId,
      attributes: { 'gen_ai.usage.input_tokens': 12_000 + (i % 5_000), 'gen_ai.usage.output_tokens': 80, 'gen_ai.usage.cache_read.input_tokens': 11_000, 'crow.cost_usd': 0.004 },
    });
    call.end('ok');
    session.events.record({ type: 'tool_call_start', agent: PRIMARY, callId: entry.id, tool: entry.name, kind: 'read', summary: entry.arguments } as never);
  } else if (entry.kind === 'tool_result') {
    const tool = prompt.child('tool', `execute_tool ${entry.name}`, { agent: PRIMARY, attributes: { 'gen_ai.tool.call.id': entry.callId, 'crow.tool.output': entry.output } });
    tool.end('ok');
    session.events.record({ type: 'tool_call_end', agent: PRIMARY, callId: entry.callId, result: { status: 'success', output: entry.output } } as never);
  } else if (entry.kind === 'assistant_text') {
    session.events.record({ type: 'text_delta', agent: PRIMARY, delta: entry.text } as never);
  } else if (entry.kind === 'thinking') {
    session.events.record({ type: 'thinking_delta', agent: PRIMARY, delta: entry.text } as never);
  }
}

function describe(id: string, compactions: number, history: readonly HistoryEntry[]): StoredSession {
  const cut = history.findLast((entry) => entry.kind === 'compaction');
  const from = cut?.kind === 'compaction' ? cut.upTo : 0;
  const sizes = history.map((entry) => Buffer.byteLength(JSON.stringify(entry)) + 1);
  const historyBytes = sizes.reduce((a, b) => a + b, 0);
  const tailBytes = sizes.slice(from).reduce((a, b) => a + b, 0);
  return { id, entries: history.length, compactions, tail: history.length - from, tailBytes, historyBytes };
}
