/**
 * How much of what Crow sends is read from Anthropic's prompt cache over a
 * reviewed run: `crow run --agent pair` through the real binary, against the
 * fake server simulating the cache the way the API documents it (prefix
 * match on tools → system → messages up to each breakpoint, 20-block
 * lookback, per-model minimum, tool_choice and thinking invalidating the
 * message level). Beside it, the same requests with the builder's summary
 * turn sent without tools, as Crow sent it before (the API now refuses
 * that shape; the figure shows what it also cost the cache).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../testkit/fake-llm-server';
import { PromptCache } from '../testkit/prompt-cache';

const CROW = resolve(__dirname, '../dist/crow.js');
const TOOL_STEPS = 20;

const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'text', text: 'Next, a look at the code.' }, { type: 'tool_call', name, arguments: args }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** The builder explores and fixes in TOOL_STEPS calls, stops in text, summarises; the reviewer checks and approves. */
function pairRun(): ScriptedReply[] {
  const steps: ScriptedReply[] = [];
  for (let i = 0; i < TOOL_STEPS - 2; i++) {
    steps.push(i % 3 === 2 ? call('grep', { pattern: `helper${i}`, path: 'src' }) : call('read_file', { path: `src/module${i % 6}.js` }));
  }
  steps.push(call('write_file', { path: 'src/module0.js', content: moduleSource(0).replace('a - b', 'a + b') }), call('bash', { command: 'node test.js' }));
  steps.push(say('Fixed add() in src/module0.js; the test passes.'), say('Changed add() to return a + b in src/module0.js; node test.js passes.'));
  steps.push(call('bash', { command: 'node test.js' }), { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Verified: node test.js passes.' } }] });
  return steps;
}

function moduleSource(n: number): string {
  const helpers = Array.from({ length: 30 }, (_, i) => `function helper${n * 30 + i}(x) {\n  return x * ${i + 1};\n}\n`).join('');
  return `${helpers}exports.add = (a, b) => a - b;\n`;
}

function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number | null> {
  const child = spawn(process.execPath, [CROW, ...args], { cwd, env, stdio: 'ignore' });
  return new Promise((done) => child.on('close', done));
}

/** The share of input tokens read from the cache over the requests after the first, replayed through a fresh cache. */
function readShare(bodies: Record<string, any>[]): number {
  const cache = new PromptCache();
  let read = 0;
  let all = 0;
  bodies.forEach((body, index) => {
    const usage = cache.account(body);
    if (index === 0) return;
    read += usage.cacheRead;
    all += usage.input + usage.cacheRead + usage.cacheWrite;
  });
  return read / all;
}

export async function promptCacheBenchmark(): Promise<void> {
  const server = await FakeLlmServer.start({ promptCache: true });
  const home = mkdtempSync(join(tmpdir(), 'crow-bench-cache-'));
  const workspace = join(home, 'ws');
  try {
    mkdirSync(join(workspace, 'src'), { recursive: true });
    for (let n = 0; n < 6; n++) writeFileSync(join(workspace, 'src', `module${n}.js`), moduleSource(n));
    writeFileSync(join(workspace, 'test.js'), "require('assert').equal(require('./src/module0').add(2, 3), 5);\n");
    server.enqueue('anthropic', ...pairRun());
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    const code = await run(['run', 'Fix add() in src/module0.js', '--agent', 'pair', '--allow', 'all', '--no-undo'], env, workspace);
    const bodies = server.requestsFor('anthropic').map((request) => request.body as Record<string, any>);
    if (code !== 0 || server.takeRefusals().length > 0) throw new Error(`the pair run failed (exit ${code})`);

    const before = bodies.map((body) => {
      if (body.tool_choice?.type !== 'none') return body;
      const { tools: _tools, tool_choice: _choice, ...rest } = body;
      return rest;
    });
    console.log(`prompt cache (Anthropic's, simulated by the fake): crow run --agent pair, ${bodies.length} model calls (${TOOL_STEPS} tool steps, a summary turn, a review)`);
    console.log(`  ${'input tokens read from cache after the first call'.padEnd(64)} ${readShare(bodies).toFixed(2)}   (target ≥ 0.80)`);
    console.log(`  ${'the same with the summary turn sent without tools (before)'.padEnd(64)} ${readShare(before).toFixed(2)}`);
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
