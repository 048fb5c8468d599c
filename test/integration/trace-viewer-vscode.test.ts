import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { tracePageHtml } from '../../src/adapters/vscode/traces/trace-page';
import type { OtlpTraceRequest } from '../../src/telemetry/otlp-json';
import type { SpanRecord } from '../../src/telemetry/span';
import type { HostMessage, ViewerMessage } from '../../webview/trace-viewer/protocol';
import { buildViewer, pickExport, showSpanNames, EPOCH, launchChromium, recordFixture, requireChromium, watchedPage } from './trace-viewer-chromium';

/** Stands in for a webview's origin (vscode-resource URLs in VS Code). */
const ORIGIN = 'https://webview.test';
const ARTIFACTS = resolve(__dirname, '..', 'artifacts');

/**
 * The viewer as the VS Code trace panel hosts it: the panel's own page and
 * CSP, `acquireVsCodeApi` present, spans arriving by postMessage and export
 * and copy requests going back to the host, which does the saving.
 */
describe('trace viewer in a VS Code webview: the postMessage transport (headless Chromium)', function () {
  this.timeout(60_000);
  let base: string;
  let browser: BrowserContext;
  let page: Page;
  let fixture: SpanRecord[];
  const problems: string[] = [];

  /** Delivers a message as the trace panel's webview.postMessage does: a message event on the page's window. */
  const host = async (message: HostMessage): Promise<void> => void (await page.evaluate(`window.postMessage(${JSON.stringify(message)}, '*')`));
  const sent = (): Promise<ViewerMessage[]> => page.evaluate('window.__sent') as Promise<ViewerMessage[]>;

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-webview-'));
    const assets = join(base, 'webview');
    await buildViewer(assets);
    fixture = recordFixture();
    browser = await launchChromium(join(base, 'profile'));
    const html = tracePageHtml({ cspSource: ORIGIN, scriptUri: `${ORIGIN}/viewer.js`, styleUri: `${ORIGIN}/viewer.css`, nonce: 'bm9uY2Utb2YtdGhlLXRlc3Q=' });
    await browser.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/index.html') return route.fulfill({ contentType: 'text/html', body: html });
      if (path === '/viewer.js' || path === '/viewer.css') {
        return route.fulfill({ contentType: path.endsWith('.js') ? 'text/javascript' : 'text/css', body: readFileSync(join(assets, path.slice(1))) });
      }
      return route.fulfill({ status: 404, body: '' });
    });
    page = await watchedPage(browser, problems);
    // As in VS Code: a global acquireVsCodeApi whose postMessage goes to the host (here, a list the test reads).
    // A string, not a function: tsx would wrap a function with helpers the page does not have.
    await page.addInitScript({
      content: `window.__sent = []; window.__violations = [];
        window.__state = undefined;
        window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(JSON.parse(JSON.stringify(m))), getState: () => window.__state, setState: (s) => (window.__state = s) });
        document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    });
    await page.goto(`${ORIGIN}/index.html`);
    await page.waitForFunction('window.__sent.length > 0');
  });

  after(async () => {
    await browser?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('says it is ready, then shows the spans the host sends', async () => {
    assert.deepEqual(await sent(), [{ type: 'ready' }]);
    await host({ type: 'recording', recording: false });
    await host({ type: 'spans', spans: fixture });
    await page.waitForSelector('html[data-span-count="9"] .row');
    assert.equal(await page.locator('.row').count(), 9);
  });

  it('keeps Story | Spans in the webview state, next to the session the panel serializer needs', async () => {
    await host({ type: 'session', sessionId: 's-1', title: 'A session' });
    assert.equal(await page.getAttribute('html', 'data-mode'), 'story', 'the story view by default');
    // The checks below find rows by span name: the Spans view shows them.
    await showSpanNames(page);
    assert.deepEqual(await page.evaluate('window.__state'), { sessionId: 's-1', title: 'A session', mode: 'spans' });
  });

  it('updates a span in place and ignores a late start record of a span that ended', async () => {
    const write = fixture.find((span) => span.name === 'execute_tool write_file')!;
    await host({ type: 'spans', spans: [{ ...write, attributes: { ...write.attributes, 'crow.tool.status': 'error' }, status: 'error', statusMessage: 'disk full' }] });
    await page.waitForSelector('.row.status-error:has-text("execute_tool write_file")');
    await host({ type: 'spans', spans: [{ ...write, end: undefined, status: undefined }] });
    await host({ type: 'recording', recording: false });
    await page.waitForSelector('html[data-recording="false"]');
    assert.match((await page.locator('.row', { hasText: 'execute_tool write_file' }).getAttribute('class')) ?? '', /status-error/);
    assert.equal(await page.locator('.row').count(), 9);
  });

  it('reveals the tool span of a tool call, opening its collapsed parents', async () => {
    await page.locator('.row', { hasText: 'invoke_agent builder' }).locator('.toggle').click();
    assert.equal(await page.locator('.row', { hasText: 'execute_tool write_file' }).count(), 0);
    await host({ type: 'reveal', callId: 'call-write' });
    await page.waitForSelector('.row.selected:has-text("execute_tool write_file")');
    assert.match(await page.locator('.details').innerText(), /a\.txt/);
  });

  it('reveals a tool call whose span arrives after the request', async () => {
    await host({ type: 'reveal', callId: 'call-late' });
    const reviewer = fixture.find((span) => span.name === 'invoke_agent reviewer')!;
    const late: SpanRecord = { ...reviewer, spanId: 'late-tool-span1', parentSpanId: reviewer.spanId, kind: 'tool', name: 'execute_tool grep', start: EPOCH + 8_000, end: EPOCH + 8_100, attributes: { 'gen_ai.tool.call.id': 'call-late' } };
    await host({ type: 'spans', spans: [late] });
    await page.waitForSelector('.row.selected:has-text("execute_tool grep")');
  });

  it('asks the host to save and to copy, instead of downloading or touching the clipboard', async () => {
    await pickExport(page, 'export-otlp');
    await pickExport(page, 'copy');
    const [, exported, copied] = await sent();
    assert.equal(exported?.type, 'export');
    assert.equal(copied?.type, 'copy');
    if (exported?.type !== 'export' || copied?.type !== 'copy') return;
    assert.equal(exported.format, 'otlp-json');
    assert.equal(exported.fileName, 'trace.otlp.json');
    assert.equal(exported.spanCount, 10);
    const otlp = JSON.parse(exported.content) as OtlpTraceRequest;
    assert.equal(otlp.resourceSpans[0]!.scopeSpans[0]!.spans.length, 10);
    assert.equal(copied.format, 'json');
    assert.equal((JSON.parse(copied.content) as SpanRecord[]).length, 10);

    await host({ type: 'notice', text: 'Saved OTLP JSON of 10 spans to /tmp/x.json.' });
    await page.locator('#notice', { hasText: 'Saved OTLP JSON of 10 spans to /tmp/x.json.' }).waitFor();
  });

  it('runs under the panel\'s CSP without a single violation', async () => {
    assert.deepEqual(await page.evaluate('window.__violations'), []);
    assert.deepEqual(problems, []);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-vscode.png') });
  });
});
