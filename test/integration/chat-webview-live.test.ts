/**
 * A running tool card in the chat view (headless Chromium): its time and
 * the end of its output while it runs, gone into the finished card's output
 * once it ends. The real workbench shows the same card in the UI phase
 * (scripts/vscode-e2e/ui-checks-runs.ts, "live-output").
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { CODER, INIT } from '../fixtures/chat-webview/session';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';

const ARTIFACTS = resolve(__dirname, '..', 'artifacts', 'chat-webview');
const START: TranscriptEvent = { type: 'tool_start', actor: CODER, callId: 'c1', tool: 'bash', kind: 'execute', title: 'npm test', argumentsText: '{}' };

describe('a running tool card in headless Chromium', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;

  before(() => mkdirSync(ARTIFACTS, { recursive: true }));
  beforeEach(() => (view = suite.view()));

  const page = () => view.page;
  const events = (...list: TranscriptEvent[]): HostMessage => ({ type: 'events', events: list });
  const card = () => page().locator('.tool-card[data-call-id="c1"]');

  it('shows the time so far and the newest lines of output, scrolled to the end, each update replacing the last', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `test ${i + 1} passed`).join('\n');
    await view.send(events(START, { type: 'tool_progress', callId: 'c1', elapsedMs: 1_000 }));
    assert.equal(await card().locator('.tool-duration').innerText(), '1.0s');
    assert.equal(await card().locator('.tool-live').count(), 0, 'a beat alone shows only the time');
    await view.send(events({ type: 'tool_progress', callId: 'c1', elapsedMs: 2_000, tail: 'test 1 passed', lines: 1 }));
    await view.send(events({ type: 'tool_progress', callId: 'c1', elapsedMs: 3_000, tail: many, lines: 412, step: 'Running suites (3/9)' }));
    assert.equal(await card().getAttribute('data-status'), 'running');
    assert.equal(await card().locator('.tool-duration').innerText(), '3.0s');
    assert.equal(await card().locator('.tool-live-caption').innerText(), 'Output so far (412 lines)');
    assert.equal(await card().locator('.tool-step').innerText(), 'Running suites (3/9)');
    const tail = card().locator('.tool-tail');
    assert.equal(await tail.innerText(), many);
    const scroll = await tail.evaluate((pre) => ({ top: pre.scrollTop, bottom: pre.scrollHeight - pre.clientHeight }));
    assert.ok(scroll.bottom > 0 && Math.abs(scroll.top - scroll.bottom) <= 1, `the newest line is in view: ${JSON.stringify(scroll)}`);
    assert.ok(await tail.locator('text=test 40 passed').isVisible());
    await page().setViewportSize({ width: 420, height: 520 });
    await view.frames();
    await page().screenshot({ path: join(ARTIFACTS, 'chat-view-running-card.png') });

    await view.send(events({ type: 'tool_end', callId: 'c1', status: 'completed', durationMs: 3_400, output: `${many}\n[exit code 0]`, files: [] }));
    assert.equal(await card().locator('.tool-live').count(), 0, 'the finished card shows its output, not the live tail');
    assert.equal(await card().locator('.tool-duration').innerText(), '3.4s');
    await view.send(events({ type: 'tool_progress', callId: 'c1', elapsedMs: 4_000, tail: 'late', lines: 1 }));
    assert.equal(await card().locator('.tool-live').count(), 0, 'progress after the end changes nothing');
  });

  it('shows the step of a call that reports steps but no output (an MCP tool), and no empty output box', async () => {
    await view.send(events(START, { type: 'tool_progress', callId: 'c1', elapsedMs: 2_000, step: 'Indexing (3/10)' }));
    assert.equal(await card().locator('.tool-step').innerText(), 'Indexing (3/10)');
    assert.equal(await card().locator('.tool-tail').isVisible(), false);
    assert.equal(await card().locator('.tool-live-caption').isVisible(), false);
  });

  it('keeps the last output of a call the prompt ended without, and keeps markup in it inert', async () => {
    const hostile = '<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>';
    await view.send(events(START, { type: 'tool_progress', callId: 'c1', elapsedMs: 5_000, tail: hostile, lines: 1, step: hostile }));
    await view.send(events({ type: 'prompt_end', status: 'cancelled', message: 'Cancelled by the user' }));
    assert.equal(await card().getAttribute('data-status'), 'stopped');
    assert.equal(await card().locator('.tool-tail').innerText(), hostile);
    assert.equal(await page().evaluate('window.__xss'), undefined);
    assert.equal(await page().locator('#app img, #app script').count(), 0);
  });
});
