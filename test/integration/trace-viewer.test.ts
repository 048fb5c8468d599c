import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { serveTrace, type TraceServer } from '../../src/adapters/cli/trace-serve';
import { SessionStore } from '../../src/session/session-store';
import type { SpanRecord } from '../../src/telemetry/span';
import { buildViewer, EPOCH, launchChromium, recordFixture, requireChromium, watchedPage, XSS } from './trace-viewer-chromium';

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
    server = await serveTrace({ traceFile, readSpans: () => store.spans(SESSION), assetsDir });
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
    assert.match(ok.csp ?? '', /default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'/);
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
    for (const expected of ['claude-sonnet-4-5', 'anthropic', '1,234', '56', '1,000', '420ms', '$0.0123', 'tool_use']) {
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

  it('folds export and copy into a menu when the window is narrow', async () => {
    await page.setViewportSize({ width: 600, height: 800 });
    await page.locator('.export-menu').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#export').isVisible(), false, 'folded away');
    const toolbar = await page.locator('.toolbar').boundingBox();
    assert.ok(toolbar && toolbar.height < 80, `the toolbar stays short (${toolbar?.height} px)`);
    await page.locator('.export-menu > summary').click();
    assert.equal(await page.locator('#export').isVisible(), true);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('.export-menu').waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#export').isVisible(), true, 'back in the toolbar when there is room');
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
    assert.match(await page.locator('.row.kind-prompt .summary').innerText(), /^3 LLM · 2 tools · 1,234 in \/ 56 out · \$0\.0123 · 1 error$/);
  });

  it('exports every span as JSON', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
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
