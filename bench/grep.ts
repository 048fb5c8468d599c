/**
 * Search overhead: the grep tool (through tool.run, JSON stream parsed, output
 * formatted) against plain rg with the same file selection and pattern flags,
 * on a generated 10,000-file tree — median milliseconds and the ratio. rg
 * prints every match while the tool stops at its cap (100), so on the capped
 * searches the ratio shows what stopping early saves.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ripgrepPath } from '../src/tools/run-ripgrep';
import { grepTool } from '../src/tools/builtin/grep';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { toolContext } from '../test/unit/tools/temp-workspace';
import { median } from './common';

const PACKAGES = 20;
const MODULES_PER_PACKAGE = 10;
const FILES_PER_MODULE = 45;
/** Ignored bundles per package (dist/); a build.log, also ignored, comes with each. */
const BUNDLES_PER_PACKAGE = 49;
const RUNS = 7;

interface Case {
  label: string;
  args: { pattern: string; include?: string; ignore_case?: boolean; fixed_strings?: boolean };
  /** rg's own flags for the same search. */
  rgFlags: string[];
}

const CASES: Case[] = [
  { label: 'rare literal', args: { pattern: 'RareNeedle', fixed_strings: true }, rgFlags: ['--fixed-strings'] },
  { label: 'regex, 50 hits', args: { pattern: 'compute12[0-4]\\dx0\\(' }, rgFlags: [] },
  { label: 'regex, capped', args: { pattern: 'fetch\\w+\\(' }, rgFlags: [] },
  {
    label: '-i, *.ts, capped',
    args: { pattern: 'todo', ignore_case: true, include: '*.ts' },
    rgFlags: ['--ignore-case', '--type-add=include:*.ts', '--type=include'],
  },
  { label: 'look-around, capped', args: { pattern: '(?<=const )result' }, rgFlags: [] },
];

function moduleSource(index: number): string {
  const lines = [`import { helper${index % 50} } from '../lib/helper';`];
  for (let fn = 0; fn < 8; fn++) {
    lines.push(
      `export function compute${index}x${fn}(value: number): number {`,
      `  const result = helper${index % 50}(value) * ${fn};`,
      index % 10 === fn ? `  void fetchRemote${fn}(result);` : `  // TODO: revisit ${index}.${fn}`,
      '  return result;',
      '}',
    );
  }
  if (index % 3_001 === 0) lines.push('// RareNeedle');
  return `${lines.join('\n')}\n`;
}

/** Writes the tree; returns how many files it holds. */
function generateTree(root: string): number {
  let count = 0;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    count++;
  };
  write(path.join(root, '.gitignore'), 'dist/\n*.log\n');
  for (let pkg = 0; pkg < PACKAGES; pkg++) {
    for (let mod = 0; mod < MODULES_PER_PACKAGE; mod++) {
      for (let file = 0; file < FILES_PER_MODULE; file++) {
        const index = (pkg * MODULES_PER_PACKAGE + mod) * FILES_PER_MODULE + file;
        write(path.join(root, `pkg-${pkg}`, 'src', `mod-${mod}`, `file-${file}.ts`), moduleSource(index));
      }
    }
    for (let file = 0; file < BUNDLES_PER_PACKAGE; file++) {
      write(path.join(root, `pkg-${pkg}`, 'dist', `bundle-${file}.js`), moduleSource(file));
    }
    write(path.join(root, `pkg-${pkg}`, 'build.log'), 'RareNeedle todo\n');
  }
  return count;
}

/** Plain rg, output drained from a pipe; resolves with the number of output lines. */
function plainRipgrep(root: string, search: Case): Promise<number> {
  const args = ['--line-number', '--hidden', '--glob=!.git', '--no-require-git', '--engine=auto', ...search.rgFlags];
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath(), [...args, '--regexp', search.args.pattern, '--', root], { stdio: ['ignore', 'pipe', 'ignore'] });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(lines) : reject(new Error(`rg exited with ${code}`))));
  });
}

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function grepBenchmark(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-bench-grep-')));
  try {
    const files = generateTree(root);
    const workspace = new NodeWorkspace(root);
    console.log(`Search: grep tool vs plain rg, ${files.toLocaleString('en-US')} files, median of ${RUNS} runs`);
    for (const search of CASES) {
      const ours: number[] = [];
      const plain: number[] = [];
      let matches = 0;
      // One warm-up of each, then alternate so both see the same machine conditions.
      for (let run = 0; run <= RUNS; run++) {
        const oursMs = await timeMs(async () => {
          const result = await grepTool.run(JSON.stringify(search.args), toolContext(workspace));
          if (result.status !== 'success') throw new Error(`grep ${search.label}: ${result.error}`);
          matches = Number(result.metadata.extra.matches);
        });
        const plainMs = await timeMs(() => plainRipgrep(root, search));
        if (run === 0) continue;
        ours.push(oursMs);
        plain.push(plainMs);
      }
      const [a, b] = [median(ours), median(plain)];
      console.log(
        `  ${search.label.padEnd(20)} ${String(matches).padStart(3)} matches   grep tool ${a.toFixed(1).padStart(6)} ms` +
          `   rg ${b.toFixed(1).padStart(6)} ms   ratio ${(a / b).toFixed(2)}`,
      );
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
