/**
 * The HTML report of `crow eval` as a person opens it: the file the real
 * binary wrote, from disk, in Debian's headless Chromium. It has what the
 * markdown report has (agents with intervals, pass@k, per category,
 * pairwise with its test, failed runs with their trace) and a drill-down per
 * run (diff, check log, `crow trace`); the scatter's axis leaves room around
 * its points. With --attempts N, the single and best-of arms side by side.
 * Screenshots land in test/artifacts/eval-report.png and eval-report-best-of.png.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { readResults } from '../../src/eval/eval-runner';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { scriptedSolver } from '../../testkit/scripted-solver';
import { runCrow } from '../support/crow-binary';
import { attemptsSolver, solverTasks, wrongFirstOnTraps } from '../support/eval-solver';
import { isolatedEnv } from '../support/isolated-env';
import { launchChromium, requireChromium, watchedPage } from './trace-viewer-chromium';

const TASKS_DIR = resolve(__dirname, '../../eval/tasks');
const ARTIFACTS = resolve(__dirname, '..', 'artifacts');
const TASKS = 'js-clamp,js-leap-year,py-fizzbuzz';

describe('the crow eval HTML report in Chromium', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let home: string;
  let browser: BrowserContext;

  before(async function () {
    requireChromium(this);
    server = await FakeLlmServer.start();
    home = mkdtempSync(join(tmpdir(), 'crow-eval-html-'));
    browser = await launchChromium(join(home, 'profile'));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('shows every section of the markdown report and each run\'s diff, check log and trace command, with points inside the axes', async () => {
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(loadTasks(TASKS_DIR, TASKS)), modeOf: wrongFirstOnTraps }));
    const out = join(home, 'out');
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const run = await runCrow(['eval', '--provider', 'anthropic', '--tasks', TASKS, '--agents', 'build,build-verified', '--repeat', '2', '--concurrency', '3', '--out', out], env, home);
    assert.equal(run.code, 0, run.stderr);
    const failed = readResults(join(out, 'results.jsonl')).find((r) => !r.passed)!;

    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    await page.waitForSelector('#runs details');
    assert.deepEqual(problems, []);
    const headings = await page.locator('h2').allTextContents();
    assert.deepEqual(headings, ['Agents', 'Success rate per agent (95% interval)', 'Cost against success', 'By category', 'Solved by one agent and not the other', 'Per task', 'Runs that failed', 'Every run']);
    const agentsTable = await page.locator('#table').innerText();
    assert.match(agentsTable, /pass@2\s+pass\^2/);
    assert.match(agentsTable, /build\s+4\/6\s+67% \(21%–94%\)\s+67%\s+67%/);
    assert.match(await page.locator('#categories').innerText(), /trap\s+0\/2\s+2\/2/);
    assert.match(await page.locator('#pairwise').innerText(), /build-verified\s+build\s+1: js-leap-year\s+33 points[\s\S]*1\.000/);
    const failedTable = await page.locator('#failed').innerText();
    assert.ok(failedTable.includes(`crow trace ${failed.sessionId} (trace id ${failed.traceId})`), failedTable);
    assert.match(await page.locator('#lede').innerText(), /anthropic\/claude-sonnet-4-6 · crow \d+\.\d+\.\d+( \([0-9a-f]{10}\))? · backend local · seed 1/);

    const drill = page.locator('#runs details', { hasText: `${failed.task} · ${failed.agent} #${failed.repeat}` });
    await drill.locator('summary').click();
    const opened = await drill.innerText();
    assert.match(opened, /--- a\/leap\.js\n\+\+\+ b\/leap\.js/);
    assert.match(opened, /Check log[\s\S]*(AssertionError|assert)/);
    assert.ok(opened.includes(`crow trace ${failed.sessionId}`));

    const axis = await page.locator('#scatter').evaluate((canvas) => ({ min: Number(canvas.dataset.xMin), max: Number(canvas.dataset.xMax) }));
    const data = await page.locator('#eval-data').evaluate((node) => JSON.parse(node.textContent!) as { summary: { agents: { medianTokens: number }[] } });
    for (const agent of data.summary.agents) assert.ok(agent.medianTokens > axis.min && agent.medianTokens < axis.max, `${agent.medianTokens} inside (${axis.min}, ${axis.max})`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await drill.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'eval-report.png'), fullPage: true });
    await page.close();
  });

  it('with --attempts N, shows the single and best-of arms side by side with the oracle, the paired test and the judge accuracy', async () => {
    server.respondWith('anthropic', attemptsSolver(loadTasks(TASKS_DIR, 'js-clamp,js-leap-year'), 0.5, 1));
    const out = join(home, 'best-of');
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const run = await runCrow(['eval', '--provider', 'anthropic', '--tasks', 'js-clamp,js-leap-year', '--agents', 'build', '--attempts', '3', '--out', out], env, home);
    assert.equal(run.code, 0, run.stderr);

    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    await page.waitForSelector('#best-of table');
    assert.deepEqual(problems, []);
    assert.ok((await page.locator('h2').allTextContents()).includes('Best of N against one attempt'));
    const section = await page.locator('#best-of-section').innerText();
    // The same draws as the binary test: clamp passes both ways, leap year passes alone and fails as best of 3 (the judge picks a wrong attempt).
    assert.match(section, /build \(one attempt\)\s+build@best-of-3\s+oracle \(any of 3 passed\)/);
    assert.match(section, /solved\s+2\/2\s+1\/2\s+2\/2/);
    assert.match(section, /build@best-of-3 − build: -50 points \(95% paired bootstrap -100 to 0\) over 2 tasks · exact McNemar p = 1\.000/);
    assert.match(section, /picked a passing attempt in 1 of 2 runs where one passed; its ranking used in 1 of 2 runs/);
    assert.match(await page.locator('#table').innerText(), /build@best-of-3\s+1\/2/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#best-of-section').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'eval-report-best-of.png') });
    await page.close();
  });
});
