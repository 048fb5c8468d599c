/**
 * Sessions. Through the binary (the rows with a goal): `crow sessions list`
 * (and `--json`) in a folder that owns 40 sessions and in one that owns
 * none, and the start-up of `crow run --continue` (spawn → the model's
 * request), with 5,000 stored sessions against 50, cold and warm, side by
 * side (target: ratio ≤ 1.2; the list reads the folder's sessions through
 * the index of sessions by folder, not every stored one). Then, measured
 * once, the first list after an upgrade (the index built from every
 * session) and `--all` (prints every session, so it grows with the store).
 *
 * Diagnostic (in-process, no goal): what resuming a long session costs
 * before the first model call — SessionStore.load plus building both
 * providers' requests from the history — for 10,000 and 20,000 entries,
 * and append throughput through the store, with and without fsync.
 * Build first. Prints figures; never fails on time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toAnthropicParams } from '../src/llm/anthropic-format';
import { toOpenAIParams } from '../src/llm/openai-format';
import type { LlmRequest, ToolSpec } from '../src/llm/types';
import { ACPSession } from '../src/session/acp-session';
import type { HistoryEntry } from '../src/session/history';
import { SessionStore } from '../src/session/session-store';
import { fmt, median } from './common';
import { reportListing } from './sessions-list';

/** A session of SIZES[0] entries, then one twice as long. */
const SIZES = [10_000, 20_000];
const TARGET_MS = 300;
const RUNS = 15;
const APPEND_RUNS = 3;
/** How long each append run writes; a time budget keeps slow disks from stalling the run. */
const APPEND_BUDGET_MS = 1_000;
const AGENT = 'builder';

/** Milliseconds spent in each phase of one load-and-build. */
interface LoadTimes {
  load: number;
  toMessages: number;
  anthropic: number;
  openai: number;
}

export async function sessionsBenchmark(): Promise<void> {
  await reportListing();
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-sessions-'));
  try {
    reportLoadAndBuild(new SessionStore({ dataHome: join(base, 'data') }), base);
    reportAppendRates(base);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function reportLoadAndBuild(store: SessionStore, cwd: string): void {
  const figures = SIZES.map((size) => {
    const id = writeSession(store, cwd, size);
    const runs = Array.from({ length: RUNS }, () => loadAndBuild(store, id));
    return { size, runs, ms: median(runs.map(total)) };
  });
  console.log(`Sessions (diagnostic, in-process): load a stored session and build the Anthropic and OpenAI requests from it, median of ${RUNS}, ms`);
  for (const { size, runs, ms } of figures) {
    const phase = (key: keyof LoadTimes): string => median(runs.map((r) => r[key])).toFixed(0);
    console.log(
      `  ${fmt(size)} entries: ${ms.toFixed(0)} ms (load ${phase('load')} · toMessages ${phase('toMessages')}` +
        ` · Anthropic ${phase('anthropic')} · OpenAI ${phase('openai')})`,
    );
  }
  const [small, large] = figures;
  const met = small!.ms < TARGET_MS ? 'met' : 'NOT met';
  const ratio = (large!.ms / small!.ms).toFixed(2);
  console.log(`  ${fmt(small!.size)} entries under ${TARGET_MS} ms: ${met}; twice the entries: ${ratio}× the time (about 2 = linear)`);
}

function reportAppendRates(base: string): void {
  const rate = (fsync: boolean): number => {
    const store = new SessionStore({ dataHome: join(base, 'append'), fsync });
    return median(Array.from({ length: APPEND_RUNS }, () => appendRate(store, base)));
  };
  console.log(`  append through the store, entries/s (median of ${APPEND_RUNS} runs of ${APPEND_BUDGET_MS} ms, in ${tmpdir()}):`);
  console.log(`  write(2) per entry ${fmt(rate(false))} · with fsync ${fmt(rate(true))}`);
}

/** Stores a session of `size` entries through SessionStore.attach; returns its id. */
function writeSession(store: SessionStore, cwd: string, size: number): string {
  const session = new ACPSession({ cwd, agentName: 'bench' });
  const handle = store.attach(session);
  const internal = session.sessionFor('primary', AGENT);
  for (let i = 0; i < size; i++) internal.append(historyEntry(i));
  handle.close();
  return session.id;
}

function loadAndBuild(store: SessionStore, id: string): LoadTimes {
  let mark = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const elapsed = now - mark;
    mark = now;
    return elapsed;
  };
  const session = store.load(id);
  const load = lap();
  const messages = session.sessionFor('primary', AGENT).toMessages();
  const toMessages = lap();
  const request: LlmRequest = { system: SYSTEM_PROMPT, messages, tools: TOOLS };
  toAnthropicParams(request, { model: 'bench' });
  const anthropic = lap();
  toOpenAIParams(request, { model: 'bench', flavor: 'openai' });
  const openai = lap();
  return { load, toMessages, anthropic, openai };
}

function total(times: LoadTimes): number {
  return times.load + times.toMessages + times.anthropic + times.openai;
}

/** Appends entries to a fresh stored session for APPEND_BUDGET_MS; entries per second. */
function appendRate(store: SessionStore, cwd: string): number {
  const session = new ACPSession({ cwd, agentName: 'bench' });
  const handle = store.attach(session);
  const internal = session.sessionFor('primary', AGENT);
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < APPEND_BUDGET_MS) internal.append(historyEntry(count++));
  const seconds = (performance.now() - start) / 1000;
  handle.close();
  return count / seconds;
}

/**
 * Entry `i` of an endless, realistic agent history: a user message opens
 * every turn of 40 entries; then the agent thinks, says what it does, calls
 * a tool and reads its result (a few hundred bytes), step after step.
 */
export function historyEntry(i: number): HistoryEntry {
  const at = 1_700_000_000_000 + i * 1_000;
  const position = i % 40;
  if (position === 0) return { kind: 'user', content: [{ type: 'text', text: `Task ${i / 40}: the add test fails, fix it.` }], at };
  const step = Math.floor((position - 1) / 3);
  const callId = `call_${Math.floor(i / 40)}_${step}`;
  const tool = TOOL_NAMES[step % TOOL_NAMES.length]!;
  const path = `src/module${i % 97}.ts`;
  switch ((position - 1) % 3) {
    case 0:
      return step === 0
        ? { kind: 'thinking', text: `Step ${i}: read the failing code first.`, signature: 'c2lnbmF0dXJl'.repeat(8), at }
        : { kind: 'assistant_text', text: `Now I run ${tool} on ${path} to see what happens.`, at };
    case 1:
      return { kind: 'tool_call', id: callId, name: tool, arguments: JSON.stringify({ path, pattern: 'add' }), at };
    default:
      return {
        kind: 'tool_result',
        callId,
        name: tool,
        status: 'success',
        output: toolOutput(i),
        metadata: { filesModified: [], durationMs: 12, extra: {} },
        at,
      };
  }
}

/** 200 to 600 bytes of source-like text. */
function toolOutput(i: number): string {
  const lines = 4 + (i % 9);
  const line = (n: number): string => `${n + 1}\texport const value${n} = add(${i}, ${n}); // module ${i % 97}`;
  return Array.from({ length: lines }, (_, n) => line(n)).join('\n');
}

const TOOL_NAMES = ['read_file', 'grep', 'bash', 'edit_file'];

const TOOLS: ToolSpec[] = TOOL_NAMES.map((name) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, pattern: { type: 'string' } }, required: ['path'] },
}));

const SYSTEM_PROMPT = 'You are a coding agent. Work in small, verified steps.';
