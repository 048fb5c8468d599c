/**
 * Start-up of a one-shot run: the whole wall time of `crow run hi` (spawn
 * to exit, the fake model answering at once) against a one-shot written on
 * the bare Anthropic SDK and bundled the same way (esbuild, one file), run
 * alternately; median ms and the ratio (target ≤ 1.4). Each figure is a
 * fresh process; the launcher's code cache is warm after the first run,
 * as it is for a person who runs crow twice. Then the same pair on a
 * terminal (a pseudo-terminal made by script(1), as a person runs it): crow
 * then renders markdown, whose renderer (dist/markdown.js) a piped run never
 * loads. Build first.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as nodeModule from 'node:module';
import * as esbuild from 'esbuild';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { median, personEnv } from './common';

const CROW = resolve(__dirname, '../dist/crow.js');
const RUNS = 9;

/** The bare one-shot: one streamed message, its text printed. */
const BARE = `
import Anthropic from '@anthropic-ai/sdk';
async function main() {
  const client = new Anthropic({ maxRetries: 0 });
  const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: process.argv[2] ?? 'hi' }] });
  stream.on('text', (text) => process.stdout.write(text));
  await stream.finalMessage();
  process.stdout.write('\\n');
}
main().catch((err) => { console.error(err); process.exitCode = 1; });
`;

export async function startupBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-startup-'));
  const server = await FakeLlmServer.start();
  try {
    const bare = await bundleBare(base);
    const cwd = join(base, 'project');
    mkdirSync(cwd);
    const env = personEnv(join(base, 'home'), { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, TERM: 'xterm-256color' });
    const offered = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    const cache = `the launcher's V8 code cache${offered ? " (and Node's compile cache for later modules)" : ''}, Node ${process.versions.node}`;
    const piped = await side(server, bare, cwd, env, false);
    console.log(
      `Start-up, one-shot 'hi', spawn → exit, median of ${RUNS} (${cache}): crow run ${median(piped.crow).toFixed(0)} ms vs bare-SDK bundle ` +
        `${median(piped.sdk).toFixed(0)} ms, ratio ${(median(piped.crow) / median(piped.sdk)).toFixed(2)} (target ≤ 1.4)`,
    );
    if (!onPath('script')) {
      console.log("  on a terminal: not measured (script(1), from util-linux, is not installed)");
      return;
    }
    const terminal = await side(server, bare, cwd, env, true);
    console.log(
      `  on a terminal (markdown rendered): crow run ${median(terminal.crow).toFixed(0)} ms vs bare-SDK bundle ${median(terminal.sdk).toFixed(0)} ms, ` +
        `ratio ${(median(terminal.crow) / median(terminal.sdk)).toFixed(2)}; crow on a terminal vs piped ${(median(terminal.crow) / median(piped.crow)).toFixed(2)}`,
    );
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** crow and the bare bundle run alternately, RUNS times each after one warm-up (which fills the caches); wall ms. */
async function side(server: FakeLlmServer, bare: string, cwd: string, env: NodeJS.ProcessEnv, terminal: boolean): Promise<{ crow: number[]; sdk: number[] }> {
  const crow: number[] = [];
  const sdk: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const c = await wall(server, [CROW, 'run', 'hi', '--no-undo'], cwd, env, terminal);
    const b = await wall(server, [bare, 'hi'], cwd, env, terminal);
    if (run > 0) {
      crow.push(c);
      sdk.push(b);
    }
  }
  return { crow, sdk };
}

function onPath(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

async function bundleBare(base: string): Promise<string> {
  const source = join(base, 'bare.ts');
  writeFileSync(source, BARE);
  const outfile = join(base, 'bare.js');
  await esbuild.build({ entryPoints: [source], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', nodePaths: [resolve(__dirname, '../node_modules')] });
  return outfile;
}

/**
 * Wall ms from spawn to exit of `node args`, the fake answering with a line of markdown; on a terminal,
 * inside a pseudo-terminal that script(1) makes (-e: its exit code is the command's).
 */
function wall(server: FakeLlmServer, args: string[], cwd: string, env: NodeJS.ProcessEnv, terminal: boolean): Promise<number> {
  server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello, **there**.' }] });
  const command = [process.execPath, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = terminal
      ? spawn('script', ['-qefc', command, '/dev/null'], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(performance.now() - started) : fail(new Error(`${args[0]} exited ${code}: ${stderr}`))));
  });
}
