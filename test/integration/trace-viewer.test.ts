import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { serveTrace, type TraceServer } from '../../src/adapters/cli/trace-serve';
import { SessionStore } from '../../src/session/session-store';
import type { SpanRecord } from '../../src/telemetry/span';
import { buildViewer, EPOCH, launchChromium, recordFixture, requireChromium, REVIEW_FEEDBACK, showSpanNames, watchedPage, XSS } from './trace-viewer-chromium';

const ARTIFACTS = resolve(__dirname, '..', 'artifacts');
const SESSION = 'viewer-session';

interface Answer {
  status: number;
  csp: string | undefined;
  location: string | undefined;
  cookie: string | undefined;
}

function hostRequest(url: string, host: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { headers: { host, ...headers } }, (res) => {
      res.resume();
      resolvePromise({
        status: res.statusCode ?? 0,
        csp: res.headers['content-security-policy'] as string | undefined,
        location: res.headers.location,
        cookie: res.headers['set-cookie']?.[0],
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Each row as a person reads it: "actor · what happened". */
function storyRows(page: Page): Promise<string[]> {
  return page.locator('.row').evaluateAll((rows) =>
    rows.map((row) => {
      const actor = row.querySelector('.agent')?.textContent ?? '';
      const name = row.querySelector('.name')?.textContent ?? '';
      return actor ? `${actor} · ${name}` : name;
    }),
  );
}

/** The story line of the row with the keyboard focus ('' when the focus is elsewhere). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const row = document.activeElement?.closest('.row[role="treeitem"]');
    if (!row || row.getAttribute('aria-selected') !== 'true') return '';
    const actor = row.querySelector('.agent')?.textContent ?? '';
    const name = row.querySelector('.name')?.textContent ?? '';
    return actor ? `${actor} · ${name}` : name;
  });
}

describe('trace viewer in headless Chromium', function () {
  this.timeout(60_000);
  let base: string;
  let traceFile: string;
  let fixture: SpanRecord[];
  let server: TraceServer;
  let browser: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-viewer-'));
    const assetsDir = join(base, 'webview');
    await buildViewer(assetsDir);
    const store = new SessionStore({ dataHome: join(base, 'data') });
    const folder = join(store.root, SESSION);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'meta.json'), JSON.stringify({ id: SESSION, agentName: 'crow', cwd: base, title: 't', createdAt: 0, updatedAt: 0, models: {}, todos: [], internal: [] }));
    traceFile = join(folder, 'trace.jsonl');
    fixture = recordFixture();
    writeFileSync(traceFile, fixture.map((span) => `${JSON.stringify(span)}\n`).join(''));
    server = await serveTrace({ traceFile, assetsDir });
    browser = await launchChromium(join(base, 'profile'));
    page = await watchedPage(browser, problems);
    await page.goto(server.url);
    await page.waitForSelector('html[data-span-count="9"] .row');
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('serves with a strict CSP and answers only to its own host', async () => {
    const { host, origin } = new URL(server.url);
    const first = await hostRequest(server.url, host);
    const cookie = first.cookie!.split(';')[0]!;
    const ok = await hostRequest(`${origin}/`, host, { cookie });
    assert.equal(ok.status, 200);
    // The page holds the viewer's script and stylesheet: allowed by their hashes alone, never any inline code.
    assert.match(ok.csp ?? '', /^default-src 'none'; script-src 'self' 'sha256-[\w+/]+=*'; style-src 'self' 'sha256-[\w+/]+=*'; connect-src 'self'; /);
    assert.doesNotMatch(ok.csp ?? '', /unsafe/);
    assert.equal((await hostRequest(server.url, 'evil.example:80')).status, 403);
    assert.equal((await hostRequest(`${origin}/spans`, 'evil.example:80', { cookie })).status, 403);
  });

  it('serves nothing without the token of the printed URL or the cookie its first load sets', async () => {
    const { host, origin, port } = new URL(server.url);
    const token = new URL(server.url).searchParams.get('token')!;
    assert.match(token, /^[\w-]{32}$/, 'a random token');
    for (const path of ['/', '/viewer.js', '/viewer.css', '/spans', '/events', '/spans?token=wrong', `/spans?token=${token}x`]) {
      assert.equal((await hostRequest(`${origin}${path}`, host)).status, 401, path);
      assert.equal((await hostRequest(`${origin}${path}`, host, { cookie: `crow_trace_${port}=guess` })).status, 401, `${path} with a wrong cookie`);
    }
    const first = await hostRequest(server.url, host);
    assert.equal(first.status, 303, 'the first load trades the token for a cookie');
    assert.equal(first.location, '/', 'and goes to the clean URL');
    assert.equal(first.cookie, `crow_trace_${port}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    for (const path of ['/', '/viewer.js', '/viewer.css', '/spans']) {
      assert.equal((await hostRequest(`${origin}${path}`, host, { cookie: `other=1; crow_trace_${port}=${token}` })).status, 200, path);
    }
    assert.equal((await hostRequest(`${origin}/spans?token=${token}`, host)).status, 200, 'the token works on any route');
  });

  it('opens in the story view with the first row selected and its details shown', async () => {
    assert.equal(await page.getAttribute('html', 'data-mode'), 'story');
    assert.equal(await page.getAttribute('#view-story', 'aria-pressed'), 'true');
    const selected = page.locator('.row[aria-selected="true"]');
    assert.equal(await selected.count(), 1, 'one row selected from the start');
    assert.match((await selected.getAttribute('class')) ?? '', /kind-prompt/, 'the root: the prompt');
    assert.equal(await page.locator('.details-title').textContent(), `you · asked: ${XSS}`);
    assert.match(await page.locator('.details').innerText(), /Totals/);
  });

  it('reads as a story: who did what, model calls with tokens and cost, the reviewer\'s verdict', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const rows = await storyRows(page);
    assert.deepEqual(rows.slice(0, 8), [
      `you · asked: ${XSS}`,
      'builder · worked',
      'builder · model (1.2k in / 56 out, $0.012)',
      'builder · ran `make` — failed',
      'explorer · ran as a subagent',
      'explorer · model (120 in / 8 out, <$0.0001)',
      'builder · wrote a.txt',
      'builder · handed the work to reviewer for review',
    ]);
    assert.ok(rows[8]!.startsWith(`reviewer · asked for changes: ${REVIEW_FEEDBACK} <script>`), rows[8]);
    const verdict = page.locator('.row[data-verdict="feedback"]');
    assert.equal(await verdict.count(), 1, 'the review\'s row carries its verdict');
    // Cut to the column at most, never at a fixed ~290 px, and whole in the tooltip.
    const label = await verdict.locator('.name').boundingBox();
    assert.ok(label && label.width > 360, `the verdict label gets ${label?.width} px of a 1280 px window`);
    assert.ok((await verdict.getAttribute('title'))!.startsWith(`reviewer · asked for changes: ${REVIEW_FEEDBACK} ${XSS} · ok`), 'the tooltip has the whole feedback');
    const all = await page.locator('body').innerText();
    assert.ok(!all.includes('$0.0000'), 'no cost reads as $0.0000');
    await verdict.click();
    const details = await page.locator('.details').innerText();
    assert.match(details, /verdict\s+asked for changes/);
    assert.ok(details.includes(XSS), 'the feedback in full, as text');
    assert.equal(await page.evaluate('window.__xss'), undefined);
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-story.png') });
    // As a VS Code editor beside a side bar gets it: the review still reads past its verdict.
    await page.setViewportSize({ width: 930, height: 800 });
    const narrow = await verdict.locator('.name').boundingBox();
    assert.ok(narrow && narrow.width > 300, `the verdict label gets ${narrow?.width} px of a 930 px editor`);
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-story-930.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('moves through the tree with the keyboard only, and arrow keys on a filter never change it', async () => {
    await page.locator('.row.kind-prompt').click();
    await page.focus('#filter-agent');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.inputValue('#filter-agent'), '', 'ArrowDown left the agent filter as it was');
    assert.equal(await page.locator('.row').count(), 9, 'and hid nothing');
    assert.equal(await focused(page), `you · asked: ${XSS}`, 'the tree took the focus, on the selected row');
    await page.focus('#filter-kind');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.inputValue('#filter-kind'), '');
    assert.equal(await page.getAttribute('#tree', 'role'), 'tree');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(page), 'builder · worked');
    assert.equal(await page.getAttribute('.row[aria-selected="true"]', 'aria-level'), '2');
    assert.equal(await page.getAttribute('.row[aria-selected="true"]', 'aria-expanded'), 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.getAttribute('.row[aria-selected="true"]', 'aria-expanded'), 'false', 'ArrowLeft closes an open row');
    assert.equal(await page.locator('.row').count(), 3);
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.locator('.row').count(), 9, 'ArrowRight opens it again');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(page), 'builder · model (1.2k in / 56 out, $0.012)', 'then moves to its first child');
    assert.match(await page.locator('.details').innerText(), /tokens in\s+1,234/, 'the details follow the selection');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await focused(page), 'builder · worked', 'ArrowLeft on a leaf goes to the parent');
    await page.keyboard.press('End');
    assert.match(await focused(page), /^reviewer · asked for changes/);
    await page.keyboard.press('Home');
    assert.equal(await focused(page), `you · asked: ${XSS}`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.details-title').textContent(), 'builder · worked');
    assert.equal(await page.locator('.row[tabindex="0"]').count(), 1, 'one row in the tab order (a roving tabindex)');
  });

  it('puts export and copy in one Export menu that works by keyboard, keeping the toolbar to one line', async () => {
    const toolbar = await page.locator('.toolbar').boundingBox();
    assert.ok(toolbar && toolbar.height < 40, `one toolbar line at 1280 px (${toolbar?.height} px)`);
    assert.equal(await page.locator('#export').isVisible(), false, 'the menu starts closed');
    await page.focus('#export-menu');
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute('#export-menu', 'aria-expanded'), 'true');
    assert.equal(await page.evaluate('document.activeElement.id'), 'export', 'the first item has the focus');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate('document.activeElement.id'), 'export-otlp');
    await page.keyboard.press('End');
    assert.equal(await page.evaluate('document.activeElement.id'), 'copy-otlp');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#export-list').isVisible(), false, 'Escape closes it');
    assert.equal(await page.evaluate('document.activeElement.id'), 'export-menu', 'and gives the focus back');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'builder · worked', 'Tab goes from the toolbar to the selected row of the tree');
    await page.setViewportSize({ width: 600, height: 800 });
    const narrow = await page.locator('.toolbar').boundingBox();
    assert.ok(narrow && narrow.height < 80, `the toolbar stays short at 600 px (${narrow?.height} px)`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows span names one click away (Story | Spans), and remembers the choice', async () => {
    await showSpanNames(page);
    assert.equal(await page.getAttribute('#view-spans', 'aria-pressed'), 'true');
    await page.reload();
    await page.waitForSelector('html[data-span-count="9"] .row');
    assert.equal(await page.getAttribute('html', 'data-mode'), 'spans', 'still span names after a reload');
  });

  it('renders the tree: prompt, agents (subagent nested), LLM calls, tools, handoff', async () => {
    const names = await page.locator('.row .name').allTextContents();
    assert.deepEqual(names, [
      'prompt',
      'invoke_agent builder',
      'chat claude-sonnet-4-5',
      'execute_tool bash',
      'invoke_agent explorer',
      'chat gpt-5-mini',
      'execute_tool write_file',
      'handoff review',
      'invoke_agent reviewer',
    ]);
    assert.equal(await page.locator('.row .bar').count(), 9);
  });

  it('shows an LLM call\'s model, provider, tokens, TTFT, cost and finish reason when selected', async () => {
    await page.locator('.row', { hasText: 'chat claude-sonnet-4-5' }).click();
    const details = await page.locator('.details').innerText();
    for (const expected of ['claude-sonnet-4-5', 'anthropic', '1,234', '56', '1,000', '420ms', '$0.012', 'tool_use']) {
      assert.ok(details.includes(expected), `details lack ${expected}:\n${details}`);
    }
  });

  it('reads well in a normal window: JSON arguments as a tree, a wide value column, a splitter, a visible selection', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('.row', { hasText: 'execute_tool bash' }).click();
    const args = page.locator('.details details.json').first();
    assert.equal(await args.getAttribute('open'), '', 'objects start unfolded');
    assert.match(await args.innerText(), /command: "make"|command:\s*make/);
    const value = await page.locator('.details dd').first().boundingBox();
    const panel = await page.locator('.details').boundingBox();
    assert.ok(value && panel && value.width > panel.width * 0.5, `the value column gets ${value?.width} of ${panel?.width} px`);
    const selected = page.locator('.row.selected');
    assert.notEqual(await selected.evaluate('(row) => getComputedStyle(row).outlineStyle'), 'none', 'the selected row is outlined, whatever the theme');
    const splitter = page.locator('.splitter');
    const before = panel!.width;
    const bar = await splitter.boundingBox();
    await page.mouse.move(bar!.x + 2, bar!.y + 100);
    await page.mouse.down();
    await page.mouse.move(bar!.x - 150, bar!.y + 100);
    await page.mouse.up();
    const after = (await page.locator('.details').boundingBox())!.width;
    assert.ok(after > before + 100, `dragging the splitter widens the details (${before} → ${after})`);
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-details.png') });
  });

  it('collapses and expands a span', async () => {
    await page.locator('.row', { hasText: 'invoke_agent explorer' }).locator('.toggle').click();
    assert.equal(await page.locator('.row', { hasText: 'chat gpt-5-mini' }).count(), 0);
    await page.locator('.row', { hasText: 'invoke_agent explorer' }).locator('.toggle').click();
    assert.equal(await page.locator('.row', { hasText: 'chat gpt-5-mini' }).count(), 1);
  });

  it('filters by kind, keeping the ancestors for context', async () => {
    await page.selectOption('#filter-kind', 'tool');
    assert.deepEqual(await page.locator('.row .name').allTextContents(), ['prompt', 'invoke_agent builder', 'execute_tool bash', 'execute_tool write_file']);
    await page.selectOption('#filter-kind', '');
    assert.equal(await page.locator('.row').count(), 9);
  });

  it('searches attribute text and jumps to the next error', async () => {
    await page.fill('#search', 'please review');
    await page.locator('.counter', { hasText: '3 of 9 spans' }).waitFor();
    assert.deepEqual(await page.locator('.row .name').allTextContents(), ['prompt', 'invoke_agent builder', 'handoff review']);
    await page.fill('#search', '');
    await page.locator('.counter', { hasText: '9 of 9 spans' }).waitFor();
    await page.click('#next-error');
    assert.equal(await page.locator('.row.selected .name').textContent(), 'execute_tool bash');
    assert.match(await page.locator('.details').innerText(), /No rule to make target/);
  });

  it('shows a span appended to trace.jsonl while the session runs, even one written in two pieces', async () => {
    const reviewer = fixture.find((span) => span.name === 'invoke_agent reviewer')!;
    const late: SpanRecord = { ...reviewer, spanId: 'late-span', parentSpanId: reviewer.spanId, kind: 'llm_call', name: 'chat live-model', start: EPOCH + 7_100, end: EPOCH + 8_800, attributes: {} };
    const line = `${JSON.stringify(late)}\n`;
    appendFileSync(traceFile, line.slice(0, 40));
    await new Promise((done) => setTimeout(done, 600));
    appendFileSync(traceFile, line.slice(40));
    await page.waitForSelector('.row:has-text("chat live-model")', { timeout: 5_000 });
    assert.equal(await page.locator('.row .name').last().textContent(), 'chat live-model');
    assert.match(await page.locator('.row.kind-prompt .summary').innerText(), /^3 LLM · 2 tools · 1,354 in \/ 64 out · \$0\.012 · 1 error$/);
  });

  it('exports every span as JSON, from the Export menu by keyboard', async () => {
    await page.focus('#export-menu');
    await page.keyboard.press('ArrowDown');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as SpanRecord[];
    assert.equal(exported.length, 10);
    assert.equal(exported[0]!.name, 'prompt');
  });

  it('keeps an XSS attempt in a span attribute inert and visible as text', async () => {
    await page.locator('.row.kind-prompt').click();
    assert.ok((await page.locator('.details').innerText()).includes(XSS));
    assert.equal(await page.evaluate('window.__xss'), undefined);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('script').count(), 1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer.png') });
    assert.deepEqual(problems, []);
  });
});
