/**
 * Trace viewer: first render of a 10,000-span session in headless Chromium
 * (Debian's /usr/bin/chromium through playwright-core), from navigation to
 * the first rows on screen with every span loaded; median of 3 fresh pages,
 * target under 1 s. Needs the built viewer (`npm run bench` builds it).
 * Prints a skip line when Chromium is not installed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { defaultAssetsDir, serveTrace } from '../src/adapters/cli/trace-serve';
import type { SpanRecord } from '../src/telemetry/span';
import { fmt, median } from './common';

const CHROMIUM = '/usr/bin/chromium';
const SPANS = 10_000;
const RUNS = 3;
const TARGET_MS = 1_000;

export async function traceViewerBenchmark(): Promise<void> {
  console.log(`Trace viewer: first render of ${fmt(SPANS)} spans in headless Chromium, median of ${RUNS}, ms`);
  if (!existsSync(CHROMIUM)) {
    console.log(`  skipped: no ${CHROMIUM} (apt-get install -y chromium)`);
    return;
  }
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-trace-viewer-'));
  const traceFile = join(base, 'trace.jsonl');
  writeFileSync(traceFile, syntheticTrace(SPANS).map((span) => `${JSON.stringify(span)}\n`).join(''));
  const server = await serveTrace({ traceFile, assetsDir: defaultAssetsDir() });
  const browser = await chromium.launchPersistentContext(join(base, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage();
      const start = performance.now();
      await page.goto(server.url);
      await page.waitForSelector(`html[data-span-count="${SPANS}"] .row`);
      times.push(performance.now() - start);
      await page.close();
    }
    const ms = median(times);
    console.log(`  ${Math.round(ms)} ms (runs: ${times.map(Math.round).join(', ')}); under ${TARGET_MS} ms: ${ms < TARGET_MS ? 'yes' : 'no'}`);
  } finally {
    await browser.close();
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** Prompts of agent turns, each with LLM calls, tool calls, a subagent and a handoff, `size` spans in all. */
function syntheticTrace(size: number): SpanRecord[] {
  const spans: SpanRecord[] = [];
  let clock = Date.UTC(2026, 0, 1);
  const add = (kind: SpanRecord['kind'], name: string, parent: SpanRecord | undefined, attributes: SpanRecord['attributes'] = {}): SpanRecord => {
    const span: SpanRecord = {
      traceId: parent?.traceId ?? `trace-${spans.length}`,
      spanId: `span-${spans.length}`,
      parentSpanId: parent?.spanId,
      kind,
      name,
      agent: kind === 'prompt' ? undefined : 'builder',
      start: clock,
      end: clock + 200 + (spans.length % 7) * 150,
      status: spans.length % 97 === 0 ? 'error' : 'ok',
      attributes,
    };
    clock += 120;
    spans.push(span);
    return span;
  };
  while (spans.length < size) {
    const prompt = add('prompt', 'prompt', undefined, { 'crow.prompt': `Prompt ${spans.length}` });
    const turn = add('agent_turn', 'invoke_agent builder', prompt);
    for (let i = 0; i < 40 && spans.length < size - 2; i++) {
      const parent = i % 10 === 9 ? add('subagent', 'invoke_agent explorer', turn) : turn;
      add('llm_call', 'chat claude-sonnet-4-5', parent, { 'gen_ai.request.model': 'claude-sonnet-4-5', 'gen_ai.usage.input_tokens': 1200 + i, 'gen_ai.usage.output_tokens': 80, 'crow.cost_usd': 0.004 });
      add('tool', 'execute_tool read_file', parent, { 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.arguments': `{"path":"src/file-${i}.ts"}` });
    }
    add('handoff', 'handoff review', turn, { 'crow.handoff.to': 'reviewer', 'crow.handoff.purpose': 'review' });
  }
  return spans.slice(0, size);
}
