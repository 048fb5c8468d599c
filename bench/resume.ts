/**
 * Resuming a long session Crow made itself, timed as the person waits:
 * `crow run --continue "next"` in the folder of a stored session of about
 * 100,000 history entries, from the spawn to the end of the answer (the
 * fake model answers about 1 s after the request reaches it), against a
 * fresh `crow run "next"` in the same folder, alternating. Goal ≤ 1.3×.
 *
 * Two sessions, both grown by Crow's own compaction (see resume-fixture.ts):
 * one in a 200k-token window, which ends with the live tail the last
 * compaction kept and the turns since; and one in a 1M-token window that
 * ends just before its next compaction, so the model reads as long a tail
 * as the window holds. Cold: a new process with no code cache, and the
 * session files as Crow left them, out of the page cache. Warm: the same
 * again at once (the person's second try). Also the time to the model's
 * first request, which is how long resuming keeps the model waiting
 * (the answer time adds the model's own second to both sides).
 *
 * Build first. Prints medians and spread; never fails on time. The machine
 * must be quiet for final figures (npm run build && npx tsx bench/run.ts resume).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ToolSpec } from '../src/llm/types';
import { SessionStore } from '../src/session/session-store';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { median, personEnv } from './common';
import { type StoredSession, storeCompactedSession } from './resume-fixture';

const CROW = resolve(__dirname, '../dist/crow.js');
const ENTRIES = 100_000;
const RUNS = 5;
/** How long the fake model takes to answer once the request reached it. */
const ANSWER_MS = 1_000;
const MODEL = 'claude-sonnet-4-6';
const GOAL = 1.3;

/** The sessions resumed: Crow's compaction in each window. */
const SESSIONS = [
  { label: '200k-token window, live tail kept', window: 200_000, stopWhere: 'any' as const },
  { label: '1M-token window, long tail since the last compaction', window: 1_000_000, stopWhere: 'long-tail' as const },
];

/** One side's times in ms: to the model's first request, and to the end of the answer. */
interface Times {
  request: number;
  answer: number;
}

export async function resumeBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-resume-'));
  const server = await FakeLlmServer.start({ contextWindow: 1_000_000 });
  // The answer starts ANSWER_MS after the request arrived, however long the fake took to check it.
  server.respondWith('anthropic', () => ({
    blocks: [{ type: 'text', text: 'Done.' }],
    chunkSize: 100,
    pauses: [{ before: 'Done.', until: delay(server.requests.at(-1)!.receivedAt + ANSWER_MS - Date.now()) }],
  }));
  console.log(`Resume a ${ENTRIES.toLocaleString('en-US')}-entry session Crow compacted itself: crow run --continue vs a fresh crow run in the same folder, model answering after ${ANSWER_MS} ms; median of ${RUNS} (min–max), ms`);
  try {
    for (const [n, kind] of SESSIONS.entries()) {
      const place = join(base, `session-${n}`);
      const stored = await storeSession(place, kind.window, kind.stopWhere);
      const rounds = await measure(server, place, stored);
      report(kind.label, stored, rounds);
    }
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** The session stored in `place` (home, project folder, a pristine copy of its folder), as Crow leaves it. */
async function storeSession(place: string, window: number, stopWhere: 'any' | 'long-tail'): Promise<StoredSession> {
  const home = join(place, 'home');
  const env = personEnv(home);
  mkdirSync(join(env.XDG_CONFIG_HOME!, 'crow-agent'), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME!, 'crow-agent', 'config.toml'), `[providers.anthropic.models."${MODEL}"]\ncontext_window = ${window}\n`);
  mkdirSync(join(place, 'project'));
  const store = new SessionStore({ dataHome: join(env.XDG_DATA_HOME!, 'crow-agent') });
  const { system, tools } = await buildAgentRequest(place);
  const stored = await storeCompactedSession(store, join(place, 'project'), { entries: ENTRIES, window, stopWhere, system, tools });
  cpSync(join(store.root, stored.id), join(place, 'pristine'), { recursive: true });
  return stored;
}

/**
 * The system prompt and tools `crow run` sends in the bench's folder (its
 * first request, from a run of its own), so the stored session's requests
 * are the size the real agent's are.
 */
async function buildAgentRequest(place: string): Promise<{ system: string; tools: ToolSpec[] }> {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const home = join(place, 'probe');
    await crowRun(server, envFor(server, home, home), join(place, 'project'), []);
    const body = server.requestsFor('anthropic')[0]!.body as { system: { text: string }[]; tools: { name: string; description: string; input_schema: Record<string, unknown> }[] };
    return {
      system: body.system.map((block) => block.text).join('\n'),
      tools: body.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.input_schema })),
    };
  } finally {
    await server.close();
    rmSync(join(place, 'probe'), { recursive: true, force: true });
  }
}

interface Rounds {
  resumed: { cold: Times[]; warm: Times[] };
  fresh: { cold: Times[]; warm: Times[] };
}

/** RUNS rounds of cold and warm runs of both sides, the order alternating round by round. */
async function measure(server: FakeLlmServer, place: string, stored: StoredSession): Promise<Rounds> {
  const rounds: Rounds = { resumed: { cold: [], warm: [] }, fresh: { cold: [], warm: [] } };
  const folder = join(place, 'home', 'data', 'crow-agent', 'sessions');
  const project = join(place, 'project');
  for (let round = 0; round < RUNS; round++) {
    const resumed = async (): Promise<void> => {
      // Cold: the session as Crow left it (a previous run appended to it), none of its files in the page cache, no code cache.
      rmSync(join(folder, stored.id), { recursive: true, force: true });
      cpSync(join(place, 'pristine'), join(folder, stored.id), { recursive: true });
      evictFromPageCache(join(folder, stored.id));
      const env = envFor(server, join(place, 'home'), join(place, `cache-r${round}`));
      rounds.resumed.cold.push(await crowRun(server, env, project, ['--continue']));
      rounds.resumed.warm.push(await crowRun(server, env, project, ['--continue']));
    };
    const fresh = async (): Promise<void> => {
      const env = envFor(server, join(place, 'home'), join(place, `cache-f${round}`));
      rounds.fresh.cold.push(await crowRun(server, env, project, []));
      rounds.fresh.warm.push(await crowRun(server, env, project, []));
      // The fresh sessions go, so that --continue finds the long one.
      for (const id of readdirSync(folder)) if (id !== stored.id) rmSync(join(folder, id), { recursive: true, force: true });
    };
    if (round % 2 === 0) {
      await resumed();
      await fresh();
    } else {
      await fresh();
      await resumed();
    }
  }
  return rounds;
}

/** `crow run "next"` (with `extra`): ms to the model's first request and to the process's end. */
async function crowRun(server: FakeLlmServer, env: NodeJS.ProcessEnv, cwd: string, extra: string[]): Promise<Times> {
  const seen = server.requests.length;
  const started = Date.now();
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, [CROW, 'run', 'next', '--provider', 'anthropic', '--model', MODEL, ...extra], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (exit) => (exit === 0 ? done(exit) : fail(new Error(`crow run exited ${exit}: ${stderr}`))));
  });
  const answer = Date.now() - started;
  const requests = server.requests.slice(seen);
  if (code !== 0 || requests.length !== 1) throw new Error(`crow run made ${requests.length} model requests; the bench expects one (a compaction would be another)`);
  return { request: requests[0]!.receivedAt - started, answer };
}

/** A crow environment with config and data under `home` and its own code cache folder. */
function envFor(server: FakeLlmServer, home: string, cache: string): NodeJS.ProcessEnv {
  return personEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, XDG_CACHE_HOME: cache });
}

/** Drops the folder's files from the page cache (posix_fadvise DONTNEED, through dd), as after a restart. */
function evictFromPageCache(folder: string): void {
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    spawnSync('dd', [`if=${join(folder, name)}`, 'iflag=nocache', 'count=0', 'status=none']);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, Math.max(0, ms)));
}

function report(label: string, stored: StoredSession, rounds: Rounds): void {
  const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `  ${label}: ${stored.entries.toLocaleString('en-US')} entries (${mb(stored.historyBytes)} MB), ${stored.compactions} compactions by Crow, ` +
      `${stored.tail.toLocaleString('en-US')} entries (${mb(stored.tailBytes)} MB) since the last compaction's cut`,
  );
  for (const phase of ['cold', 'warm'] as const) {
    const line = (key: keyof Times): string => {
      const resumed = rounds.resumed[phase].map((t) => t[key]);
      const fresh = rounds.fresh[phase].map((t) => t[key]);
      return `${figure(resumed)} vs ${figure(fresh)} fresh, ${(median(resumed) / median(fresh)).toFixed(2)}×`;
    };
    const ratio = median(rounds.resumed[phase].map((t) => t.answer)) / median(rounds.fresh[phase].map((t) => t.answer));
    console.log(`    ${phase}: answer ${line('answer')} (goal ≤ ${GOAL}: ${ratio <= GOAL ? 'met' : 'NOT met'}) · first model request ${line('request')}`);
  }
}

function figure(values: number[]): string {
  return `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
}
