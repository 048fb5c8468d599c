import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { tracePageHtml } from '../../src/adapters/vscode/traces/trace-page';
import type { SpanRecord } from '../../src/telemetry/span';
import type { HostMessage, ViewerMessage } from '../../webview/trace-viewer/protocol';
import { buildViewer, EPOCH, launchChromium, pickExport, recordFixture, requireChromium, showSpanNames, watchedPage } from './trace-viewer-chromium';

const ORIGIN = 'https://webview.test';

/** The fixture as a trace.jsonl holds it: each span's start record where it starts, its ended record where it ends. */
function storedLines(spans: SpanRecord[]): string[] {
  const events = spans.flatMap((span) => [
    { at: span.start, line: JSON.stringify({ ...span, end: undefined, status: undefined, statusMessage: undefined }) },
    { at: span.end!, line: JSON.stringify(span) },
  ]);
  return events.sort((a, b) => a.at - b.at).map((event) => `${event.line}\n`);
}

/**
 * What a person can do while a stored trace is still loading, with the
 * pieces handed over one by one as the VS Code trace panel sends them:
 * what has loaded shows, filters and search follow what arrives, Next
 * error and export say what they wait for, and a span whose end has not
 * arrived is "loading", never "unfinished".
 */
describe('trace viewer while a stored trace loads, piece by piece (headless Chromium)', function () {
  this.timeout(60_000);
  let base: string;
  let browser: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const lines = storedLines(recordFixture());
  const total = lines.join('').length;
  let read = 0;

  const host = async (message: HostMessage): Promise<void> => void (await page.evaluate(`window.postMessage(${JSON.stringify(message)}, '*')`));
  const sent = (): Promise<ViewerMessage[]> => page.evaluate('window.__sent') as Promise<ViewerMessage[]>;
  /** Hands over the next `count` lines as one piece, and waits for the viewer to answer it. */
  const piece = async (count: number, extra = ''): Promise<void> => {
    const text = lines.splice(0, count).join('') + extra;
    read += text.length;
    const answered = (await sent()).filter((m) => m.type === 'stored-taken').length;
    await host({ type: 'stored', lines: text, read, total });
    await page.waitForFunction((n) => (window as unknown as { __sent: ViewerMessage[] }).__sent.filter((m) => m.type === 'stored-taken').length > n, answered);
  };

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-loading-'));
    const assets = join(base, 'webview');
    await buildViewer(assets);
    browser = await launchChromium(join(base, 'profile'));
    const html = tracePageHtml({ cspSource: ORIGIN, scriptUri: `${ORIGIN}/viewer.js`, styleUri: `${ORIGIN}/viewer.css`, nonce: 'bm9uY2Utb2YtdGhlLXRlc3Q=' });
    await browser.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/index.html') return route.fulfill({ contentType: 'text/html', body: html });
      if (path === '/viewer.js' || path === '/viewer.css') return route.fulfill({ contentType: path.endsWith('.js') ? 'text/javascript' : 'text/css', body: readFileSync(join(assets, path.slice(1))) });
      return route.fulfill({ status: 404, body: '' });
    });
    page = await watchedPage(browser, problems);
    await page.addInitScript({
      content: `window.__sent = []; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(JSON.parse(JSON.stringify(m))), getState: () => undefined, setState: () => undefined });`,
    });
    await page.goto(`${ORIGIN}/index.html`);
    await page.waitForFunction('window.__sent.length > 0');
    await host({ type: 'recording', recording: false });
    await host({ type: 'stored', lines: '', read: 0, total });
    await showSpanNames(page);
  });

  after(async () => {
    await browser?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('shows what has loaded, with the progress, and reads a span whose end has not arrived as loading', async () => {
    await piece(3);
    await page.waitForSelector('html[data-loading="true"] .row');
    assert.deepEqual(await page.locator('.row .name').allTextContents(), ['prompt', 'invoke_agent builder', 'chat claude-sonnet-4-5']);
    assert.match(await page.locator('#load-progress').innerText(), /^Loading: 3 spans so far \(\d+%\)$/);
    const prompt = page.locator('.row', { hasText: 'prompt' }).first();
    assert.match((await prompt.getAttribute('class')) ?? '', /status-loading/);
    assert.equal(await prompt.locator('.took').innerText(), 'loading');
    await prompt.click();
    assert.match(await page.locator('.details').innerText(), /status\s+loading[\s\S]*further on in the trace, which is still loading/);
    assert.equal((await sent()).filter((m) => m.type === 'stored-taken').length, 2, 'each piece answered, so the host sends the next');
  });

  it('searches and filters what has loaded, and follows as more arrives', async () => {
    await page.fill('#search', 'make');
    await page.locator('.counter', { hasText: '0 of 3 spans' }).waitFor();
    await page.click('#next-error');
    assert.match(await page.locator('#notice').innerText(), /^No errors in the spans loaded so far \(\d+%\)\.$/);
    await piece(2);
    await page.locator('.counter', { hasText: '3 of 4 spans' }).waitFor();
    assert.deepEqual(await page.locator('.row .name').allTextContents(), ['prompt', 'invoke_agent builder', 'execute_tool bash'], 'the bash call, which ran `make`, as it arrives');
    await page.fill('#search', '');
    await page.locator('.counter', { hasText: '4 of 4 spans' }).waitFor();
    await piece(3);
    await page.click('#next-error');
    await page.locator('.row.selected', { hasText: 'execute_tool bash' }).waitFor();
  });

  it('waits for the whole trace before exporting, says so, then exports every span', async () => {
    await pickExport(page, 'export');
    assert.match(await page.locator('#notice').innerText(), /^Exporting once the whole trace has loaded \(\d+% so far\)…$/);
    assert.ok(!(await sent()).some((m) => m.type === 'export'), 'no export of a part of the trace');
    await piece(lines.length, 'not a span record\n{"json": "but no span"}\n\n');
    await host({ type: 'stored-end' });
    await page.waitForSelector('html[data-loading="false"][data-span-count="9"]');
    await page.waitForFunction(() => (window as unknown as { __sent: ViewerMessage[] }).__sent.some((m) => m.type === 'export'));
    const exported = (await sent()).find((m) => m.type === 'export');
    assert.equal(exported?.type === 'export' ? exported.spanCount : 0, 9);
    assert.equal(await page.locator('#load-progress').isVisible(), false);
    assert.match((await page.locator('.row', { hasText: 'prompt' }).first().getAttribute('class')) ?? '', /status-ok/, 'its end arrived');
  });

  it('says how many lines held no span record, and makes spans that never ended unfinished once the trace is in', async () => {
    assert.equal(await page.locator('#notice').innerText(), 'Skipped 2 lines of the trace that held no span record.');
    const open: SpanRecord = { traceId: 'o', spanId: 'open-span-00001', kind: 'prompt', name: 'prompt never ended', start: EPOCH + 9_500, attributes: {} };
    await host({ type: 'stored', lines: `${JSON.stringify(open)}\n`, read: 0, total: 1 });
    await page.locator('.row.status-loading', { hasText: 'prompt never ended' }).waitFor();
    await host({ type: 'stored-end', error: 'Could not read the trace: EIO: i/o error, read' });
    await page.locator('.row.status-unfinished', { hasText: 'prompt never ended' }).waitFor();
    assert.equal(await page.locator('#notice').innerText(), 'Could not read the trace: EIO: i/o error, read');
    assert.deepEqual(problems, []);
  });
});
