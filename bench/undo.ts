/**
 * Undo on big repositories (generated git repositories of 100,000 and
 * 300,000 files, committed), side by side with undo off, and each figure's
 * 300k/100k ratio (flat in the repository's size is the target):
 * - first model request: spawn of `crow run` → the fake model server gets
 *   the request, with undo (its shadow repository cold: a fresh data
 *   folder each time) and with --no-undo (median, ratio; target ≤ 1.2, and
 *   flat from 100k to 300k files);
 * - write_file of one line, with undo (an undo point begun, its snapshot
 *   done) and without (median of the difference; target < 20 ms added);
 * - the time undo adds to a one-file `bash` command (the row),
 *   the session's watcher running: how long the command waits for undo
 *   before and after it, cold (nothing started before the command) and
 *   warm (its call streamed from the model for a while, and the track
 *   before it ran meanwhile); median, goal ≤ 50 ms and flat from 100k to
 *   300k files;
 * - for reference, the background snapshot of a cold shadow repository;
 * - a whole prompt whose model (about a second per answer) calls write_file
 *   once, `crow run` wall time with undo (cold and warm) against --no-undo
 *   (ratio; target ≤ 1.05: a file tool never waits for the tree).
 * Build first (`node esbuild.mjs`). Prints figures; never fails on time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GitSnapshotManager } from '../src/journal/git-snapshots';
import { SessionUndo } from '../src/journal/undo-point';
import { writeFileTool } from '../src/tools/builtin/write-file';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { FakeLlmServer, type ScriptedReply } from '../src/testing/fake-llm-server';
import { createBigRepository } from '../test/support/big-repo';
import { isolatedEnv } from '../test/support/isolated-env';
import { toolContext } from '../test/unit/tools/temp-workspace';
import { median } from './common';

const CROW = resolve(__dirname, '../dist/crow.js');
const SIZES = [
  { label: '100k', folders: 400, filesPerFolder: 250 },
  { label: '300k', folders: 1_200, filesPerFolder: 250 },
];
const STARTS = 3;
const WRITES = 15;
const COMMANDS = 7;
/** How long a short command's call takes to stream from a model (tens of tokens). */
const STREAMING_MS = 400;
/** Pace of the model's streamed events in the whole-prompt rows: about a second per answer. */
const EVENT_MS = 150;
const PROMPTS = 5;

export async function undoBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-undo-'));
  const server = await FakeLlmServer.start();
  try {
    console.log('Undo on big repositories (generated, committed git repositories), median ms');
    const figures: Array<{ start: number; command: number; streamed: number; write: number }> = [];
    for (const size of SIZES) {
      const root = join(base, size.label);
      process.stdout.write(`  ${size.label} files: generating…`);
      createBigRepository(root, size);
      process.stdout.write('\r');
      const start = await firstRequest(server, root, base);
      const writes = await writeCost(root, base);
      const command = await commandTrack(root, base, false);
      const streamed = await commandTrack(root, base, true);
      const cold = await coldSnapshot(root, base);
      const prompt = await filePrompt(server, root, base);
      console.log(
        `  ${size.label} files: first model request ${ms(start.undo)} with undo (cold) vs ${ms(start.off)} --no-undo, ratio ${(start.undo / start.off).toFixed(2)} (target ≤ 1.2)` +
          ` · write_file +${writes.toFixed(1)} ms (target < 20) · background snapshot, cold ${ms(cold)}`,
      );
      console.log(
        `  ${size.label} files: one-file bash command, time added by undo: +${ms(command)} ms cold, +${ms(streamed)} ms warm (call streamed ${STREAMING_MS} ms) (goal ≤ 50)`,
      );
      figures.push({ start: start.undo / start.off, command, streamed, write: writes });
      console.log(
        `  ${size.label} files: a prompt with one write_file (model ~1 s per answer), whole crow run: ${ms(prompt.cold)} with undo cold, ${ms(prompt.warm)} warm, ${ms(prompt.off)} --no-undo;` +
          ` ratio ${(prompt.cold / prompt.off).toFixed(3)} cold, ${(prompt.warm / prompt.off).toFixed(3)} warm (target ≤ 1.05)`,
      );
    }
    const [small, large] = figures;
    console.log(
      `  ${SIZES[1]!.label}/${SIZES[0]!.label} (goal: flat, about 1): one-file bash command, time added by undo ${(large!.command / small!.command).toFixed(2)}× cold, ` +
        `${(large!.streamed / small!.streamed).toFixed(2)}× warm · first-request ratio ${(large!.start / small!.start).toFixed(2)}×`,
    );
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Whole `crow run` wall time of a prompt whose model (answering in about a
 * second) calls write_file once, with undo and with --no-undo, alternating:
 * cold (a fresh data folder each time, so a fresh shadow repository) and
 * warm (the data folder of an earlier run). Every run shares one home
 * otherwise: config and crow's cache folder (the launcher's V8 code cache)
 * are warm in all three, so the ratios hold undo's cost alone. Medians in ms.
 */
async function filePrompt(server: FakeLlmServer, root: string, base: string): Promise<{ cold: number; warm: number; off: number }> {
  const cold: number[] = [];
  const warm: number[] = [];
  const off: number[] = [];
  const warmHome = mkdtempSync(join(base, 'home-'));
  const run = async (data: string | undefined, flags: string[], i: number): Promise<number> => {
    server.enqueue(
      'anthropic',
      { ...call('write_file', { path: 'd005/f005.js', content: `export const value = ${i};\n` }), latencyMs: EVENT_MS },
      { ...text('Done.'), latencyMs: EVENT_MS },
    );
    const env = isolatedEnv(warmHome, {
      ANTHROPIC_API_KEY: 'bench',
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ...(data === undefined ? {} : { XDG_DATA_HOME: data }),
    });
    return timed(
      () =>
        new Promise<void>((done, fail) => {
          const child = spawn(process.execPath, [CROW, 'run', 'Change one line', '--allow', 'all', ...flags], { cwd: root, env, stdio: 'ignore' });
          child.once('error', fail);
          child.once('close', (code) => (code === 0 ? done() : fail(new Error(`crow run exited ${code}`))));
        }),
    );
  };
  await run(undefined, [], -1);
  for (let i = 0; i < PROMPTS; i++) {
    const data = mkdtempSync(join(base, 'data-'));
    cold.push(await run(data, [], i));
    rmSync(data, { recursive: true, force: true });
    warm.push(await run(undefined, [], i));
    off.push(await run(undefined, ['--no-undo'], i));
  }
  return { cold: median(cold), warm: median(warm), off: median(off) };
}

/** Spawn of `crow run` → the model's first request, with undo (cold) and without, alternating. */
async function firstRequest(server: FakeLlmServer, root: string, base: string): Promise<{ undo: number; off: number }> {
  const undo: number[] = [];
  const off: number[] = [];
  for (let run = 0; run < STARTS; run++) {
    for (const withUndo of [true, false]) {
      const home = mkdtempSync(join(base, 'home-'));
      server.enqueue('anthropic', call('write_file', { path: 'd000/f000.js', content: `export const value = ${run};\n` }), text('Done.'));
      const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
      const args = [CROW, 'run', 'Change one line', '--allow', 'all', ...(withUndo ? [] : ['--no-undo'])];
      const seen = server.requests.length;
      const started = Date.now();
      await new Promise<void>((done, fail) => {
        const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
        child.once('error', fail);
        child.once('close', (code) => (code === 0 ? done() : fail(new Error(`crow run exited ${code}`))));
      });
      const first = server.requests[seen];
      if (!first) throw new Error('crow run made no model request');
      (withUndo ? undo : off).push(first.receivedAt - started);
      rmSync(home, { recursive: true, force: true });
    }
  }
  return { undo: median(undo), off: median(off) };
}

/** Median extra time of a one-line write_file with an undo point begun (its snapshot done), against none. */
async function writeCost(root: string, base: string): Promise<number> {
  const data = mkdtempSync(join(base, 'data-'));
  const undo = new SessionUndo({ root, dataHome: data, env: process.env });
  try {
    const point = undo.begin({ sessionId: 'bench', prompt: 'bench', notify: () => undefined });
    await point.settled();
    const workspace = new NodeWorkspace(root);
    const added: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      // An existing file each time, so its content is kept (the first change of a file in a prompt).
      const args = (folder: string) => JSON.stringify({ path: `${folder}/f${String(i).padStart(3, '0')}.js`, content: `export const v = ${i};\n` });
      const plain = await timed(() => writeFileTool.run(args('d003'), toolContext(workspace)));
      const recorded = await timed(() => writeFileTool.run(args('d001'), toolContext(workspace, undefined, { undo })));
      added.push(recorded - plain);
    }
    return median(added);
  } finally {
    undo.close();
  }
}

/**
 * Median time a command waits for undo, the shadow warm: beforeCommand
 * before it plus changedFiles after it, around a change of one file. Cold:
 * nothing known in advance. Streamed: the model's call took STREAMING_MS to
 * stream (a short command's arguments), and the engine told undo when the
 * call started, as it does.
 */
async function commandTrack(root: string, base: string, streamed: boolean): Promise<number> {
  const data = mkdtempSync(join(base, 'data-'));
  const undo = new SessionUndo({ root, dataHome: data, env: process.env });
  try {
    await undo.begin({ sessionId: 'bench', prompt: 'bench', notify: () => undefined }).settled();
    const signal = new AbortController().signal;
    const samples: number[] = [];
    for (let i = 0; i < COMMANDS; i++) {
      // Another file changes between commands (a file tool), as between the model's turns.
      await undo.beforeFileChanges([`d004/f00${i}.js`], signal);
      writeFileSync(join(root, 'd004', `f00${i}.js`), `export const value = -${i};\n`);
      if (streamed) {
        undo.expectCommand();
        await new Promise((resolve) => setTimeout(resolve, STREAMING_MS));
      }
      samples.push(
        await timed(async () => {
          const watch = await undo.beforeCommand(signal);
          writeFileSync(join(root, 'd002', 'f002.js'), `export const value = ${i};\n`);
          await watch.changedFiles(signal);
        }),
      );
    }
    return median(samples);
  } finally {
    undo.close();
  }
}

/** How long the snapshot that runs beside the first model call takes in a fresh data folder (started from the repository's index). */
async function coldSnapshot(root: string, base: string): Promise<number> {
  return timed(() => new GitSnapshotManager({ workspace: root, dataHome: mkdtempSync(join(base, 'data-')) }).track());
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

type Reply = Exclude<ScriptedReply, { kind: 'http_error' }>;

function call(name: string, args: unknown): Reply {
  return { blocks: [{ type: 'tool_call', name, arguments: args }] };
}

function text(value: string): Reply {
  return { blocks: [{ type: 'text', text: value }] };
}

function ms(value: number): string {
  return value.toFixed(0);
}
