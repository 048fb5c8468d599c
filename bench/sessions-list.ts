/**
 * Listing a folder's sessions through the binary, as a person waits for it:
 * `crow sessions list` (and `--json`) in a folder that owns BUSY sessions
 * and in one that owns none, and `crow run --continue` from spawn to the
 * model's request (it finds the folder's newest session through the same
 * list), with LARGE stored sessions against SMALL (the folder's BUSY the
 * same in both, the others spread over other folders), cold and warm.
 *
 * Cold: a new process, the first of its kind since another session was
 * stored by `crow run` in another folder (as a person's other runs and
 * ACP sessions store theirs). Warm: the same command again. The page
 * cache and the launcher's code cache are warm in both (a person's
 * machine after the first run); nothing the command does is prepared
 * before the clock. One more row, with no goal, times the first list
 * after a session was put in by an older Crow or by hand (a copy beside
 * the others, which no Crow filed): the index catches up with the
 * sessions folder first, reading all of it. A diagnostic line
 * (in-process, no goal) gives SessionStore.list's own share, which the
 * process start hides on a busy machine.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ACPSession } from '../src/session/acp-session';
import { SessionStore } from '../src/session/session-store';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { median, personEnv } from './common';
import { fillStore, realSession, storeCopy } from './stored-sessions';

const CROW = resolve(__dirname, '../dist/crow.js');
const SMALL = { total: 50, folders: 5 };
const LARGE = { total: 5_000, folders: 200 };
/** Sessions of the folder that owns many, in both stores. */
const BUSY = 40;
const ROUNDS = 7;
/** How long the sessions folder must stand still before the index trusts its stamp (SETTLE_MS in src/session/folder-index.ts), and a little more. */
const SETTLE_MS = 2_200;
const GOAL = 1.2;
const MODEL = ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5'];

/** One side: a data home with its store, and the folders a command runs in. */
interface Side {
  label: string;
  env: NodeJS.ProcessEnv;
  sessions: string;
  others: string[];
}

/** A command as a person runs it, and what its clock stops at. */
interface Command {
  label: string;
  args: string[];
  cwd: (side: Side) => string;
  /** Ms from spawn to what the person waits for. */
  time: (side: Side, args: string[], cwd: string) => Promise<number>;
  /** How the session stored before the cold run got there: by `crow run` (the rows with a goal), or put in as a copy that no Crow filed (no goal). */
  storedBy: 'crow' | 'copy';
}

export async function reportListing(): Promise<void> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-bench-list-')));
  const server = await FakeLlmServer.start();
  try {
    const busy = folder(base, 'busy');
    const empty = folder(base, 'empty');
    const cache = join(base, 'cache');
    const envOf = (home: string) => personEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, XDG_CACHE_HOME: cache });
    const template = await realSession(server, folder(base, 'template'), envOf(join(base, 'template-home')), join(base, 'template-home', 'data', 'crow-agent', 'sessions'));
    server.respondWith('anthropic', () => ({ blocks: [{ type: 'text', text: 'Keep the offset and compare in UTC.' }], latencyMs: 20 }));
    const sides = [SMALL, LARGE].map(({ total, folders }): Side => {
      const home = join(base, `home-${total}`);
      const sessions = join(home, 'data', 'crow-agent', 'sessions');
      const others = Array.from({ length: folders }, (_, i) => folder(base, `projects/p${i}`));
      fillStore(sessions, template, total, BUSY, busy, others);
      return { label: total.toLocaleString('en-US'), env: envOf(home), sessions, others };
    });
    const [small, large] = sides as [Side, Side];
    const sizes = sessionSizes(template);
    console.log(
      `Sessions list through the binary: ${large.label} stored sessions vs ${small.label}, ${BUSY} of them this folder's in both, the others spread over ` +
        `${LARGE.folders} / ${SMALL.folders} other folders; each a copy of one real crow run session (${sizes}). Median of ${ROUNDS} [min–max], ms.`,
    );
    console.log('  cold: a new process, the first since `crow run` stored another session in another folder; warm: the same again; page and code caches warm.');
    const upgrade: number[] = [];
    for (const side of sides) upgrade.push(await wall(side, ['sessions', 'list'], busy));
    const commands: Command[] = [
      { label: `crow sessions list, a folder that owns ${BUSY}`, args: ['sessions', 'list'], cwd: () => busy, time: wall, storedBy: 'crow' },
      { label: `crow sessions list --json, same folder`, args: ['sessions', 'list', '--json'], cwd: () => busy, time: wall, storedBy: 'crow' },
      { label: 'crow sessions list, a folder that owns none', args: ['sessions', 'list'], cwd: () => empty, time: wall, storedBy: 'crow' },
      { label: 'crow run --continue, spawn → model request', args: ['run', 'And the tests?', '--continue', ...MODEL], cwd: () => busy, time: (side, args, cwd) => toRequest(server, side, args, cwd), storedBy: 'crow' },
      { label: `crow sessions list, a folder that owns ${BUSY}, after a copy no Crow filed (catch-up; no goal)`, args: ['sessions', 'list'], cwd: () => busy, time: wall, storedBy: 'copy' },
    ];
    for (const command of commands) for (const side of sides) await command.time(side, command.args, command.cwd(side));
    const figures = commands.map(() => ({ cold: [[], []] as number[][], warm: [[], []] as number[][] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [c, command] of commands.entries()) {
        for (const side of sides) {
          const other = side.others[round % side.others.length]!;
          if (command.storedBy === 'copy') storeCopy(side.sessions, template, other, 'One more', Date.now());
          else await wall(side, ['run', 'One more', '--no-undo', ...MODEL], other);
        }
        await new Promise((done) => setTimeout(done, SETTLE_MS));
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const s of order) figures[c]!.cold[s]!.push(await command.time(sides[s]!, command.args, command.cwd(sides[s]!)));
        for (const s of order) figures[c]!.warm[s]!.push(await command.time(sides[s]!, command.args, command.cwd(sides[s]!)));
      }
    }
    for (const [c, command] of commands.entries()) {
      const { cold, warm } = figures[c]!;
      console.log(`  ${command.label}: cold ${pair(cold, small, large)} · warm ${pair(warm, small, large)}`);
    }
    console.log(`  the first list after an upgrade (the index built from every session, once): ${small.label}: ${upgrade[0]!.toFixed(0)} ms, ${large.label}: ${upgrade[1]!.toFixed(0)} ms`);
    await reportStoreCost(sides, template, busy, empty);
    const all: number[][] = [[], []];
    for (let run = 0; run < 3; run++) for (const s of [0, 1]) all[s]!.push(await wall(sides[s]!, ['sessions', 'list', '--all'], busy));
    console.log(`  crow sessions list --all (prints every session: grows with the store by its nature), warm, median of 3: ${pair(all, small, large).replace(/, ratio.*/, '')}`);
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Diagnostic (in-process, no goal): what SessionStore.list itself costs in
 * each store, for the folder that owns many and for one that owns none,
 * right after Crow stored another session (the store kept the index), right
 * after a copy no Crow filed (the index catches up) and again (its stamp
 * holds), without the process start that dominates the rows above.
 */
async function reportStoreCost(sides: readonly Side[], template: string, busy: string, empty: string): Promise<void> {
  const runs = sides.map(() => ({ kept: [] as number[], caughtUp: [] as number[], held: [] as number[], none: [] as number[] }));
  const storeOf = (side: Side): SessionStore => new SessionStore({ dataHome: join(side.sessions, '..') });
  for (let round = 0; round < ROUNDS; round++) {
    const other = (side: Side): string => side.others[round % side.others.length]!;
    // Stored as crow run stores one: the store keeps the index up to date.
    for (const side of sides) storeOf(side).attach(new ACPSession({ cwd: other(side), agentName: 'bench' })).close();
    for (const [s, side] of sides.entries()) runs[s]!.kept.push(timed(() => storeOf(side).list({ cwd: busy })));
    for (const side of sides) storeCopy(side.sessions, template, other(side), 'One more', Date.now());
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    for (const [s, side] of sides.entries()) {
      const store = storeOf(side);
      runs[s]!.caughtUp.push(timed(() => store.list({ cwd: busy })));
      runs[s]!.held.push(timed(() => store.list({ cwd: busy })));
      runs[s]!.none.push(timed(() => store.list({ cwd: empty })));
    }
  }
  const figure = (key: 'kept' | 'caughtUp' | 'held' | 'none'): string => sides.map((side, s) => `${side.label}: ${median(runs[s]![key]).toFixed(1)}`).join(', ');
  console.log(
    `  diagnostic, in-process, SessionStore.list, median of ${ROUNDS}, ms: the folder that owns ${BUSY}, after a session stored by Crow ${figure('kept')}; ` +
      `after a copy no Crow filed (catching up) ${figure('caughtUp')}; stamp held ${figure('held')}; a folder that owns none ${figure('none')}`,
  );
}

function timed(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

function folder(base: string, name: string): string {
  const path = join(base, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/** "50: 312 [300–340], 5,000: 330 [310–360], ratio 1.06 (goal ≤ 1.2)" */
function pair(runs: number[][], small: Side, large: Side): string {
  const [a, b] = runs.map(median) as [number, number];
  const spread = (values: number[]): string => `[${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}]`;
  return `${small.label}: ${a.toFixed(0)} ${spread(runs[0]!)}, ${large.label}: ${b.toFixed(0)} ${spread(runs[1]!)}, ratio ${(b / a).toFixed(2)} (goal ≤ ${GOAL})`;
}

/** The sizes of the template session's files, for the heading. */
function sessionSizes(template: string): string {
  const meta = JSON.parse(readFileSync(join(template, 'meta.json'), 'utf8')) as { internal: { id: string }[] };
  const kb = (file: string): string => `${(statSync(join(template, file)).size / 1024).toFixed(1)} kB`;
  const histories = meta.internal.map((internal) => kb(`${internal.id}.jsonl`)).join(' + ');
  return `meta.json ${kb('meta.json')}, history ${histories}, events ${kb('events.jsonl')}, trace ${kb('trace.jsonl')}`;
}

/** Ms from spawning `crow ARGS` in `cwd` to its exit, its output read whole. */
function wall(side: Side, args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CROW, ...args], { cwd, env: side.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(performance.now() - started) : fail(new Error(`crow ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

/** Ms from spawning `crow ARGS` in `cwd` to the model's request (the run is let finish before the next). */
async function toRequest(server: FakeLlmServer, side: Side, args: string[], cwd: string): Promise<number> {
  const seen = server.requests.length;
  const started = Date.now();
  await wall(side, args, cwd);
  const request = server.requests[seen];
  if (!request) throw new Error(`crow ${args.join(' ')} made no model request`);
  return request.receivedAt - started;
}
