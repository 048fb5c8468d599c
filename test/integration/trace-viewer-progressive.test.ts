/**
 * `crow trace SESSION --serve` through the real binary on a stored session
 * of thousands of spans (tens of megabytes, as Crow stores them: a start
 * and an ended record per span): `/spans` streams trace.jsonl as stored,
 * and the viewer draws its first screen from the first pieces, showing how
 * far the load has come, before every span has arrived; then every span.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { ACPSession } from '../../src/session/acp-session';
import { SessionStore } from '../../src/session/session-store';
import { type CrowProcess, startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { launchChromium, requireChromium, watchedPage } from './trace-viewer-chromium';

const PROMPTS = 10;
const CALLS = 250;
/** Prompts × (prompt, turn, and a model call and a tool per call). */
const SPANS = PROMPTS * (2 + 2 * CALLS);

/** A session as Crow records one, through its store: each model call with its system prompt and last message, each tool with its output. */
function recordSession(home: string, cwd: string): string {
  const store = new SessionStore({ dataHome: join(home, 'data', 'crow-agent') });
  const session = new ACPSession({ cwd, agentName: 'build' });
  const handle = store.attach(session);
  const text = (n: number, size: number): string => `${n} `.repeat(size / 4).slice(0, size);
  for (let p = 0; p < PROMPTS; p++) {
    const prompt = session.trace.startTrace('prompt', 'prompt build', { agent: 'build', attributes: { 'crow.prompt': `Task ${p}` } });
    const turn = prompt.child('agent_turn', 'invoke_agent builder', { agent: 'builder', role: 'primary' });
    for (let c = 0; c < CALLS; c++) {
      const llm = turn.child('llm_call', 'chat m', { agent: 'builder', attributes: { 'crow.request.system': text(c, 3_000), 'crow.request.last_message': text(c, 2_000) } });
      llm.set({ 'gen_ai.usage.input_tokens': 1_000, 'gen_ai.usage.output_tokens': 50, 'crow.response.content': text(c, 500) });
      llm.end('ok');
      const tool = turn.child('tool', 'execute_tool read_file', { agent: 'builder', attributes: { 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.arguments': `{"path":"f${c}.ts"}` } });
      tool.set({ 'crow.tool.output': text(c, 3_000) });
      tool.end(c % 50 === 7 ? 'error' : 'ok', c % 50 === 7 ? 'no such file' : undefined);
    }
    turn.end('ok');
    prompt.end('ok');
  }
  handle.close();
  return session.id;
}

describe('crow trace --serve on a large stored session: the first screen before the last span (headless Chromium)', function () {
  this.timeout(180_000);
  let base: string;
  let home: string;
  let id: string;
  let serving: CrowProcess;
  let url: URL;
  let browser: BrowserContext | undefined;

  before(async function () {
    requireChromium(this);
    base = mkdtempSync(join(tmpdir(), 'crow-trace-progressive-'));
    home = join(base, 'home');
    id = recordSession(home, base);
    serving = startCrow(['trace', id, '--serve', '--no-open'], isolatedEnv(home), base);
    await until(() => /Ctrl-C stops/.test(serving.stderr()), `the URL; stderr:\n${serving.stderr()}`);
    url = new URL(/(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(serving.stderr())![1]!);
  });

  after(async () => {
    await browser?.close();
    if (serving) {
      serving.child.kill('SIGINT');
      await serving.exited;
    }
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('reads the trace only as the browser takes it, and stops when the browser goes away; HEAD gets the length alone', async () => {
    const spans = `${url.origin}/spans?token=${url.searchParams.get('token')}`;
    const head = await fetch(spans, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.ok(Number(head.headers.get('content-length')) > 30_000_000, `the length of the whole (${head.headers.get('content-length')})`);
    assert.equal(await head.text(), '');
    const file = join(home, 'data', 'crow-agent', 'sessions', id, 'trace.jsonl');
    const fds = `/proc/${serving.child.pid}/fd`;
    const holding = (): number => readdirSync(fds).filter((fd) => readlinkOrNothing(join(fds, fd)) === file).length;
    const away = new AbortController();
    const reader = (await fetch(spans, { signal: away.signal })).body!.getReader();
    await reader.read();
    await until(() => holding() === 1, 'the server to be reading trace.jsonl');
    await new Promise((done) => setTimeout(done, 300));
    // Nothing else of the server opens the file meanwhile: the follower only looks at it when it grows.
    assert.equal(holding(), 1, 'still reading: it waits for the browser to take what it sent');
    away.abort();
    await until(() => holding() === 0, 'the server to let trace.jsonl go');
  });

  it('streams trace.jsonl from /spans as stored: whole lines, the last one again early, a line being written left for the follower', async () => {
    const file = join(home, 'data', 'crow-agent', 'sessions', id, 'trace.jsonl');
    appendFileSync(file, '{"traceId":"t","spanId":"torn"');
    const stored = readFileSync(file, 'utf8');
    const lines = stored.slice(0, stored.lastIndexOf('\n') + 1).split(/(?<=\n)/);
    const response = await fetch(`${url.origin}/spans?token=${url.searchParams.get('token')}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    const body = await response.text();
    assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(body));
    const sent = body.split(/(?<=\n)/);
    assert.ok(sent.every((line) => line.endsWith('\n')), 'whole lines only');
    assert.ok(!body.includes('"torn"'), 'not the line still being written');
    const early = sent.indexOf(lines.at(-1)!);
    assert.ok(early > 0 && early < sent.length - 1, 'the last line comes early, once more');
    assert.deepEqual([...sent.slice(0, early), ...sent.slice(early + 1)], lines, 'then the file as stored, in order');
    assert.equal(lines.length, 2 * SPANS, 'a start and an ended record per span');
  });

  it('draws the first screen from the first pieces, saying how far it has loaded, then shows every span', async () => {
    const problems: string[] = [];
    browser = await launchChromium(join(base, 'profile'));
    const page = await watchedPage(browser, problems);
    // What the page looked like when rows were first drawn: read in the page, before the next piece can change it.
    // Also how often it had asked for the browser's number formatting (ICU's, whose first use in a tab takes 11 to 31 ms).
    await page.addInitScript({
      content: `let formatting = 0;
      const counted = (real) => new Proxy(real, { construct: (target, args) => (formatting++, new target(...args)), apply: (target, self, args) => (formatting++, Reflect.apply(target, self, args)) });
      Intl.NumberFormat = counted(Intl.NumberFormat);
      Number.prototype.toLocaleString = counted(Number.prototype.toLocaleString);
      new MutationObserver((_, observer) => {
        if (!document.querySelector('#tree .row')) return;
        observer.disconnect();
        const root = document.documentElement;
        window.__firstRows = { loading: root.dataset.loading, spans: Number(root.dataset.spanCount), rows: document.querySelectorAll('#tree .row').length, progress: document.querySelector('#load-progress')?.hidden === false ? document.querySelector('#load-progress').textContent : '', formatting };
      }).observe(document, { childList: true, subtree: true });`,
    });
    await page.goto(url.href);
    await page.waitForFunction(() => (window as { __firstRows?: unknown }).__firstRows !== undefined);
    const first = (await page.evaluate(() => (window as { __firstRows?: unknown }).__firstRows)) as { loading: string; spans: number; rows: number; progress: string; formatting: number };
    assert.equal(first.loading, 'true', `the first rows are drawn while the trace loads (${JSON.stringify(first)})`);
    assert.ok(first.spans < SPANS, `from part of it: ${first.spans} of ${SPANS} spans`);
    assert.ok(first.rows < 80, `only rows near the screen are in the page (${first.rows})`);
    assert.match(first.progress, /^Loading: [\d,]+ spans so far \(\d+%\)$/);
    assert.equal(first.formatting, 0, 'the first screen groups its figures without the browser\'s number formatting');
    await page.waitForSelector(`html[data-loading="false"][data-span-count="${SPANS}"]`, { timeout: 150_000 });
    assert.equal(await page.locator('#load-progress').isVisible(), false, 'the progress goes once everything is in');
    assert.equal(await page.locator('.counter').textContent(), `${SPANS.toLocaleString('en-US')} of ${SPANS.toLocaleString('en-US')} spans`);
    assert.ok((await page.locator('#tree .row').count()) < 80, 'the tree stays virtual');
    assert.match((await page.locator('.row.kind-prompt').first().getAttribute('class')) ?? '', /status-ok/, 'a prompt whose end came later reads as ended');
    assert.match((await page.locator('.row.kind-prompt .summary').first().textContent()) ?? '', /^250 LLM · 250 tools · 250,000 in \/ 12,500 out · 5 errors$/);
    assert.deepEqual(problems, []);
  });

  it('shows a first screen a person can use while the server still holds back the rest, then every span once it comes', async () => {
    const problems: string[] = [];
    const held = await holdingProxy(url, HELD_AFTER);
    try {
      browser ??= await launchChromium(join(base, 'profile'));
      const page = await watchedPage(browser, problems);
      await page.goto(`${held.origin}${url.pathname}${url.search}`);
      await page.waitForSelector('html[data-loading="true"] #tree .row.kind-tool', { timeout: 60_000 });
      const shown = Number(await page.getAttribute('html', 'data-span-count'));
      assert.ok(shown > 0 && shown < SPANS, `part of the trace is shown: ${shown} of ${SPANS} spans`);
      assert.ok(held.sent() < held.total() / 2, `the server has sent only the first part (${held.sent()} of ${held.total()} bytes)`);
      assert.match((await page.locator('#load-progress').textContent()) ?? '', /^Loading: [\d,]+ spans so far \(\d+%\)$/);
      await page.locator('#tree .row.kind-tool').first().click();
      assert.equal(await page.locator('.row.kind-tool').first().getAttribute('aria-selected'), 'true', 'a row can be selected');
      const details = await page.locator('.details').innerText();
      assert.ok(details.includes('read_file') && details.includes('f0.ts'), `the details of the tool call show:\n${details}`);
      assert.equal(await page.getAttribute('html', 'data-loading'), 'true', 'all that while, the rest has not come');
      held.release();
      await page.waitForSelector(`html[data-loading="false"][data-span-count="${SPANS}"]`, { timeout: 150_000 });
      assert.equal(await page.locator('.counter').textContent(), `${SPANS.toLocaleString('en-US')} of ${SPANS.toLocaleString('en-US')} spans`);
      assert.equal(await page.locator('.row.kind-tool').first().getAttribute('aria-selected'), 'true', 'the selection holds as the rest arrives');
      assert.deepEqual(problems, []);
    } finally {
      held.release();
      await held.close();
    }
  });

  it('keeps a click on a row when the tree redraws between the press and the release, as it does every 250 ms while a trace loads', async () => {
    const problems: string[] = [];
    browser ??= await launchChromium(join(base, 'profile'));
    const page = await watchedPage(browser, problems);
    await page.goto(url.href);
    await page.waitForSelector(`html[data-loading="false"][data-span-count="${SPANS}"]`, { timeout: 150_000 });
    const target = page.locator('#tree .row.kind-tool').nth(1);
    const spanId = (await target.getAttribute('data-span-id'))!;
    const box = (await target.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    // A redraw of the rows in view, as each piece of a loading trace brings.
    await page.evaluate(() => document.querySelector('#tree')!.parentElement!.dispatchEvent(new Event('scroll')));
    await page.mouse.up();
    assert.equal(await page.locator(`#tree .row[data-span-id="${spanId}"]`).getAttribute('aria-selected'), 'true', 'the row pressed and released is selected');
    assert.deepEqual(problems, []);
  });
});

/** Bytes of /spans the holding proxy lets through before it waits: a few screens of this trace, far less than half of it. */
const HELD_AFTER = 2 * 1024 * 1024;

interface HoldingProxy {
  origin: string;
  /** Bytes of /spans sent on so far, and the length the server gave for the whole. */
  sent(): number;
  total(): number;
  release(): void;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of `crow trace --serve`, as a slow link would be:
 * everything passes unchanged (the Host header set to the server's own, which
 * it requires), except that /spans stops after its first `after` bytes until
 * released.
 */
async function holdingProxy(target: URL, after: number): Promise<HoldingProxy> {
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));
  let sent = 0;
  let total = 0;
  const proxy: Server = createServer((incoming, outgoing) => {
    const upstream = forward({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: target.host } }, async (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!incoming.url?.startsWith('/spans')) return void answer.pipe(outgoing);
      total = Number(answer.headers['content-length']);
      outgoing.once('close', () => answer.destroy());
      try {
        for await (const chunk of answer as AsyncIterable<Buffer>) {
          if (sent >= after) await released;
          sent += chunk.length;
          if (!outgoing.write(chunk)) await once(outgoing, 'drain');
        }
        outgoing.end();
      } catch {
        outgoing.destroy();
      }
    });
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return {
    origin: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    sent: () => sent,
    total: () => total,
    release,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((done) => proxy.close(() => done()));
    },
  };
}

function readlinkOrNothing(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    // The descriptor closed between the listing and the look.
    return undefined;
  }
}
