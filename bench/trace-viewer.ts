/**
 * Trace viewer: how long a person waits for the first screen of a stored
 * session's trace. Cold, their action is running `node dist/crow.js trace
 * SESSION --serve` (the binary, spawned per cold round): the clock starts
 * when the process is spawned, the browser (already running, with a tab
 * ready, as a person's is) opens the URL the moment it is printed, and the
 * clock stops at the first screen of rows painted: the tree holds rows
 * covering its viewport, and the frame that shows them has been drawn
 * (seen by a MutationObserver, then the next animation frame and a task
 * after it: at most a frame late, never early). The process's start and the
 * page's own clock are read on one wall clock (Node's and Chromium's
 * performance.timeOrigin). Warm: the same page reloaded, as a person's
 * second try, from navigation start. Sessions of about 10k and 102k spans
 * recorded as Crow records them (trace-sessions.ts), rounds interleaved by
 * size; medians and spread, and the ratio 102k / 10k. Also, diagnostic (no
 * goal): how long the server took to print its URL, the cold open counted
 * from opening the URL, the page's first paint, and (cold, first round
 * only: it takes minutes at 102k) when every span has loaded. Needs the
 * built binary and viewer (`npm run build`) and Debian's Chromium; prints a
 * skip line without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type JSHandle, type Page } from 'playwright-core';
import { fmt, median, personEnv } from './common';
import { storeTraceSession, type TraceSession } from './trace-sessions';

const CHROMIUM = '/usr/bin/chromium';
const CROW = resolve(__dirname, '../dist/crow.js');
const SIZES = [10_000, 102_000];
const ROUNDS = 5;
const GOAL_MS = 300;
/** Longer than any first screen should take; a viewer that needs more is reported as such. */
const PATIENCE_MS = 180_000;
const VIEWPORT = { width: 1400, height: 800 };

/** Installed in every page before its scripts: sets window.__crowFirstScreen (ms after navigation start) once the first screen of rows is painted. */
const FIRST_SCREEN_PROBE = `(() => {
  const ROW_HEIGHT = 22;
  const filled = () => {
    const viewport = document.querySelector('.viewport');
    const rows = document.querySelectorAll('#tree .row').length;
    return viewport !== null && rows > 0 && rows * ROW_HEIGHT >= viewport.clientHeight;
  };
  new MutationObserver((_, observer) => {
    if (!filled()) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => (window.__crowFirstScreen = performance.now()), 0));
  }).observe(document, { childList: true, subtree: true });
})();`;

/** Milliseconds; undefined when it never came (the server stopped, or PATIENCE_MS passed). */
interface Sample {
  /** Cold: after the command was spawned; warm: after navigation start. */
  firstScreen: number | undefined;
  /** Cold opens only: after the command was spawned, when it printed its URL. */
  serverStart?: number | undefined;
  /** Cold opens only: the first screen after navigation start (opening the URL of a server already running). */
  fromUrl?: number | undefined;
  /** The page's first paint (its toolbar, no span yet), after navigation start: the part of the wait no trace adds to. */
  pagePaint: number | undefined;
  /** The first cold open only, after navigation start: the others are timed to their first screen. */
  allLoaded?: number | undefined;
}

export async function traceViewerBenchmark(): Promise<void> {
  console.log(`Trace viewer: running \`crow trace SESSION --serve\` (the binary; cold) or reloading its page (warm) → first screen of rows painted, headless Chromium, median (min–max) of ${ROUNDS}, ms`);
  if (!existsSync(CHROMIUM)) {
    console.log(`  skipped: no ${CHROMIUM} (apt-get install -y chromium)`);
    return;
  }
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-trace-viewer-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const sessions = SIZES.map((size) => {
      const home = join(base, `home-${size}`);
      return { home, session: storeTraceSession(join(home, 'data', 'crow-agent'), size, base), cold: [] as Sample[], warm: [] as Sample[] };
    });
    for (let round = 0; round < ROUNDS; round++) {
      for (const entry of sessions) {
        const { cold, warm } = await measure(browser, entry.home, entry.session, round === 0);
        entry.cold.push(cold);
        entry.warm.push(warm);
      }
    }
    for (const { session, cold, warm } of sessions) {
      console.log(`  ${fmt(session.spans)} spans (trace.jsonl ${fmt(session.bytes / 1e6)} MB): cold ${spread(cold.map((s) => s.firstScreen))}, warm ${spread(warm.map((s) => s.firstScreen))}`);
      console.log(
        `    diagnostic: the server printed its URL after ${spread(cold.map((s) => s.serverStart))}; cold from opening the URL ${spread(cold.map((s) => s.fromUrl))}; ` +
          `the page's first paint cold ${spread(cold.map((s) => s.pagePaint))}, warm ${spread(warm.map((s) => s.pagePaint))}; ` +
          `first screen after it cold ${spread(cold.map(afterPaint))}, warm ${spread(warm.map(afterPaint))}; every span loaded (first cold open) ${spread([cold[0]?.allLoaded])}`,
      );
    }
    const first = (samples: Sample[]): number => median(samples.map((sample) => sample.firstScreen ?? Infinity));
    const [small, large] = [sessions[0]!, sessions.at(-1)!];
    const worst = Math.max(...sessions.flatMap(({ cold, warm }) => [first(cold), first(warm)]));
    console.log(
      `  ${fmt(large.session.spans)} / ${fmt(small.session.spans)} spans: cold ${ratio(first(large.cold), first(small.cold))}, warm ${ratio(first(large.warm), first(small.warm))}; ` +
        `goal < ${GOAL_MS} ms at any size: ${worst < GOAL_MS ? 'yes' : 'no'} (slowest median ${Number.isFinite(worst) ? `${fmt(worst)} ms` : 'never'})`,
    );
  } finally {
    await browser.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * One cold open (the browser's context and tab made first, as a person's
 * browser is running already; then the command spawned, and its URL opened
 * as soon as it is printed), followed to its last span when `untilAll`;
 * then one warm reload of the same page, timed to its first screen (the
 * reload, or closing the context, ends its load).
 */
async function measure(browser: Browser, home: string, session: TraceSession, untilAll: boolean): Promise<{ cold: Sample; warm: Sample }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  let server: Server | undefined;
  try {
    await context.addInitScript({ content: FIRST_SCREEN_PROBE });
    const page = await context.newPage();
    const spawned = performance.timeOrigin + performance.now();
    server = await serve(home, session.id);
    const serverStart = server.printedAt - spawned;
    await page.goto(server.url, { waitUntil: 'commit' });
    const opened = await sample(page, server, session.spans, untilAll);
    const navigated = await page.evaluate(() => performance.timeOrigin);
    const cold = { ...opened, serverStart, fromUrl: opened.firstScreen, firstScreen: opened.firstScreen === undefined ? undefined : navigated + opened.firstScreen - spawned };
    if (server.child.exitCode !== null) return { cold, warm: { firstScreen: undefined, pagePaint: undefined } };
    await page.reload({ waitUntil: 'commit' });
    const warm = await sample(page, server, session.spans, false);
    return { cold, warm };
  } finally {
    await context.close();
    if (server) await stop(server.child);
  }
}

async function sample(page: Page, server: Server, spans: number, untilAll: boolean): Promise<Sample> {
  const options = { timeout: PATIENCE_MS, polling: 50 };
  const firstScreen = await when(server, page.waitForFunction(() => (window as { __crowFirstScreen?: number }).__crowFirstScreen, undefined, options));
  if (firstScreen === undefined) return { firstScreen, pagePaint: undefined };
  const pagePaint = (await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime)) ?? undefined;
  if (!untilAll) return { firstScreen, pagePaint };
  const allLoaded = await when(server, page.waitForFunction((count) => (document.documentElement.dataset['spanCount'] === count ? performance.now() : undefined), String(spans), options));
  return { firstScreen, pagePaint, allLoaded };
}

/** The number `waiting` gives; undefined when it took longer than PATIENCE_MS or the server stopped (said once per server). */
async function when(server: Server, waiting: Promise<JSHandle<number | undefined>>): Promise<number | undefined> {
  try {
    const handle = await Promise.race([waiting, server.exited]);
    if (handle) return (await handle.jsonValue()) ?? undefined;
    if (!server.told) console.log(`  the server stopped: ${server.stderr().trim().split('\n').slice(-6).join(' / ')}`);
    server.told = true;
    return undefined;
  } catch (err) {
    if ((err as Error).name !== 'TimeoutError') throw err;
    console.log(`  nothing after ${PATIENCE_MS / 1000} s`);
    return undefined;
  }
}

interface Server {
  child: ChildProcess;
  url: string;
  /** When the URL was printed (read), on the wall clock of performance.timeOrigin. */
  printedAt: number;
  /** Resolves (with undefined) when the process ends. */
  exited: Promise<undefined>;
  stderr(): string;
  told: boolean;
}

/** `crow trace SESSION --serve --no-open` with crow's data under `home`; resolves with the URL it prints. */
function serve(home: string, sessionId: string): Promise<Server> {
  const child = spawn(process.execPath, [CROW, 'trace', sessionId, '--serve', '--no-open'], { env: personEnv(home), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<undefined>((done) => child.once('exit', () => done(undefined)));
  return new Promise((done, fail) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(stderr)?.[0];
      if (url) done({ child, url, printedAt: performance.timeOrigin + performance.now(), exited, stderr: () => stderr, told: false });
    });
    void exited.then(() => fail(new Error(`crow trace --serve exited (${child.exitCode}) before printing its URL: ${stderr}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGINT');
  await exited;
}

/** The part of the wait that comes after the page's first paint: the viewer's own, what a trace could add to. */
function afterPaint(sample: Sample): number | undefined {
  const fromNavigation = sample.fromUrl ?? sample.firstScreen;
  return fromNavigation === undefined || sample.pagePaint === undefined ? undefined : fromNavigation - sample.pagePaint;
}

/** "median (min–max)"; a sample that never came (the server stopped, or PATIENCE_MS passed) counts as infinitely long. */
function spread(samples: (number | undefined)[]): string {
  const times = samples.map((time) => time ?? Infinity);
  const show = (ms: number): string => (ms === Infinity ? 'never' : fmt(ms));
  return `${show(median(times))} (${show(Math.min(...times))}–${show(Math.max(...times))})`;
}

function ratio(large: number, small: number): string {
  return Number.isFinite(large / small) ? `${(large / small).toFixed(2)}×` : 'n/a';
}
