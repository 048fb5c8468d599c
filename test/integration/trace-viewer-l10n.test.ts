/**
 * The trace viewer in another language (headless Chromium). In VS Code the
 * trace panel puts the display language's bundle in its page
 * (tracePageHtml's `l10n`, the same JSON data block as the chat's) and the
 * viewer reads it before its first paint: toolbar, story rows, details and
 * notices come from it, and a message the bundle lacks stays English. Served
 * by `crow trace --serve` to a browser there is no bundle: the page is
 * English and asks for nothing more than it did before.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { serveTrace, type TraceServer } from '../../src/adapters/cli/trace-serve';
import { tracePageHtml } from '../../src/adapters/vscode/traces/trace-page';
import { SessionStore } from '../../src/session/session-store';
import type { SpanRecord } from '../../src/telemetry/span';
import type { HostMessage } from '../../webview/trace-viewer/protocol';
import { buildViewer, launchChromium, recordFixture, requireChromium, watchedPage } from './trace-viewer-chromium';

const ORIGIN = 'https://webview.test';

/** A few of the viewer's words in German, keyed as l10n/bundle.l10n.json keys them. */
const GERMAN: Record<string, string> = {
  Story: 'Verlauf',
  Agent: 'Agent',
  Status: 'Zustand',
  Search: 'Suchen',
  'Search the rows': 'Die Zeilen durchsuchen',
  // "</script>" in a translation must not end the page's data block.
  'Next error': 'Nächster Fehler </script><b>',
  '{0} of {1} spans': '{0} von {1} Spans',
  'ran `{0}`': '`{0}` ausgeführt',
  '{0} \u2014 failed': '{0} \u2014 fehlgeschlagen',
  'handed the work to {0} for review': 'gab die Arbeit zur Prüfung an {0}',
  Span: 'Abschnitt',
  duration: 'Dauer',
  'Tool call': 'Werkzeugaufruf',
  'No errors in the spans shown.': 'Keine Fehler in den gezeigten Spans.',
};

/** Each row's "what happened" text, top to bottom. */
function rowTexts(page: Page): Promise<string[]> {
  return page.locator('.row .name').allInnerTexts();
}

describe('trace viewer: its words in the display language (headless Chromium)', function () {
  this.timeout(60_000);
  let base: string;
  let assets: string;
  let browser: BrowserContext;
  let fixture: SpanRecord[];

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-l10n-'));
    assets = join(base, 'webview');
    await buildViewer(assets);
    fixture = recordFixture();
    browser = await launchChromium(join(base, 'profile'));
  });

  after(async () => {
    await browser?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('the exported bundle holds the keys this test translates', () => {
    const bundle = JSON.parse(readFileSync(join(__dirname, '..', '..', 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(GERMAN).filter((key) => bundle[key] !== key), []);
  });

  it("in VS Code's trace panel, the toolbar, the story rows and the details read in German; what the bundle lacks stays English", async () => {
    const html = tracePageHtml({ cspSource: ORIGIN, scriptUri: `${ORIGIN}/viewer.js`, styleUri: `${ORIGIN}/viewer.css`, nonce: 'bm9uY2Utb2YtdGhlLXRlc3Q=', l10n: GERMAN });
    await browser.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/index.html') return route.fulfill({ contentType: 'text/html', body: html });
      if (path === '/viewer.js' || path === '/viewer.css') {
        return route.fulfill({ contentType: path.endsWith('.js') ? 'text/javascript' : 'text/css', body: readFileSync(join(assets, path.slice(1))) });
      }
      return route.fulfill({ status: 404, body: '' });
    });
    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    try {
      await page.addInitScript({
        content: `window.__sent = []; window.__violations = [];
          window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(m), getState: () => undefined, setState: () => {} });
          document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
      });
      await page.goto(`${ORIGIN}/index.html`);
      await page.waitForFunction('window.__sent.length > 0');
      const host = async (message: HostMessage): Promise<void> => void (await page.evaluate(`window.postMessage(${JSON.stringify(message)}, '*')`));
      await host({ type: 'recording', recording: false });
      await host({ type: 'spans', spans: fixture });
      await page.waitForSelector('html[data-span-count="9"] .row');

      assert.equal(await page.innerText('#view-story'), 'Verlauf');
      assert.equal(await page.innerText('#view-spans'), 'Spans', 'a word the bundle lacks stays English');
      assert.equal(await page.innerText('#next-error'), 'Nächster Fehler </script><b>', 'a translation is text, never markup');
      assert.equal(await page.getAttribute('#search', 'placeholder'), 'Suchen');
      assert.equal(await page.getAttribute('#search', 'aria-label'), 'Die Zeilen durchsuchen');
      assert.match(await page.locator('label.filter').nth(2).innerText(), /^Zustand/);
      assert.equal(await page.innerText('.counter'), '9 von 9 Spans');

      const rows = await rowTexts(page);
      assert.ok(rows.includes('`make` ausgeführt \u2014 fehlgeschlagen'), rows.join('\n'));
      assert.ok(rows.includes('gab die Arbeit zur Prüfung an reviewer'), rows.join('\n'));
      assert.ok(rows.includes('wrote a.txt'), `untranslated words stay English: ${rows.join('\n')}`);

      await page.locator('.row', { hasText: '`make` ausgeführt' }).click();
      const headings = await page.locator('.details h3').allInnerTexts();
      assert.deepEqual(headings.slice(0, 2), ['Abschnitt', 'Werkzeugaufruf']);
      assert.ok((await page.locator('.details dt').allInnerTexts()).includes('Dauer'));

      assert.deepEqual(await page.evaluate('window.__violations'), [], 'the bundle in the page breaks no CSP rule');
      assert.equal(await page.evaluate('window.__xss'), undefined);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await browser.unroute(`${ORIGIN}/**`);
    }
  });

  it('served by crow trace --serve to a browser, it is English, with no bundle and no request for one', async () => {
    const store = new SessionStore({ dataHome: join(base, 'data') });
    const folder = join(store.root, 'l10n-session');
    mkdirSync(folder, { recursive: true });
    const traceFile = join(folder, 'trace.jsonl');
    writeFileSync(traceFile, fixture.map((span) => `${JSON.stringify(span)}\n`).join(''));
    const server: TraceServer = await serveTrace({ traceFile, assetsDir: assets });
    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    try {
      await page.goto(server.url);
      await page.waitForSelector('html[data-span-count="9"] .row');
      assert.equal(await page.locator('#crow-l10n').count(), 0, 'the served page carries no bundle');
      assert.equal(await page.innerText('#view-story'), 'Story');
      assert.equal(await page.innerText('#next-error'), 'Next error');
      assert.equal(await page.getAttribute('#search', 'placeholder'), 'Search');
      assert.equal(await page.innerText('.counter'), '9 of 9 spans');
      const rows = await rowTexts(page);
      assert.ok(rows.includes('ran `make` \u2014 failed'), rows.join('\n'));
      assert.ok(rows.includes('handed the work to reviewer for review'), rows.join('\n'));
      // The page, its script and stylesheet, the spans and the live feed: nothing for translations.
      assert.deepEqual([...new Set(asked)].filter((path) => !['/', '/viewer.js', '/viewer.css', '/spans', '/events', '/favicon.ico'].includes(path)), []);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
