/**
 * Start-up of a one-shot run: the whole wall time of `crow run hi` (spawn
 * to exit, the fake model answering at once) against a one-shot written on
 * the bare Anthropic SDK and bundled the same way (esbuild, one file), run
 * alternately; median ms and the ratio (target ≤ 1.4). Each figure is a
 * fresh process; the launcher's code cache is warm after the first run,
 * as it is for a person who runs crow twice. The bench's output is a pipe;
 * on a terminal, a run also loads the markdown renderer (dist/markdown.js),
 * timed apart (median ms of a fresh process's require). Build first.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as nodeModule from 'node:module';
import * as esbuild from 'esbuild';
import { FakeLlmServer } from '../src/testing/fake-llm-server';
import { isolatedEnv } from '../test/support/isolated-env';
import { median } from './common';

const CROW = resolve(__dirname, '../dist/crow.js');
const MARKDOWN = resolve(__dirname, '../dist/markdown.js');
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
    const env = isolatedEnv(join(base, 'home'), { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const crow: number[] = [];
    const sdk: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const c = await wall(server, [CROW, 'run', 'hi', '--no-undo'], cwd, env);
      const b = await wall(server, [bare, 'hi'], cwd, env);
      // The first run of each fills the compile cache.
      if (run > 0) {
        crow.push(c);
        sdk.push(b);
      }
    }
    const offered = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    const cache = `the launcher's V8 code cache${offered ? " (and Node's compile cache for later modules)" : ''}, Node ${process.versions.node}`;
    console.log(
      `Start-up, one-shot 'hi', spawn → exit, median of ${RUNS} (${cache}): crow run ${median(crow).toFixed(0)} ms vs bare-SDK bundle ` +
        `${median(sdk).toFixed(0)} ms, ratio ${(median(crow) / median(sdk)).toFixed(2)} (target ≤ 1.4)`,
    );
    // As in a run: Node's compile cache on where Node offers it (the launcher turns it on), warm after the first load.
    const renderer: number[] = [];
    const compileCache = join(base, 'compile-cache');
    for (let run = 0; run <= RUNS; run++) {
      const ms = await rendererLoad(compileCache);
      if (run > 0) renderer.push(ms);
    }
    console.log(`  on a terminal a run also loads the markdown renderer (dist/markdown.js): ${median(renderer).toFixed(0)} ms, median of ${RUNS}`);
  } finally {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** Milliseconds a fresh process takes to require dist/markdown.js (what a run writing to a terminal adds), with Node's compile cache in `cache` where offered. */
function rendererLoad(cache: string): Promise<number> {
  const script =
    `const { enableCompileCache } = require('node:module'); if (enableCompileCache) enableCompileCache(${JSON.stringify(cache)});` +
    `const started = performance.now(); require(${JSON.stringify(MARKDOWN)}); process.stdout.write(String(performance.now() - started));`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(Number(out)) : fail(new Error(`loading ${MARKDOWN} exited ${code}`))));
  });
}

async function bundleBare(base: string): Promise<string> {
  const source = join(base, 'bare.ts');
  writeFileSync(source, BARE);
  const outfile = join(base, 'bare.js');
  await esbuild.build({ entryPoints: [source], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', nodePaths: [resolve(__dirname, '../node_modules')] });
  return outfile;
}

function wall(server: FakeLlmServer, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(performance.now() - started) : fail(new Error(`${args[0]} exited ${code}: ${stderr}`))));
  });
}
