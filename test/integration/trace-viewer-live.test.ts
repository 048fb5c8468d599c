import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { serveTrace, type TraceServer } from '../../src/adapters/cli/trace-serve';
import { SessionStore } from '../../src/session/session-store';
import type { SpanRecord } from '../../src/telemetry/span';
import { buildViewer, showSpanNames, launchChromium, requireChromium, watchedPage } from './trace-viewer-chromium';

const SESSION = 'live-session';
const ARTIFACTS = resolve(__dirname, '..', 'artifacts');

/**
 * A session being recorded, as `crow trace --serve` sees it while another
 * process runs the prompt: trace.jsonl gets each span's start record, then
 * its ended record.
 */
describe('trace viewer: spans appear when they start and update in place when they end (headless Chromium)', function () {
  this.timeout(60_000);
  let base: string;
  let traceFile: string;
  let recording = true;
  let server: TraceServer;
  let browser: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const now = Date.now();
  const prompt: SpanRecord = { traceId: 'a'.repeat(32), spanId: 'p'.repeat(16), kind: 'prompt', name: 'prompt build', start: now - 4_000, attributes: {} };
  const llm: SpanRecord = { traceId: prompt.traceId, spanId: 'l'.repeat(16), parentSpanId: prompt.spanId, kind: 'llm_call', name: 'chat m', agent: 'builder', start: now - 3_900, attributes: {} };
  const tool: SpanRecord = {
    traceId: prompt.traceId,
    spanId: 't'.repeat(16),
    parentSpanId: prompt.spanId,
    kind: 'tool',
    name: 'execute_tool bash',
    agent: 'builder',
    start: now - 1_000,
    attributes: { 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.id': 'call-1', 'gen_ai.tool.call.arguments': '{"command":"npm test"}' },
  };
  const append = (record: SpanRecord): void => appendFileSync(traceFile, `${JSON.stringify(record)}\n`);
  const row = (name: string) => page.locator('.row', { hasText: name });

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-live-'));
    await buildViewer(join(base, 'webview'));
    const store = new SessionStore({ dataHome: join(base, 'data') });
    mkdirSync(join(store.root, SESSION), { recursive: true });
    writeFileSync(join(store.root, SESSION, 'meta.json'), JSON.stringify({ id: SESSION, agentName: 'build', cwd: base, title: 't', createdAt: 0, updatedAt: 0, models: {}, todos: [], internal: [] }));
    traceFile = store.traceFile(SESSION);
    writeFileSync(traceFile, '');
    append(prompt);
    append(llm);
    append({ ...llm, end: now - 2_000, status: 'ok', attributes: { 'gen_ai.usage.output_tokens': 12 } });
    server = await serveTrace({ traceFile, isRecording: () => recording, assetsDir: join(base, 'webview') });
    browser = await launchChromium(join(base, 'profile'));
    page = await watchedPage(browser, problems);
    await page.goto(server.url);
    await page.waitForSelector('html[data-recording="true"][data-span-count="2"] .row');
    // These checks find rows by span name: the Spans view shows them.
    await showSpanNames(page);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('shows the running prompt as running, its bar reaching to now', async () => {
    assert.deepEqual(await page.locator('.row .name').allTextContents(), ['prompt build', 'chat m']);
    assert.match((await row('prompt build').getAttribute('class')) ?? '', /status-running/);
    assert.match(await row('prompt build').locator('.took').innerText(), /^running \d/);
    assert.match((await row('chat m').getAttribute('class')) ?? '', /status-ok/);
    // The model has no price: the totals say nothing of cost rather than a made-up "$0".
    assert.match(await row('prompt build').locator('.summary').innerText(), /^1 LLM · 0 tools · 0 in \/ 12 out$/);
    // Read in one go in the page: the running bar is redrawn as time passes, so two reads could see two elements.
    const gap = await row('prompt build').evaluate((element) => {
      const bar = element.querySelector('.bar')!.getBoundingClientRect();
      const cell = element.querySelector('.bar-cell')!.getBoundingClientRect();
      return Math.abs(bar.right - cell.right);
    });
    assert.ok(gap <= 2, `the running bar ends at the right edge (now), not ${gap}px before it`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-live.png') });
  });

  it('adds a span when it starts, marked running, with what it was asked', async () => {
    append(tool);
    await row('execute_tool bash').waitFor();
    assert.match((await row('execute_tool bash').getAttribute('class')) ?? '', /status-running/);
    await row('execute_tool bash').click();
    const details = await page.locator('.details').innerText();
    assert.match(details, /status\s+running/);
    assert.match(details, /so far/);
    assert.match(details, /npm test/);
  });

  it('updates the same row in place when the span ends: status, duration, attributes', async () => {
    append({ ...tool, end: tool.start + 1_500, status: 'error', statusMessage: 'exit code 1', attributes: { ...tool.attributes, 'crow.tool.status': 'error' } });
    await page.waitForSelector('.row.status-error:has-text("execute_tool bash")');
    assert.equal(await page.locator('.row').count(), 3, 'no second row for the same span');
    assert.equal(await row('execute_tool bash').locator('.took').innerText(), '1.5s');
    assert.match((await row('execute_tool bash').getAttribute('class')) ?? '', /selected/, 'still selected');
    const details = await page.locator('.details').innerText();
    assert.match(details, /status\s+error/);
    assert.match(details, /exit code 1/);
  });

  it('marks spans that never ended as unfinished once the recording process is gone', async () => {
    recording = false;
    await page.waitForSelector('html[data-recording="false"] .row.status-unfinished');
    assert.equal(await row('prompt build').locator('.took').innerText(), 'unfinished');
    await page.selectOption('#filter-status', 'unfinished');
    assert.deepEqual(await page.locator('.row .name').allTextContents(), ['prompt build']);
    await row('prompt build').click();
    assert.match(await page.locator('.details').innerText(), /stopped before this span ended/);
    await page.selectOption('#filter-status', '');
    assert.deepEqual(problems, []);
  });
});
