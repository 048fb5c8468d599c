/**
 * The standalone viewer (`crow trace --serve`) checked with axe-core in
 * headless Chromium, in the browser's light and dark colour schemes: no
 * critical or serious violation, with a row's details open and in both the
 * story and the span-name views.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { serveTrace, type TraceServer } from '../../src/adapters/cli/trace-serve';
import { SessionStore } from '../../src/session/session-store';
import { describeFindings, seriousViolations } from '../support/axe';
import { buildViewer, launchChromium, recordFixture, requireChromium, showSpanNames, watchedPage } from './trace-viewer-chromium';

const SESSION = 'a11y-session';
const ARTIFACTS = resolve(__dirname, '..', 'artifacts');

describe('trace viewer: axe-core finds no critical or serious violation (headless Chromium)', function () {
  this.timeout(90_000);
  let base: string;
  let server: TraceServer;
  let browser: BrowserContext;
  const problems: string[] = [];

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-a11y-'));
    const assetsDir = join(base, 'webview');
    await buildViewer(assetsDir);
    const store = new SessionStore({ dataHome: join(base, 'data') });
    const folder = join(store.root, SESSION);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'meta.json'), JSON.stringify({ id: SESSION, agentName: 'crow', cwd: base, title: 't', createdAt: 0, updatedAt: 0, models: {}, todos: [], internal: [] }));
    const traceFile = join(folder, 'trace.jsonl');
    writeFileSync(traceFile, recordFixture().map((span) => `${JSON.stringify(span)}\n`).join(''));
    server = await serveTrace({ traceFile, assetsDir });
    browser = await launchChromium(join(base, 'profile'));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  async function openViewer(colorScheme: 'light' | 'dark', forcedColors: 'active' | 'none' = 'none'): Promise<Page> {
    const page = await watchedPage(browser, problems);
    await page.emulateMedia({ colorScheme, forcedColors, contrast: forcedColors === 'active' ? 'more' : 'no-preference' });
    await page.goto(server.url);
    await page.waitForSelector('html[data-span-count="9"] .row');
    return page;
  }

  // The last two: the system's high-contrast mode (forced colours, more contrast asked for), as Windows sets it.
  const MODES = [
    { scheme: 'light', forced: 'none', name: 'light' },
    { scheme: 'dark', forced: 'none', name: 'dark' },
    { scheme: 'light', forced: 'active', name: 'high-contrast-light' },
    { scheme: 'dark', forced: 'active', name: 'high-contrast-dark' },
  ] as const;
  for (const { scheme: mode, forced, name: scheme } of MODES) {
    it(`${scheme} scheme: the story with a verdict row's details, then the span names`, async () => {
      const page = await openViewer(mode, forced);
      // The reviewer's verdict row, selected, so its colours and its details are both checked.
      await page.locator('.row[data-verdict]').first().click();
      await page.waitForSelector('.details-title');
      if (forced === 'active') assert.deepEqual(await invisibleInForcedColours(page), [], 'forced colours drop what only a background or a shadow draws');
      const story = await seriousViolations(page);
      await page.screenshot({ path: join(ARTIFACTS, `trace-viewer-a11y-${scheme}.png`) });
      assert.equal(story.length, 0, `the story view in the ${scheme} scheme:\n${describeFindings(story)}`);
      await showSpanNames(page);
      await page.locator('.row.status-error').first().click();
      const spans = await seriousViolations(page);
      assert.equal(spans.length, 0, `the span-name view in the ${scheme} scheme:\n${describeFindings(spans)}`);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('resizes the details from the keyboard on the separator, which says where it stands; Tab reaches the details', async () => {
    const page = await openViewer('light');
    const bar = page.locator('.splitter[role="separator"]');
    const now = async (): Promise<number> => Number(await bar.getAttribute('aria-valuenow'));
    await bar.focus();
    const before = await now();
    await page.keyboard.press('ArrowLeft');
    assert.ok((await now()) < before, 'ArrowLeft gives the details more room');
    await page.keyboard.press('End');
    assert.equal(await now(), Number(await bar.getAttribute('aria-valuemax')), 'End gives the tree the most room');
    await page.keyboard.press('Home');
    assert.equal(await now(), Number(await bar.getAttribute('aria-valuemin')), 'Home gives the details the most room');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'details');
    await page.close();
  });
});

/**
 * What forced colours (the system's high-contrast mode) would leave
 * unseen: the timeline bars, the pressed view button, a verdict row's
 * stripe, each drawn only by a background or a shadow the mode drops.
 */
async function invisibleInForcedColours(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const page = getComputedStyle(document.body).backgroundColor;
    const unseen: string[] = [];
    const bar = document.querySelector('.bar');
    if (!bar || getComputedStyle(bar).backgroundColor === page) unseen.push('a timeline bar');
    const pressed = document.querySelector('.view-mode button[aria-pressed="true"]');
    const other = document.querySelector('.view-mode button[aria-pressed="false"]');
    const pressedBackground = pressed ? getComputedStyle(pressed).backgroundColor : page;
    if (!other || pressedBackground === page || pressedBackground === getComputedStyle(other).backgroundColor) unseen.push('which view is on (Story or Spans)');
    const verdict = document.querySelector('.row[data-verdict]');
    if (!verdict || parseFloat(getComputedStyle(verdict).borderLeftWidth) === 0) unseen.push("a verdict row's stripe");
    return unseen;
  });
}
