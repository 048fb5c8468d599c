/**
 * Undo on big repositories (generated git repositories of 100,000 and
 * 300,000 files, committed), through the binary as a person waits for it,
 * side by side with undo off, and each figure's 300k/100k ratio (flat in
 * the repository's size is the goal). The model answers as a real one
 * does: each answer streamed over about a second.
 *
 * - The first `bash` command of a prompt (`crow run`): how long the
 *   command takes, from its call to its result (the tool's own duration in
 *   `--json`), with undo against `--no-undo`, each run a new process:
 *   warm (the data folder of an earlier run and the keeper it left: every
 *   run after a folder's first), cold (a fresh data folder: the first run
 *   in a folder) and after the keeper stopped. Goal: undo adds ≤ 50 ms
 *   warm, and 300k/100k ≤ 1.2.
 * - The first command of each `crow acp` session: one agent, a session
 *   that runs a command, 15 s idle, then a new session whose first
 *   command is timed at the client (from the call's first update to its
 *   completion), against the same command again in that session. Goal:
 *   the first pays ≤ 50 ms more.
 * - The model's first request (spawn to request) and a whole prompt with
 *   one write_file, with undo against `--no-undo` (goals ≤ 1.2 and ≤ 1.05:
 *   undo's record runs beside the model, a file tool never waits for it),
 *   each run a new process in a folder Crow has recorded before; the
 *   prompt's run is also timed as the first in a folder (a fresh data
 *   folder), where the whole tree's first record runs beside the prompt on
 *   the machine's cores: printed, with no goal, as for the first command.
 *
 * Build first (`node esbuild.mjs`). Prints figures; never fails on time.
 * `CROW_BENCH_UNDO=acp` runs only the crow acp rows (the same rounds,
 * timed the same way), and `CROW_BENCH_UNDO_SIZES=300k` only the sizes
 * named (comma-separated), for a quicker look at one row.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../testkit/fake-llm-server';
import { createBigRepository } from '../test/support/big-repo';
import { startAcp } from '../test/support/crow-binary';
import { stopKeepers } from '../test/support/keepers';
import { median, personEnv } from './common';

const CROW = resolve(__dirname, '../dist/crow.js');
const ALL_SIZES = [
  { label: '100k', folders: 400, filesPerFolder: 250 },
  { label: '300k', folders: 1_200, filesPerFolder: 250 },
];
const SIZES = ALL_SIZES.filter((size) => process.env.CROW_BENCH_UNDO_SIZES?.split(',').includes(size.label) ?? true);
/** Only the crow acp rows (CROW_BENCH_UNDO=acp). */
const ACP_ONLY = process.env.CROW_BENCH_UNDO === 'acp';
/** Rounds of each interleaved comparison. */
const ROUNDS = 5;
/** Pace of a streamed answer: an event every EVENT_MS (a command's call is some 20 events: about a second). */
const EVENT_MS = 40;
/** How long a person reads an answer before the next `crow run`. */
const READING_MS = 5_000;
/** How long the ACP agent idles between its two sessions, as a person reading the answer does. */
const IDLE_MS = 15_000;

type Reply = Exclude<ScriptedReply, { kind: 'http_error' }>;

export async function undoBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-undo-'));
  const server = await FakeLlmServer.start();
  try {
    console.log('Undo on big repositories (generated, committed git repositories), through the binary; medians, ms');
    const figures: Record<string, { cold: number; warm: number; stopped: number; acp: number }> = {};
    for (const size of SIZES) {
      const root = join(base, size.label);
      process.stdout.write(`  ${size.label} files: generating…`);
      createBigRepository(root, size);
      process.stdout.write('\r');
      if (ACP_ONLY) {
        const acp = await acpSessions(server, root, base);
        reportAcp(size.label, acp);
        continue;
      }
      const command = await firstCommand(server, root, base);
      const acp = await acpSessions(server, root, base);
      const start = await firstRequest(server, root, base);
      const prompt = await filePrompt(server, root, base);
      figures[size.label] = { cold: command.cold - command.off, warm: command.warm - command.off, stopped: command.stopped - command.off, acp: acp.first - acp.again };
      console.log(
        `  ${size.label} files: first bash command of a prompt (crow run, a new process each): ${ms(command.warm)} with undo warm (the folder's keeper from the run before),` +
          ` ${ms(command.off)} --no-undo; undo adds ${added(command.warm - command.off)} (goal ≤ 50)`,
      );
      console.log(
        `  ${size.label} files: the same without a keeper: ${added(command.cold - command.off)} on the first run in a folder (fresh data folder),` +
          ` ${added(command.stopped - command.off)} on the first run after the keeper stopped (no goal: each stats the whole tree once)`,
      );
      reportAcp(size.label, acp);
      console.log(
        `  ${size.label} files: model's first request ${ms(start.undo)} with undo vs ${ms(start.off)} --no-undo, ratio ${(start.undo / start.off).toFixed(2)} (goal ≤ 1.2);` +
          ` a prompt with one write_file ${ms(prompt.warm)} vs ${ms(prompt.off)}, ratio ${(prompt.warm / prompt.off).toFixed(3)} (goal ≤ 1.05);` +
          ` on the first run in a folder ${ms(prompt.cold)}, ratio ${(prompt.cold / prompt.off).toFixed(3)} (no goal: the folder's first record of the tree runs beside it)`,
      );
    }
    const [small, large] = SIZES.map((size) => figures[size.label]);
    if (!small || !large) return;
    console.log(
      `  ${SIZES[1]!.label}/${SIZES[0]!.label} of what undo adds to the first command (goal ≤ 1.2, or both within 50 ms): ` +
        `${ratio(large.warm, small.warm)} warm, ${ratio(large.acp, small.acp)} crow acp; without a keeper ${ratio(large.cold, small.cold)} cold, ${ratio(large.stopped, small.stopped)} after it stopped`,
    );
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * The first bash command of a `crow run` prompt, its duration as the run
 * reports it (`tool_call_end`), interleaved: undo cold (a fresh data
 * folder: no shadow repository, no keeper: the first run in a folder),
 * warm (the data folder of the run before, and the keeper that run left,
 * as every later run finds it), after the keeper stopped (the data folder
 * of the run before, its keeper gone after its idle time: the first run
 * after a break), and --no-undo. The keeper each run may start is on, as
 * by default; the bench stops it only where a person's keeper would be
 * gone. Between a run that starts a keeper and the next, the person reads
 * the answer for READING_MS.
 */
async function firstCommand(server: FakeLlmServer, root: string, base: string): Promise<{ cold: number; warm: number; stopped: number; off: number }> {
  const home = mkdtempSync(join(base, 'home-'));
  const samples = { cold: [] as number[], warm: [] as number[], stopped: [] as number[], off: [] as number[] };
  const run = async (flags: string[], data: string | undefined, i: number): Promise<number> => {
    server.enqueue('anthropic', paced(call('bash', { command: `echo "export const value = ${i};" > d002/f002.js` })), paced(text('Done.')));
    const env = personEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ...(data ? { XDG_DATA_HOME: data } : {}) });
    const out = await crow(['run', 'Change one line', '--allow', 'all', '--json', ...flags], env, root);
    return toolDuration(out, 'bash');
  };
  await run([], undefined, -1);
  await new Promise((done) => setTimeout(done, READING_MS));
  for (let i = 0; i < ROUNDS; i++) {
    const data = mkdtempSync(join(base, 'data-'));
    samples.cold.push(await run([], data, i));
    await stopKeepers(data);
    rmSync(data, { recursive: true, force: true });
    await stopKeepers(home);
    samples.stopped.push(await run([], undefined, i));
    // The person reads the answer before the next prompt; meanwhile the keeper that run started takes its first look.
    await new Promise((done) => setTimeout(done, READING_MS));
    samples.warm.push(await run([], undefined, i));
    samples.off.push(await run(['--no-undo'], undefined, i));
  }
  await stopKeepers(home);
  rmSync(home, { recursive: true, force: true });
  return { cold: median(samples.cold), warm: median(samples.warm), stopped: median(samples.stopped), off: median(samples.off) };
}

function reportAcp(label: string, acp: { first: number; again: number }): void {
  console.log(
    `  ${label} files: first command of a new crow acp session after ${IDLE_MS / 1000} s idle: ${ms(acp.first)}, the same command again ${ms(acp.again)};` +
      ` the first pays ${added(acp.first - acp.again)} (goal ≤ 50)`,
  );
}

/**
 * One `crow acp` per round: a session runs a command, the agent idles,
 * then a new session's first command and the same command again, each
 * timed at the client from the call's first update to its completion.
 */
async function acpSessions(server: FakeLlmServer, root: string, base: string): Promise<{ first: number; again: number }> {
  const first: number[] = [];
  const again: number[] = [];
  for (let round = 0; round < Math.min(ROUNDS, 3); round++) {
    const home = mkdtempSync(join(base, 'home-'));
    const agent = startAcp(root, home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }, { permission: () => 'allow_once' });
    try {
      await agent.client.initialize();
      const prompt = async (sessionId: string, i: number): Promise<number> => {
        server.enqueue('anthropic', paced(call('bash', { command: `echo "export const value = ${round}${i};" > d002/f002.js` })), paced(text('Done.')));
        const from = agent.client.notifications.length;
        await agent.client.prompt(sessionId, 'Change one line');
        return commandTime(agent.client, from);
      };
      const earlier = (await agent.client.newSession(root)).sessionId;
      await prompt(earlier, 0);
      await new Promise((done) => setTimeout(done, IDLE_MS));
      const later = (await agent.client.newSession(root)).sessionId;
      first.push(await prompt(later, 1));
      again.push(await prompt(later, 2));
    } finally {
      await agent.stop();
      rmSync(home, { recursive: true, force: true });
    }
  }
  return { first: median(first), again: median(again) };
}

/** Spawn of `crow run` → the model's first request, with undo (cold) and without, alternating. */
async function firstRequest(server: FakeLlmServer, root: string, base: string): Promise<{ undo: number; off: number }> {
  const undo: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const withUndo of [true, false]) {
      const home = mkdtempSync(join(base, 'home-'));
      server.enqueue('anthropic', call('write_file', { path: 'd000/f000.js', content: `export const value = ${round};\n` }), text('Done.'));
      const env = personEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
      const seen = server.requests.length;
      const started = Date.now();
      await crow(['run', 'Change one line', '--allow', 'all', ...(withUndo ? [] : ['--no-undo'])], env, root);
      const request = server.requests[seen];
      if (!request) throw new Error('crow run made no model request');
      (withUndo ? undo : off).push(request.receivedAt - started);
      await stopKeepers(home);
      rmSync(home, { recursive: true, force: true });
    }
  }
  return { undo: median(undo), off: median(off) };
}

/** Whole `crow run` wall time of a prompt whose model calls write_file once, with undo cold and warm and --no-undo, interleaved. */
async function filePrompt(server: FakeLlmServer, root: string, base: string): Promise<{ cold: number; warm: number; off: number }> {
  const samples = { cold: [] as number[], warm: [] as number[], off: [] as number[] };
  const home = mkdtempSync(join(base, 'home-'));
  const run = async (data: string | undefined, flags: string[], i: number): Promise<number> => {
    server.enqueue('anthropic', paced(call('write_file', { path: 'd005/f005.js', content: `export const value = ${i};\n` })), paced(text('Done.')));
    const env = personEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ...(data ? { XDG_DATA_HOME: data } : {}) });
    const started = performance.now();
    await crow(['run', 'Change one line', '--allow', 'all', ...flags], env, root);
    return performance.now() - started;
  };
  await run(undefined, [], -1);
  for (let i = 0; i < ROUNDS; i++) {
    const data = mkdtempSync(join(base, 'data-'));
    samples.cold.push(await run(data, [], i));
    await stopKeepers(data);
    rmSync(data, { recursive: true, force: true });
    samples.warm.push(await run(undefined, [], i));
    samples.off.push(await run(undefined, ['--no-undo'], i));
  }
  await stopKeepers(home);
  rmSync(home, { recursive: true, force: true });
  return { cold: median(samples.cold), warm: median(samples.warm), off: median(samples.off) };
}

/** Runs the binary to its end; its stdout. */
function crow(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CROW, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(out) : fail(new Error(`crow ${args[0]} exited ${code}: ${err}`))));
  });
}

/** The duration `crow run --json` reports for its call of `tool`. */
function toolDuration(stdout: string, tool: string): number {
  for (const line of stdout.split('\n')) {
    if (!line.includes('"tool_call_end"')) continue;
    const event = JSON.parse(line) as { tool?: string; durationMs?: number };
    if (event.tool === tool && typeof event.durationMs === 'number') return event.durationMs;
  }
  throw new Error(`crow run reported no ${tool} call`);
}

/** From the first update of the first tool call after `from` to the update that completes it, at the client. */
function commandTime(client: { notifications: { update: { sessionUpdate: string } }[]; arrivedAt: number[] }, from: number): number {
  let started: number | undefined;
  let id: string | undefined;
  for (let i = from; i < client.notifications.length; i++) {
    const update = client.notifications[i]!.update as { sessionUpdate: string; toolCallId?: string; status?: string };
    if (update.sessionUpdate === 'tool_call' && id === undefined) {
      id = update.toolCallId;
      started = client.arrivedAt[i];
    }
    if (id !== undefined && update.toolCallId === id && (update.status === 'completed' || update.status === 'failed')) return client.arrivedAt[i]! - started!;
  }
  throw new Error('the prompt ran no command');
}

/** A reply as a model streams it, an event at a time. */
function paced(reply: Reply): Reply {
  return { ...reply, latencyMs: EVENT_MS };
}

function call(name: string, args: unknown): Reply {
  return { blocks: [{ type: 'tool_call', name, arguments: args }] };
}

function text(value: string): Reply {
  return { blocks: [{ type: 'text', text: value }] };
}

function ms(value: number): string {
  return value.toFixed(0);
}

/** A time added to another, with its sign: "+14", "−4" (a figure within the noise can come out below zero). */
function added(value: number): string {
  return value < 0 ? `−${ms(-value)}` : `+${ms(value)}`;
}

/**
 * A ratio of two added times; the two times instead when the smaller is within 50 ms, where a ratio of noise
 * says nothing ("both ≤ 50 ms" when neither is above the goal).
 */
function ratio(large: number, small: number): string {
  if (large <= 50 && small <= 50) return `both ≤ 50 ms (${ms(small)} → ${ms(large)})`;
  if (small <= 50) return `${ms(small)} → ${ms(large)} ms`;
  return `${(large / small).toFixed(2)}×`;
}
