/**
 * Resuming a long session: spawn of `crow run --session ID` → the fake
 * model server gets the request, for a stored session of 100,000 history
 * entries (with its trace and shown events, about as a real session of
 * that length leaves them), against a fresh `crow run` in the same folder,
 * alternating (median ms and ratio; target ≤ 1.3: the cost so far is kept
 * as a running total, not summed from the trace). Build first. Prints
 * figures; never fails on time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dataHome } from '../src/config/paths';
import { ACPSession } from '../src/session/acp-session';
import { SessionStore } from '../src/session/session-store';
import { FakeLlmServer } from '../src/testing/fake-llm-server';
import { isolatedEnv } from '../test/support/isolated-env';
import { median } from './common';
import { historyEntry } from './sessions';

const CROW = resolve(__dirname, '../dist/crow.js');
const ENTRIES = 100_000;
const RUNS = 5;
const AGENT = 'builder';

export async function resumeBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-resume-'));
  const server = await FakeLlmServer.start();
  try {
    const home = join(base, 'home');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const store = new SessionStore({ dataHome: dataHome(env) });
    const id = storeLongSession(store, cwd, ENTRIES);
    const traceMb = statSync(store.traceFile(id)).size / 1024 / 1024;
    const resumed: number[] = [];
    const fresh: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      resumed.push(await firstRequest(server, cwd, env, ['--session', id]));
      fresh.push(await firstRequest(server, cwd, env, []));
    }
    const r = median(resumed);
    const f = median(fresh);
    console.log(
      `Resume a ${ENTRIES.toLocaleString('en-US')}-entry session (trace ${traceMb.toFixed(0)} MB), spawn → first model request, median of ${RUNS}: ` +
        `${r.toFixed(0)} ms vs ${f.toFixed(0)} ms fresh, ratio ${(r / f).toFixed(2)} (target ≤ 1.3)`,
    );
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** Ms from spawning `crow run hi` (with `extra` flags) to the model's first request. */
async function firstRequest(server: FakeLlmServer, cwd: string, env: NodeJS.ProcessEnv, extra: string[]): Promise<number> {
  server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
  const seen = server.requests.length;
  const started = Date.now();
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, [CROW, 'run', 'hi', '--provider', 'anthropic', '--model', 'claude-sonnet-4-5', ...extra], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done() : fail(new Error(`crow run exited ${code}: ${stderr}`))));
  });
  const first = server.requests[seen];
  if (!first) throw new Error('crow run made no model request');
  return first.receivedAt - started;
}

/**
 * A session as a long run leaves it: `entries` history entries, compacted
 * at the end, and for each turn of 40 the spans (prompt, a model call and a
 * tool span per step) and the shown events, written through the store.
 */
function storeLongSession(store: SessionStore, cwd: string, entries: number): string {
  const session = new ACPSession({ cwd, agentName: 'build' });
  const handle = store.attach(session);
  const internal = session.sessionFor('primary', AGENT);
  let prompt: ReturnType<ACPSession['trace']['startTrace']> | undefined;
  for (let i = 0; i < entries; i++) {
    const entry = historyEntry(i);
    internal.append(entry);
    if (entry.kind === 'user') {
      prompt?.end('ok');
      prompt = session.trace.startTrace('prompt', 'prompt', { agent: AGENT, attributes: { 'crow.cost_usd': 0.01 } });
      session.events.record({ type: 'user_message', agent: AGENT, text: entry.content.map((block) => ('text' in block ? block.text : '')).join('') } as never);
    } else if (entry.kind === 'tool_call') {
      const call = prompt!.child('llm_call', 'chat claude-sonnet-4-5', {
        agent: AGENT,
        sessionId: internal.id,
        attributes: { 'gen_ai.usage.input_tokens': 12_000 + i, 'gen_ai.usage.output_tokens': 80, 'gen_ai.usage.cache_read.input_tokens': 11_000, 'crow.cost_usd': 0.004 },
      });
      call.end('ok');
      session.events.record({ type: 'tool_call_start', agent: AGENT, callId: entry.id, name: entry.name, arguments: entry.arguments } as never);
    } else if (entry.kind === 'tool_result') {
      const tool = prompt!.child('tool', `execute_tool ${entry.name}`, { agent: AGENT, attributes: { 'gen_ai.tool.call.id': entry.callId, 'crow.tool.output': entry.output } });
      tool.end('ok');
      session.events.record({ type: 'tool_call_end', agent: AGENT, callId: entry.callId, status: 'success', output: entry.output } as never);
    } else if (entry.kind === 'assistant_text') {
      session.events.record({ type: 'text_delta', agent: AGENT, delta: entry.text } as never);
    }
  }
  prompt?.end('ok');
  // A session this long has been compacted: the model reads the summary, the rest stays for the trace and exports.
  internal.append({ kind: 'compaction', upTo: entries, note: 'Summary of the work so far: the add tests pass; module 12 is next.', at: Date.now() });
  session.events.flush();
  handle.close();
  return session.id;
}
