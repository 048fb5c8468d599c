/**
 * Edit matching: the cost of finding old_string in a generated 5,000-line
 * TypeScript-like file at each level of the matching cascade, of a search
 * that matches nothing (closest lines included), and of a whole edit_file
 * call. Then edit_file on 10 MB and 30 MB files against the same edit done
 * with plain fs (read, replace, write), run alternately: the ratio shows what
 * the tool adds (its diff covers only the edited region; target ≤ 1.5×).
 * Last, the 30 MB edit as a session makes it, recorded for undo (its copy
 * of the file, a git blob, is made before the edit): what undo adds on top.
 * Figures are medians; nothing here fails on time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionUndo } from '../src/journal/undo-point';
import { editFileTool } from '../src/tools/builtin/edit-file';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { PermissionGate } from '../src/tools/permissions';
import { closestWindow, findMatches, replaceMatches, type MatcherName } from '../src/tools/text-match';
import { TodoStore } from '../src/tools/todos';
import type { ToolContext } from '../src/tools/tool';
import { median } from './common';

const FUNCTIONS = 625;
const LINES_PER_FUNCTION = 8;
const TARGET = 312;
const RUNS = 21;
const REPEATS = 10;
const BIG_FILE_MB = [10, 30];
const BIG_RUNS = 9;
/** The file size of the edit recorded for undo. */
const UNDO_FILE_MB = 30;

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
      `  ${`edit_file on a ${megabytes} MB file vs plain fs`.padEnd(46)} ${formatTime(tool)} vs ${formatTime(plain)}, ratio ${(tool / plain).toFixed(2)} (target ≤ 1.5)`,
    );
  }
  const { tool, plain } = await bigFileEdit(text, UNDO_FILE_MB, true);
  console.log(
    `  ${`same, ${UNDO_FILE_MB} MB, recorded for undo`.padEnd(46)} ${formatTime(tool)} vs ${formatTime(plain)}, ratio ${(tool / plain).toFixed(2)} (undo's copy of the file included)`,
  );
}

/**
 * Median µs of one edit_file call on a file of about `megabytes` MB (the
 * generated file repeated) and of the same edit with plain fs, alternating;
 * with `recorded`, the calls are recorded for undo as in a session.
 */
async function bigFileEdit(unit: string, megabytes: number, recorded = false): Promise<{ tool: number; plain: number }> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-bench-edit-')));
  const root = path.join(base, 'workspace');
  fs.mkdirSync(root);
  const undo = recorded ? new SessionUndo({ root, dataHome: path.join(base, 'data'), env: process.env }) : undefined;
  undo?.begin({ sessionId: 'bench', prompt: 'Edit a large file', notify: () => undefined });
  try {
    const copies = Math.ceil((megabytes * 1024 * 1024) / unit.length);
    const half = unit.repeat(Math.floor(copies / 2));
    const marker = '  // the one line the benchmark edits\n';
    const text = `${half}${marker}${half}`;
    const file = path.join(root, 'big.ts');
    const ctx = { ...benchContext(root), ...(undo ? { undo } : {}) };
    const old = marker.trimEnd();
    const replacement = '  // the line, edited';
    const args = JSON.stringify({ path: 'big.ts', old_string: old, new_string: replacement });
    const tool: number[] = [];
    const plain: number[] = [];
    for (let run = 0; run <= BIG_RUNS; run++) {
      // Recorded for undo, the contents are new to its store every run, as an edit's file usually is: git stores a blob it already has for free.
      const contents = recorded ? `${text}// run ${run}\n` : text;
      fs.writeFileSync(file, contents);
      let started = performance.now();
      const result = await editFileTool.run(args, ctx);
      if (result.status !== 'success') throw new Error(`edit_file failed in the benchmark: ${result.error}`);
      if (result.metadata.extra.undoError !== undefined) throw new Error(`edit_file was not recorded for undo in the benchmark: ${String(result.metadata.extra.undoError)}`);
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
    undo?.close();
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
