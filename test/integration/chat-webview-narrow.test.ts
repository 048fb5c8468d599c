/**
 * The chat view in a narrow sidebar (250 and 300 px), headless Chromium.
 * A tool card's head keeps what happened and its outcome whole (its words
 * wrap; time and state go to a second line when there is no room), and the
 * transcript never scrolls sideways, also once focus moves; Send stays beside the
 * pickers, each of which shows its whole value (they wrap onto lines of their
 * own when the row is short); an approval's answers stay on one line. The real workbench checks
 * the same at the same widths (scripts/vscode-e2e/ui-checks-narrow.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Locator } from 'playwright-core';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { CODER, INIT } from '../fixtures/chat-webview/session';
import { readPickers, unreadablePickers } from '../support/vscode-elements';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';

const ARTIFACTS = resolve(__dirname, '..', 'artifacts', 'chat-webview');
const LONG_PATH = 'src/features/checkout/components/payment-method-selector.test.tsx';
const COMMAND = 'npm test -- --grep "payment method selector keeps the last choice" --reporter dot';

describe('chat view in a narrow sidebar (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;

  before(() => mkdirSync(ARTIFACTS, { recursive: true }));
  beforeEach(() => (view = suite.view()));

  const page = () => view.page;
  const events = (...list: TranscriptEvent[]): HostMessage => ({ type: 'events', events: list });
  const box = async (locator: Locator) => {
    const found = await locator.boundingBox();
    assert.ok(found, 'the element is shown');
    return found;
  };

  for (const width of [250, 300]) {
    it(`at ${width} px: tool heads keep their facts whole, nothing scrolls sideways, the composer row and an approval's answers each stay on one line`, async () => {
      await page().setViewportSize({ width, height: 700 });
      // The pair agent with both models and a thinking level: four pickers in the composer row.
      const models = (INIT as Extract<HostMessage, { type: 'init' }>).models;
      await view.send({ type: 'agents', agents: (INIT as Extract<HostMessage, { type: 'init' }>).agents, agent: 'pair', models, thinking: { current: 'medium', levels: ['off', 'low', 'medium', 'high'] } });
      // A run waits on its approval: Cancel and Queue share the row with the pickers, as in the real workbench.
      await view.send({ type: 'busy', busy: true });
      await view.send(
        events(
          { type: 'user_message', text: 'Fix the payment selector test' },
          { type: 'tool_start', actor: CODER, callId: 'read-1', tool: 'read_file', kind: 'read', title: LONG_PATH, argumentsText: '{}', words: { doing: 'Reading', done: 'Read', ask: 'read', target: LONG_PATH, file: true } },
          { type: 'tool_end', callId: 'read-1', status: 'completed', durationMs: 1_234, output: 'x', files: [] },
          { type: 'tool_start', actor: CODER, callId: 'test-1', tool: 'bash', kind: 'execute', title: 'npm test', argumentsText: '{}', words: { doing: 'Running', done: 'Ran', ask: 'run', target: 'npm test' } },
          { type: 'tool_end', callId: 'test-1', status: 'completed', durationMs: 2_600, exitCode: 254, sandboxed: true, output: 'npm ERR! missing script: test', files: [] },
          { type: 'tool_start', actor: { agent: 'code-reviewer', role: 'reviewer' }, callId: 'run-1', tool: 'bash', kind: 'execute', title: COMMAND, argumentsText: '{}', words: { doing: 'Running', done: 'Ran', ask: 'run', target: COMMAND } },
        ),
      );
      // An editable call: four answers (Allow once, Always, Deny, Edit) to keep on one line.
      await view.send({ type: 'approval', request: { id: 'ask-1', callId: 'run-1', actor: CODER, title: `Run: ${COMMAND}`, category: 'execute', command: COMMAND, paths: [], alwaysScope: 'all commands starting with "npm test"', arguments: '{}' } });
      await view.frames();

      for (const head of await page().locator('.tool-head').all()) {
        const whole = await box(head);
        assert.ok(whole.x + whole.width <= width, 'a tool head stays inside the view');
        assert.ok(await head.evaluate((element) => element.scrollWidth <= element.clientWidth), 'nothing in it runs past its end');
        for (const part of await head.locator('.tool-what, .tool-state:visible, .tool-duration').all()) {
          assert.ok(await part.evaluate((element) => element.scrollWidth <= element.clientWidth), `"${await part.innerText()}" is shown whole at ${width} px`);
        }
      }
      const failed = page().locator('.tool-card[data-call-id="test-1"] .tool-head');
      assert.match(await failed.innerText(), /Ran npm test[\s\S]*failed, exit 254[\s\S]*sandboxed[\s\S]*2\.6s/, 'what happened and how it ended, whole');
      assert.equal(await page().locator('.tool-card[data-call-id="read-1"] .tool-what').innerText(), `Read ${LONG_PATH}`, 'a long path wraps rather than being cut');
      assert.equal(await page().locator('.tool-card[data-call-id="run-1"] .tool-state').innerText(), 'waiting for you');
      // Focus moving through the transcript (Tab to the last card's Trace) must not scroll it sideways.
      await page().locator('.tool-card[data-call-id="run-1"] .trace-link').focus();
      const sideways = await page().evaluate(() => Array.from(document.querySelectorAll('#transcript, body, html')).map((element) => ({ scroll: element.scrollWidth, client: element.clientWidth, left: element.scrollLeft })));
      for (const measured of sideways) assert.ok(measured.scroll <= measured.client && measured.left === 0, `nothing scrolls sideways at ${width} px: ${JSON.stringify(sideways)}`);

      const send = await box(page().locator('#send'));
      const firstPicker = await box(page().locator('.pickers vscode-single-select').first());
      assert.ok(Math.abs(send.y - firstPicker.y) < firstPicker.height, `Send stays beside the pickers at ${width} px (Send at y ${send.y}, pickers at ${firstPicker.y})`);
      assert.ok(send.x + send.width <= width, 'Send is inside the view');
      // Icons only here, to leave the pickers room; the label and name still say what it does.
      assert.deepEqual(await page().locator('#send').evaluate((element) => ({ label: element.textContent?.trim(), shown: (element as HTMLElement).innerText.trim(), name: element.getAttribute('aria-label')?.split(' ')[0] })), { label: 'Queue', shown: '', name: 'Queue' });
      // Each picker's value whole at a glance: the pickers wrap onto lines of their own rather than cut it.
      const pickers = await readPickers(page().locator('.pickers vscode-single-select'));
      // The agent, its two models, thinking, and Attempts.
      assert.deepEqual(pickers.map((picker) => picker.value), ['pair', 'claude-sonnet-4-5', 'gpt-5-mini', 'medium', '1']);
      assert.deepEqual(unreadablePickers(pickers, width), []);

      const answers = await page().locator('.approval .approval-actions button').all();
      const tops = await Promise.all(answers.map(async (answer) => (await box(answer)).y));
      assert.equal(tops.length, 4);
      for (const answer of answers.slice(0, 3)) assert.equal(await answer.evaluate((element) => element.scrollWidth <= element.clientWidth), true, `"${await answer.textContent()}" is shown whole`);
      assert.ok(tops.length >= 3 && tops.every((top) => Math.abs(top - tops[0]!) < 2), `the answers are on one line at ${width} px: ${tops.join(', ')}`);
      for (const answer of answers) assert.ok((await box(answer)).x + (await box(answer)).width <= width, 'every answer is inside the view');
      await page().screenshot({ path: join(ARTIFACTS, `chat-view-narrow-${width}.png`) });
    });
  }
});
