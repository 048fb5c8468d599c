import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { serveTrace, type TraceServer } from '../../src/adapters/cli/trace-serve';
import { toOtlpJson, type OtlpSpan, type OtlpTraceRequest } from '../../src/telemetry/otlp-json';
import type { SpanRecord } from '../../src/telemetry/span';
import { buildViewer, pickExport, launchChromium, recordFixture, requireChromium, watchedPage } from './trace-viewer-chromium';

async function clipboardText(page: Page): Promise<string> {
  return (await page.evaluate('navigator.clipboard.readText()')) as string;
}

function spansOf(request: OtlpTraceRequest): OtlpSpan[] {
  return request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

describe('trace viewer: export and copy as JSON and OTLP JSON (headless Chromium)', function () {
  this.timeout(60_000);
  let base: string;
  let fixture: SpanRecord[];
  let server: TraceServer;
  let browser: BrowserContext;
  const problems: string[] = [];

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-export-'));
    await buildViewer(join(base, 'webview'));
    mkdirSync(join(base, 'session'));
    const traceFile = join(base, 'session', 'trace.jsonl');
    fixture = recordFixture();
    writeFileSync(traceFile, fixture.map((span) => `${JSON.stringify(span)}\n`).join(''));
    server = await serveTrace({ traceFile, assetsDir: join(base, 'webview') });
    browser = await launchChromium(join(base, 'profile'));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  afterEach(() => assert.deepEqual(problems.splice(0), []));

  async function open(setup?: (page: Page) => Promise<unknown>): Promise<Page> {
    const page = await watchedPage(browser, problems);
    await setup?.(page);
    await page.goto(server.url);
    await page.waitForSelector('html[data-span-count="9"] .row');
    return page;
  }

  it('exports OTLP JSON: every span with its ids, times, status and typed attributes', async () => {
    const page = await open();
    const [download] = await Promise.all([page.waitForEvent('download'), pickExport(page, 'export-otlp')]);
    assert.equal(download.suggestedFilename(), 'trace.otlp.json');
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as OtlpTraceRequest;
    const byStart = [...fixture].sort((a, b) => a.start - b.start);
    assert.deepEqual(exported, toOtlpJson(byStart), 'the same mapping as crow trace --otlp-json, in start order');
    const bash = spansOf(exported).find((span) => span.name === 'execute_tool bash')!;
    assert.deepEqual(bash.status, { code: 2, message: 'make: *** No rule to make target' });
    assert.match(bash.traceId, /^[0-9a-f]{32}$/);
    assert.match(bash.spanId, /^[0-9a-f]{16}$/);
    assert.equal(await page.locator('#notice').textContent(), 'Downloaded trace.otlp.json: OTLP JSON, 9 spans.');
    await page.close();
  });

  it('copies OTLP JSON and JSON to the clipboard and says so', async () => {
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    const page = await open();
    await pickExport(page, 'copy-otlp');
    await page.locator('#notice', { hasText: 'Copied OTLP JSON of 9 spans to the clipboard.' }).waitFor();
    const otlp = JSON.parse(await clipboardText(page)) as OtlpTraceRequest;
    assert.equal(spansOf(otlp).length, 9);

    await pickExport(page, 'copy');
    await page.locator('#notice', { hasText: 'Copied JSON of 9 spans to the clipboard.' }).waitFor();
    const records = JSON.parse(await clipboardText(page)) as SpanRecord[];
    assert.deepEqual(records.map((r) => r.spanId).sort(), fixture.map((r) => r.spanId).sort());
    await browser.clearPermissions();
    await page.close();
  });

  it('shows the text selected for a manual copy when the page may not use the clipboard at all', async () => {
    // A string, not a function: tsx would wrap a function with helpers the page does not have.
    const page = await open((p) =>
      p.addInitScript({
        content: "Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }); document.execCommand = () => false;",
      }),
    );
    await pickExport(page, 'copy');
    const dialog = page.locator('#manual-copy[role="dialog"]');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /press Ctrl\+C/);
    const text = await dialog.locator('textarea').inputValue();
    assert.equal((JSON.parse(text) as SpanRecord[]).length, 9);
    const selected = await page.evaluate(
      "(() => { const area = document.querySelector('#manual-copy textarea'); return document.activeElement === area && area.selectionStart === 0 && area.selectionEnd === area.value.length; })()",
    );
    assert.ok(selected, 'focused and selected, ready for Ctrl+C');
    assert.equal(await page.locator('#notice.error').textContent(), 'The browser refused the clipboard: copy the selected text by hand.');
    await dialog.getByRole('button', { name: 'Close' }).click();
    assert.equal(await dialog.count(), 0);
    await page.close();
  });
});
