/**
 * Edit matching: the cost of finding old_string in a generated 5,000-line
 * TypeScript-like file at each level of the matching cascade, of a search
 * that matches nothing (closest lines included), and of a whole edit_file
 * call. Then edit_file on 10 MB and 30 MB files against the same edit done
 * with plain fs (read, replace, write), run alternately: the ratio shows what
 * the tool adds (its diff covers only the edited region; target ≤ 1.5×).
 * Last, the same edits as a session makes them, through `crow run` with
 * undo on (its default: undo's copy of the file is read before the edit,
 * and hashed and kept beside it), with a model that takes its time, cold
 * and warm, against plain fs in a process of its own (goal ≤ 1.5×).
 * Figures are medians; nothing here fails on time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { editFileTool } from '../src/tools/builtin/edit-file';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { PermissionGate } from '../src/tools/permissions';
import { closestWindow, findMatches, replaceMatches, type MatcherName } from '../src/tools/text-match';
import { TodoStore } from '../src/tools/todos';
import type { ToolContext } from '../src/tools/tool';
import { median, personEnv } from './common';

const FUNCTIONS = 625;
const LINES_PER_FUNCTION = 8;
const TARGET = 312;
const RUNS = 21;
const REPEATS = 10;
const BIG_FILE_MB = [10, 30];
const BIG_RUNS = 9;
/**
 * The model's pace through the binary: an event every EVENT_MS, as in the
 * undo bench (an answer with a call takes a few hundred ms). A model that
 * answered at once would have the edit run beside the record of the tree
 * that undo starts with the model's first call, which a real model's
 * answer leaves time to finish.
 */
const EVENT_MS = 40;
const CROW = path.resolve(__dirname, '../dist/crow.js');

export async function editFileBenchmark(): Promise<void> {
  const text = generatedFile();
  const block = functionLines(TARGET);
  const cases: Array<{ label: string; expect: MatcherName | 'none'; search: string }> = [
    { label: 'exact', expect: 'exact', search: block.join('\n') },
    { label: 'trailing whitespace', expect: 'whitespace-normalised', search: block.map((line) => `${line}  `).join('\n') },
    { label: 'other indentation', expect: 'indentation-flexible', search: block.map((line) => line.slice(2)).join('\n') },
    { label: 'uneven indentation', expect: 'line-trimmed', search: block.map((line, i) => (i % 2 ? line.trim() : line)).join('\n') },
    { label: '2 middle lines changed', expect: 'block-anchor', search: changeMiddle(block).join('\n') },
    { label: 'not found', expect: 'none', search: changeMiddle(block).map(renamed).join('\n') },
    { label: 'not found, 203 lines, generic anchors', expect: 'none', search: scrambledRun(203) },
  ];

  console.log(`Edit matching on a ${FUNCTIONS * LINES_PER_FUNCTION}-line file, median of ${RUNS} runs`);
  for (const { label, expect, search } of cases) {
    const found = findMatches(text, search);
    const matcher = found?.matcher ?? 'none';
    if (matcher !== expect) console.log(`  (${label}: expected ${expect}, got ${matcher})`);
    const us = perEdit(() => {
      const result = findMatches(text, search);
      if (result) replaceMatches(text, result.matches, 'replaced();');
      else closestWindow(text, search);
    });
    console.log(`  ${`${label} (${matcher})`.padEnd(46)} ${formatTime(us)} per edit`);
  }
  console.log(`  ${'edit_file call, exact (read, match, write, diff)'.padEnd(46)} ${formatTime(await toolCallTime(text))} per edit`);
  for (const megabytes of BIG_FILE_MB) {
    const { tool, plain } = await bigFileEdit(text, megabytes);
    console.log(
      `  ${`edit_file on a ${megabytes} MB file vs plain fs`.padEnd(46)} ${formatTime(tool)} vs ${formatTime(plain)}, ratio ${(tool / plain).toFixed(2)} (diagnostic, in-process, undo off)`,
    );
  }
  for (const megabytes of BIG_FILE_MB) {
    const { cold, warm, plain } = await bigFileThroughBinary(text, megabytes);
    console.log(
      `  ${`crow run: edit_file on ${megabytes} MB, undo on (default)`.padEnd(46)} ${formatTime(cold)} cold, ${formatTime(warm)} warm vs ${formatTime(plain)} plain fs;` +
        ` ratio ${(cold / plain).toFixed(2)} / ${(warm / plain).toFixed(2)} (goal ≤ 1.5)`,
    );
  }
}

/**
 * edit_file on a file of about `megabytes` MB as a person's session makes
 * it: `crow run` with undo on (its default), the time the person waits for
 * the call (editWaitedFor: undo's copy of the file and the call's own
 * preparation included), cold (a fresh data folder) and warm, against the
 * same edit made by a plain Node process (read, replace, write), each run
 * alternating. Median µs.
 */
async function bigFileThroughBinary(unit: string, megabytes: number): Promise<{ cold: number; warm: number; plain: number }> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-bench-edit-')));
  const root = path.join(base, 'workspace');
  fs.mkdirSync(root);
  const server = await FakeLlmServer.start();
  try {
    const copies = Math.ceil((megabytes * 1024 * 1024) / unit.length);
    const half = unit.repeat(Math.floor(copies / 2));
    const marker = '  // the one line the benchmark edits';
    const file = path.join(root, 'big.ts');
    const edit = { path: 'big.ts', old_string: marker, new_string: '  // the line, edited' };
    const home = path.join(base, 'home');
    const samples = { cold: [] as number[], warm: [] as number[], plain: [] as number[] };
    const viaCrow = async (data: string | undefined, run: number): Promise<number> => {
      // New contents each run, as an edit's file usually is to undo's store.
      fs.writeFileSync(file, `${half}${marker}\n${half}// run ${run}\n`);
      server.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: 'edit_file', arguments: edit }], latencyMs: EVENT_MS }, { blocks: [{ type: 'text', text: 'Done.' }], latencyMs: EVENT_MS });
      const env = personEnv(home, { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ...(data ? { XDG_DATA_HOME: data } : {}) });
      return editWaitedFor(await spawned(process.execPath, [CROW, 'run', 'Edit the marked line', '--allow', 'all', '--json'], env, root));
    };
    const viaNode = async (run: number): Promise<number> => {
      fs.writeFileSync(file, `${half}${marker}\n${half}// run ${run}\n`);
      const script = `const fs=require('fs');const t=performance.now();const c=fs.readFileSync(${JSON.stringify(file)},'utf8');fs.writeFileSync(${JSON.stringify(file)},c.replace(${JSON.stringify(edit.old_string)},${JSON.stringify(edit.new_string)}));process.stdout.write(String((performance.now()-t)*1000))`;
      return Number((await spawned(process.execPath, ['-e', script], process.env, root)).map((line) => line.text).join(''));
    };
    await viaCrow(undefined, -1);
    for (let run = 0; run < BIG_RUNS; run++) {
      const data = path.join(base, `data-${run}`);
      samples.cold.push(await viaCrow(data, run));
      fs.rmSync(data, { recursive: true, force: true });
      samples.warm.push(await viaCrow(undefined, run));
      samples.plain.push(await viaNode(run));
    }
    return { cold: median(samples.cold), warm: median(samples.warm), plain: median(samples.plain) };
  } finally {
    await server.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/**
 * µs the person waited for the edit: from the moment the usage line of the
 * response that made the call reached this process (the call's arguments
 * complete) to the moment its tool_call_end line did, as the glob bench
 * times a call; not the duration crow reports for the tool itself, which
 * leaves out the call's preparation and its result reaching the person.
 */
function editWaitedFor(lines: readonly Line[]): number {
  let responseEnded = Number.NaN;
  for (const { text, at } of lines) {
    const event = JSON.parse(text) as { type: string; tool?: string; result?: { status: string; error?: string } };
    if (event.type === 'usage') responseEnded = at;
    if (event.type !== 'tool_call_end' || event.tool !== 'edit_file') continue;
    if (event.result?.status !== 'success') throw new Error(`edit_file did not succeed through crow run: ${text}`);
    if (Number.isNaN(responseEnded)) throw new Error('the edit_file call came without the usage line of its response');
    return (at - responseEnded) * 1000;
  }
  throw new Error('crow run reported no edit_file call');
}

/** A line of a child's stdout and when it arrived (performance.now()). */
interface Line {
  text: string;
  at: number;
}

/** A child process run to its end; its stdout's lines, each with when it arrived. */
function spawned(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Line[]> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Line[] = [];
    let partial = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      const at = performance.now();
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line !== '') out.push({ text: line, at });
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => {
      if (partial !== '') out.push({ text: partial, at: performance.now() });
      if (code === 0) done(out);
      else fail(new Error(`${path.basename(args[0] ?? command)} exited ${code}: ${err}`));
    });
  });
}

/**
 * Median µs of one edit_file call on a file of about `megabytes` MB (the
 * generated file repeated) and of the same edit with plain fs, alternating,
 * in this process (a diagnostic: no undo, no process of its own).
 */
async function bigFileEdit(unit: string, megabytes: number): Promise<{ tool: number; plain: number }> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-bench-edit-')));
  const root = path.join(base, 'workspace');
  fs.mkdirSync(root);
  try {
    const copies = Math.ceil((megabytes * 1024 * 1024) / unit.length);
    const half = unit.repeat(Math.floor(copies / 2));
    const marker = '  // the one line the benchmark edits\n';
    const text = `${half}${marker}${half}`;
    const file = path.join(root, 'big.ts');
    const ctx = benchContext(root);
    const old = marker.trimEnd();
    const replacement = '  // the line, edited';
    const args = JSON.stringify({ path: 'big.ts', old_string: old, new_string: replacement });
    const tool: number[] = [];
    const plain: number[] = [];
    for (let run = 0; run <= BIG_RUNS; run++) {
      const contents = text;
      fs.writeFileSync(file, contents);
      let started = performance.now();
      const result = await editFileTool.run(args, ctx);
      if (result.status !== 'success') throw new Error(`edit_file failed in the benchmark: ${result.error}`);
      const toolUs = (performance.now() - started) * 1000;
      fs.writeFileSync(file, contents);
      started = performance.now();
      const content = await fs.promises.readFile(file, 'utf8');
      await fs.promises.writeFile(file, content.replace(old, replacement));
      const plainUs = (performance.now() - started) * 1000;
      if (run > 0) {
        tool.push(toolUs);
        plain.push(plainUs);
      }
    }
    return { tool: median(tool), plain: median(plain) };
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

function generatedFile(): string {
  const functions = Array.from({ length: FUNCTIONS }, (_, i) => functionLines(i).join('\n'));
  return `${functions.join('\n')}\n`;
}

/** One function of the generated file, LINES_PER_FUNCTION lines with a blank one last. */
function functionLines(i: number): string[] {
  return [
    `  export function handler${i}(input: Request${i % 7}): Result {`,
    `    const total = input.items.map((item) => item.price * ${i}).reduce((a, b) => a + b, 0);`,
    `    if (total > ${i * 3}) {`,
    `      return { ok: true, total, label: 'handler-${i}' };`,
    '    }',
    `    return { ok: false, total: 0, label: 'none' };`,
    '  }',
    '',
  ];
}

function changeMiddle(block: readonly string[]): string[] {
  return block.map((line, i) => (i === 1 ? line.replace('price', 'cost') : i === 3 ? line.replace('ok: true', 'ok: yes') : line));
}

function renamed(line: string): string {
  return line.replaceAll(String(TARGET), 'Renamed');
}

/**
 * `count` lines of the file from a closing `    }` on, every other line
 * between the first and last replaced: block-anchor candidates at every
 * function, none similar enough.
 */
function scrambledRun(count: number): string {
  const first = TARGET * LINES_PER_FUNCTION + 4;
  const lines = Array.from({ length: FUNCTIONS }, (_, i) => functionLines(i)).flat().slice(first, first + count);
  return lines.map((line, i) => (i % 2 === 1 && i < count - 1 ? `    audit(${i}, 'scrambled');` : line)).join('\n');
}

/** Median microseconds of one call of `work`, each run averaging REPEATS calls. */
function perEdit(work: () => void): number {
  work();
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    for (let repeat = 0; repeat < REPEATS; repeat++) work();
    samples.push(((performance.now() - started) * 1000) / REPEATS);
  }
  return median(samples);
}

async function toolCallTime(text: string): Promise<number> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-bench-edit-')));
  try {
    const ctx = benchContext(root);
    const args = JSON.stringify({ path: 'big.ts', old_string: functionLines(TARGET)[2], new_string: '    if (total > 0) {' });
    const samples: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      fs.writeFileSync(path.join(root, 'big.ts'), text);
      const started = performance.now();
      const result = await editFileTool.run(args, ctx);
      if (result.status !== 'success') throw new Error(`edit_file failed in the benchmark: ${result.error}`);
      if (run > 0) samples.push((performance.now() - started) * 1000);
    }
    return median(samples);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function benchContext(root: string): ToolContext {
  return {
    sessionId: 'bench',
    agentName: 'bench',
    callId: 'bench',
    workspace: new NodeWorkspace(root),
    signal: new AbortController().signal,
    provider: 'bench',
    model: 'bench',
    supportsImages: false,
    permissions: new PermissionGate({ policy: { rules: { read: 'allow', write: 'allow', execute: 'deny', network: 'deny' }, allowCommands: [] } }),
    todos: new TodoStore(),
  };
}

function formatTime(us: number): string {
  return us < 1000 ? `${us.toFixed(0).padStart(6)} µs` : `${(us / 1000).toFixed(1).padStart(6)} ms`;
}
