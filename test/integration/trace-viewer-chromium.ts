/**
 * What the trace viewer's headless-Chromium tests share: Debian's Chromium
 * through playwright-core, the viewer bundle built fresh into a temporary
 * folder, a small recorded session, and a page that fails the test on any
 * script error. Not a test file itself.
 */
import { existsSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { SpanRecord } from '../../src/telemetry/span';
import { TraceRecorder } from '../../src/telemetry/trace-recorder';
import { skipBecause } from '../support/skip-reasons';

export const CHROMIUM = '/usr/bin/chromium';
/** The skip reason of every test that needs Debian's Chromium. */
export const NO_CHROMIUM = `no ${CHROMIUM} (apt-get install -y chromium)`;
export const XSS = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">';
export const EPOCH = Date.UTC(2026, 0, 1, 12);
/** The start of the reviewer's feedback in the fixture (model output: an XSS attempt follows it). */
export const REVIEW_FEEDBACK = 'Add a test for a.txt before this goes in.';

/** Skips the suite, saying what to install, when Chromium is missing. */
export function requireChromium(context: Mocha.Context): void {
  if (!existsSync(CHROMIUM)) skipBecause(context, NO_CHROMIUM);
}

/** Builds webview/trace-viewer into `outdir` (viewer.js, viewer.css), as esbuild.mjs does. */
export async function buildViewer(outdir: string): Promise<void> {
  await esbuild.build({ entryPoints: { viewer: 'webview/trace-viewer/main.ts' }, outdir, bundle: true, platform: 'browser', format: 'iife', target: 'es2022', logLevel: 'error' });
}

/** Debian's chromium, headless, offline, with a fresh profile (playwright passes it as --user-data-dir). */
export function launchChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 700 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Picks an item of the Export menu as a person does: open the menu, then click the item. */
export async function pickExport(page: Page, id: 'export' | 'export-otlp' | 'copy' | 'copy-otlp'): Promise<void> {
  await page.click('#export-menu');
  await page.click(`#${id}`);
}

/** Switches the rows to span names (the OpenTelemetry view), for tests that find rows by them. */
export async function showSpanNames(page: Page): Promise<void> {
  await page.click('#view-spans');
  await page.waitForSelector('html[data-mode="spans"]');
}

/** A new page whose script errors and console errors (other than the favicon's 404) land in `problems`. */
export async function watchedPage(browser: BrowserContext, problems: string[]): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => message.type() === 'error' && !message.text().includes('404') && problems.push(`console: ${message.text()}`));
  return page;
}

/** Start and end (ms after EPOCH) per span name, so the waterfall shows latency and the subagent overlapping the tools. */
const TIMES: Record<string, { start: number; end: number }> = {
  prompt: { start: 1_000, end: 9_000 },
  'invoke_agent builder': { start: 1_010, end: 7_000 },
  'chat claude-sonnet-4-5': { start: 1_020, end: 3_000 },
  'execute_tool bash': { start: 3_010, end: 4_500 },
  'execute_tool write_file': { start: 4_510, end: 4_600 },
  'invoke_agent explorer': { start: 3_020, end: 6_000 },
  'chat gpt-5-mini': { start: 3_100, end: 5_900 },
  'handoff review': { start: 6_900, end: 6_950 },
  'invoke_agent reviewer': { start: 7_000, end: 9_000 },
};

/**
 * A small recorded session, as ended records: a prompt, builder and reviewer
 * turns, a subagent, LLM calls (one costing next to nothing), tools (one
 * failing, call ids call-bash and call-write), a handoff, and the
 * reviewer's verdict (it asked for changes).
 */
export function recordFixture(): SpanRecord[] {
  const ended: SpanRecord[] = [];
  const recorder = new TraceRecorder([(record, phase) => phase === 'end' && ended.push(structuredClone(record))]);
  const prompt = recorder.startTrace('prompt', 'prompt', { attributes: { 'crow.prompt': XSS } });
  const builder = prompt.child('agent_turn', 'invoke_agent builder', { agent: 'builder', role: 'primary' });
  const llm = builder.child('llm_call', 'chat claude-sonnet-4-5', { agent: 'builder' });
  llm.set({
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': 'claude-sonnet-4-5',
    'gen_ai.usage.input_tokens': 1234,
    'gen_ai.usage.output_tokens': 56,
    'gen_ai.usage.cache_read.input_tokens': 1000,
    'gen_ai.usage.reasoning.output_tokens': 7,
    'crow.time_to_first_token_ms': 420,
    'crow.cost_usd': 0.0123,
    'gen_ai.response.finish_reasons': ['tool_use'],
  });
  llm.end('ok');
  const tool = builder.child('tool', 'execute_tool bash', {
    agent: 'builder',
    attributes: { 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.id': 'call-bash', 'gen_ai.tool.call.arguments': '{"command":"make"}' },
  });
  tool.end('error', 'make: *** No rule to make target');
  const edit = builder.child('tool', 'execute_tool write_file', {
    agent: 'builder',
    attributes: { 'gen_ai.tool.call.id': 'call-write', 'crow.tool.files_modified': ['a.txt'], 'crow.tool.status': 'success' },
  });
  edit.end('ok');
  const sub = builder.child('subagent', 'invoke_agent explorer', { agent: 'explorer', role: 'subagent' });
  // A cheap call: its cost must read as something, never "$0.0000".
  const cheap = { 'gen_ai.request.model': 'gpt-5-mini', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 8, 'crow.cost_usd': 0.00002 };
  sub.child('llm_call', 'chat gpt-5-mini', { agent: 'explorer', attributes: cheap }).end('ok');
  sub.end('ok');
  const handoff = builder.child('handoff', 'handoff review', { agent: 'builder', attributes: { 'handoff.from': 'builder', 'handoff.to': 'reviewer', 'handoff.prompt': 'Please review a.txt', 'crow.handoff.purpose': 'review' } });
  handoff.end('ok');
  builder.end('ok');
  const reviewer = prompt.child('agent_turn', 'invoke_agent reviewer', { agent: 'reviewer', role: 'reviewer' });
  reviewer.set({ 'crow.review.verdict': 'feedback', 'crow.review.feedback': `${REVIEW_FEEDBACK}\n${XSS}` });
  reviewer.end('ok');
  prompt.end('ok');
  return ended.map((span) => ({ ...span, start: EPOCH + TIMES[span.name]!.start, end: EPOCH + TIMES[span.name]!.end }));
}
