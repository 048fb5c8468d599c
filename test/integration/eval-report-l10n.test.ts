/**
 * The eval report in another language (headless Chromium), as VS Code's
 * Crow: Run Eval shows it: the page's headings come through the host's `t`,
 * and the page carries the display language's bundle (a JSON data block, like
 * its eval-data) that its script reads before drawing tables and charts. A
 * message the bundle lacks stays English; `crow eval`'s report.html, written
 * for a browser, has no bundle and is English (eval-report-chromium.test.ts
 * reads that one).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as l10n from '@vscode/l10n';
import type { BrowserContext } from 'playwright-core';
import { htmlReport, reportScript } from '../../src/eval/eval-report';
import type { EvalResult } from '../../src/eval/eval-run';
import { launchChromium, requireChromium, watchedPage } from './trace-viewer-chromium';

/** A few of the report's words in German, keyed as l10n/bundle.l10n.json keys them. */
const GERMAN: Record<string, string> = {
  Agents: 'Agenten',
  'Runs that failed': 'Fehlgeschlagene Läufe',
  // Markup in a translation is shown as text, in the page's HTML and in its data block.
  'Per task': 'Pro Aufgabe <b>fett</b> </script>',
  agent: 'Agent',
  solved: 'gelöst',
  'median cost': 'Mediankosten',
  task: 'Aufgabe',
  why: 'Grund',
  '{0} runs of {1} tasks by {2}': '{0} Läufe von {1} Aufgaben durch {2}',
};

function run(task: string, passed: boolean, repeat: number): EvalResult {
  return {
    task, category: 'bugfix', difficulty: 'easy', agent: 'build', repeat, passed,
    ...(passed ? {} : { reason: 'check failed' }),
    ended: 'completed', tokens: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 }, costUsd: 0.01, wallMs: 2_000, overheadMs: 10,
    modelCalls: 2, toolCalls: 3, reviewRounds: 0, sessionId: `s-${task}-${repeat}`, model: 'anthropic/claude-sonnet-4-6', startedAt: '2026-11-30T08:00:00.000Z',
  } as EvalResult;
}

describe('eval report: its words in the display language (headless Chromium)', function () {
  this.timeout(60_000);
  let base: string;
  let browser: BrowserContext;
  const results = [run('js-clamp', true, 1), run('js-leap-year', false, 1)];

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-eval-l10n-'));
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

  it('with the host\'s t and the bundle, headings, tables and the lede read in German; what the bundle lacks stays English', async () => {
    let html: string;
    try {
      // As in VS Code: the extension's @vscode/l10n holds the display language's bundle.
      l10n.config({ contents: GERMAN });
      html = htmlReport(results, ['build'], { script: reportScript(), nonce: 'n0nce', t: l10n.t, l10n: GERMAN });
    } finally {
      l10n.config({ contents: {} });
    }
    const file = join(base, 'report-de.html');
    writeFileSync(file, html);
    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    try {
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('#runs details');
      const headings = await page.locator('h2').allTextContents();
      assert.equal(headings[0], 'Agenten');
      assert.ok(headings.includes('Fehlgeschlagene Läufe'), headings.join(' | '));
      assert.ok(headings.includes('Pro Aufgabe <b>fett</b> </script>'), 'a translation is text, never markup');
      assert.ok(headings.includes('Cost against success'), 'a heading the bundle lacks stays English');
      assert.equal(await page.locator('h2 b').count(), 0);
      const head = await page.locator('#table th').allTextContents();
      assert.deepEqual(head.slice(0, 2), ['Agent', 'gelöst']);
      assert.ok(head.includes('Mediankosten'));
      assert.ok(head.includes('total cost'), 'untranslated stays English');
      assert.deepEqual((await page.locator('#failed th').allTextContents()).slice(0, 3), ['run', 'ended', 'Grund']);
      assert.match(await page.locator('#lede').innerText(), /^2 Läufe von 2 Aufgaben durch build · /);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  it('without them (crow eval writing report.html for a browser) the page has no bundle and is English', async () => {
    const html = htmlReport(results, ['build'], { script: reportScript() });
    assert.doesNotMatch(html, /id="crow-l10n"/);
    const file = join(base, 'report-en.html');
    writeFileSync(file, html);
    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    try {
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('#runs details');
      assert.equal((await page.locator('h2').allTextContents())[0], 'Agents');
      assert.deepEqual((await page.locator('#table th').allTextContents()).slice(0, 2), ['agent', 'solved']);
      assert.match(await page.locator('#lede').innerText(), /^2 runs of 2 tasks by build · /);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
