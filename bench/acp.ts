/**
 * `crow acp` costs, side by side with their floors:
 * - start-up: spawn → initialize answer of the bundled binary against an
 *   ACP agent made of the SDK alone (median of STARTS, ratio; target ≤ 1.3×);
 * - streaming: one-token text chunks from the fake LLM server through the
 *   binary to an SDK client, against the Anthropic SDK consuming the same
 *   stream in-process (chunks/s, ratio; target ≥ 0.6);
 * - first chunk: from session/prompt to the first agent_message_chunk
 *   through the binary, against the engine called in-process (ACPAgent.run
 *   to its first text_delta), on a model that answers like a real one
 *   (a pause before each wire event) (median, ratio; target ≤ 1.2).
 * Build first (`node esbuild.mjs`). Prints figures; never fails on time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import Anthropic from '@anthropic-ai/sdk';
import * as acp from '@agentclientprotocol/sdk';
import { resolveSettings } from '../src/config/provider-config';
import { loadCatalog } from '../src/host/folder';
import { ACPSession } from '../src/session/acp-session';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { fmt, median, timed } from './common';

const CROW = resolve(__dirname, '../dist/crow.js');
const ECHO = resolve(__dirname, 'acp-echo-agent.mjs');
const STARTS = 7;
const CHUNKS = 20_000;
const RUNS = 5;
/** How long the fake model pauses before each wire event in the first-chunk benchmark: a real model's time to first token. */
const FIRST_CHUNK_PAUSE_MS = 40;
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: acp.PROTOCOL_VERSION } })}\n`;

/** Milliseconds from spawning `args` to the first line of its answer to initialize. */
function startUp(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write(INITIALIZE);
  return new Promise((done, fail) => {
    let output = '';
    let elapsed: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (elapsed !== undefined || !output.includes('\n')) return;
      elapsed = performance.now() - started;
      child.stdin.end();
    });
    child.once('error', fail);
    child.once('close', () => {
      if (elapsed !== undefined && output.includes('"protocolVersion"')) done(elapsed);
      else fail(new Error(`${args.join(' ')} did not answer initialize: ${output || '(no output)'}`));
    });
  });
}

/** The Anthropic SDK reading the scripted stream in-process: text chunks seen. */
async function anthropicChunks(server: FakeLlmServer): Promise<number> {
  const client = new Anthropic({ apiKey: 'bench', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
  const stream = await client.messages.create({ model: 'bench', max_tokens: 100_000, messages: [{ role: 'user', content: 'go' }], stream: true });
  let count = 0;
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') count++;
  return count;
}

/** A running `crow acp` with one session, and the text its prompts stream back. */
interface CrowSession {
  prompt(): Promise<number>;
  /** Milliseconds from sending session/prompt to the first agent_message_chunk (the prompt is then run to its end). */
  firstChunk(): Promise<number>;
  close(): Promise<void>;
}

async function crowSession(env: NodeJS.ProcessEnv, cwd: string): Promise<CrowSession> {
  const child = spawn(process.execPath, [CROW, 'acp'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  let received = '';
  let onChunk: (() => void) | undefined;
  const connection = acp
    .client({ name: 'bench' })
    .onNotification('session/update', ({ params }) => {
      const { update } = params;
      if (update.sessionUpdate !== 'agent_message_chunk' || update.content.type !== 'text') return;
      received += update.content.text;
      onChunk?.();
      onChunk = undefined;
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>));
  await connection.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request('session/new', { cwd, mcpServers: [] });
  return {
    async prompt() {
      received = '';
      const answer = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
      if (answer.stopReason !== 'end_turn') throw new Error(`crow acp stopped with ${answer.stopReason}`);
      return received.length;
    },
    async firstChunk() {
      const started = performance.now();
      const first = new Promise<number>((done) => (onChunk = () => done(performance.now() - started)));
      const answer = connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
      const ms = await first;
      await answer;
      return ms;
    },
    async close() {
      connection.close();
      child.stdin.end();
      await new Promise((done) => child.once('close', done));
    },
  };
}

async function startUpBenchmark(env: NodeJS.ProcessEnv): Promise<void> {
  const crow: number[] = [];
  const echo: number[] = [];
  // One warm-up of each (disk cache), then alternate so both see the same machine conditions.
  for (let run = 0; run <= STARTS; run++) {
    const a = await startUp([ECHO], env);
    const b = await startUp([CROW, 'acp'], env);
    if (run === 0) continue;
    echo.push(a);
    crow.push(b);
  }
  const ratio = median(crow) / median(echo);
  console.log(
    `  spawn → initialize: SDK echo agent ${median(echo).toFixed(0)} ms · crow acp ${median(crow).toFixed(0)} ms · ` +
      `ratio ${ratio.toFixed(2)} (target ≤ 1.30${ratio <= 1.3 ? ', met' : ', NOT met'})`,
  );
}

async function streamingBenchmark(env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  const server = await FakeLlmServer.start();
  const tokens = Array.from({ length: CHUNKS }, (_, i) => `t${i % 10} `);
  const reply = { blocks: [{ type: 'text' as const, text: tokens }] };
  const crow = await crowSession({ ...env, ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }, cwd);
  try {
    const bareRates: number[] = [];
    const crowRates: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      server.enqueue('anthropic', reply, reply);
      const a = await timed(() => anthropicChunks(server));
      const b = await timed(() => crow.prompt());
      if (a.count !== CHUNKS || b.count !== tokens.join('').length) {
        throw new Error(`expected ${CHUNKS} chunks and ${tokens.join('').length} characters, got ${a.count} and ${b.count}`);
      }
      if (run === 0) continue;
      bareRates.push(CHUNKS / (a.ms / 1000));
      crowRates.push(CHUNKS / (b.ms / 1000));
    }
    const ratio = median(crowRates) / median(bareRates);
    // Each run's pair was measured back to back: every one of them must reach the target, not just the median.
    const perRun = crowRates.map((rate, i) => rate / bareRates[i]!);
    const lowest = Math.min(...perRun);
    console.log(
      `  text chunks: Anthropic SDK in-process ${fmt(median(bareRates))} chunks/s · through crow acp to a client ` +
        `${fmt(median(crowRates))} chunks/s · ratio ${ratio.toFixed(2)}, per run ${perRun.map((r) => r.toFixed(2)).join(' ')} ` +
        `(target ≥ 0.60 in every run${lowest >= 0.6 ? ', met' : ', NOT met'})`,
    );
  } finally {
    await crow.close();
    await server.close();
  }
}

/** The engine in-process, as the host builds it for this folder: ms from run() to the first text_delta. */
async function inProcessFirstChunk(env: NodeJS.ProcessEnv, cwd: string): Promise<() => Promise<number>> {
  const settings = resolveSettings(cwd, {}, env);
  const catalog = loadCatalog({ root: cwd, env, settings, dataHome: join(cwd, 'data') });
  const workspace = new NodeWorkspace(cwd);
  return async () => {
    const started = performance.now();
    const run = catalog.build(catalog.defaultAgent(), workspace, {}).run(new ACPSession({ cwd, agentName: 'build' }), 'go', {
      signal: new AbortController().signal,
    });
    let first: number | undefined;
    await run.forEach((event) => {
      if (event.type === 'text_delta') first ??= performance.now() - started;
    });
    if (first === undefined) throw new Error('the in-process run streamed no text');
    return first;
  };
}

async function firstChunkBenchmark(env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  const server = await FakeLlmServer.start();
  // A model that answers like a real one: a pause before every wire event, the text in two pieces.
  const reply = { blocks: [{ type: 'text' as const, text: ['Hello', ' there.'] }], latencyMs: FIRST_CHUNK_PAUSE_MS };
  const withServer = { ...env, ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
  const crow = await crowSession(withServer, cwd);
  const inProcess = await inProcessFirstChunk(withServer, cwd);
  try {
    const engine: number[] = [];
    const through: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      server.enqueue('anthropic', reply, reply);
      const a = await inProcess();
      const b = await crow.firstChunk();
      if (run === 0) continue;
      engine.push(a);
      through.push(b);
    }
    const ratio = median(through) / median(engine);
    console.log(
      `  first chunk (model pausing ${FIRST_CHUNK_PAUSE_MS} ms per wire event): engine in-process ${median(engine).toFixed(0)} ms · ` +
        `session/prompt → agent_message_chunk through crow acp ${median(through).toFixed(0)} ms · ratio ${ratio.toFixed(2)} ` +
        `(target ≤ 1.20${ratio <= 1.2 ? ', met' : ', NOT met'})`,
    );
  } finally {
    await crow.close();
    await server.close();
  }
}

export async function acpBenchmark(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'crow-acp-bench-'));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
  };
  console.log(`crow acp: start-up (median of ${STARTS}) and ${CHUNKS.toLocaleString()} one-token chunks end to end (median of ${RUNS})`);
  // The (strict) fake stops at the output cap a request sets, as the real API does: leave room for the whole reply.
  mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
  writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), `max_output_tokens = ${CHUNKS * 2}\n`);
  try {
    await startUpBenchmark(env);
    await streamingBenchmark(env, home);
    await firstChunkBenchmark(env, home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
