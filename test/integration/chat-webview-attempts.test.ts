/**
 * The parallel attempts' card in the chat view's bundle (headless
 * Chromium): the Attempts picker posts its count; the card redrawn in
 * place as the host sends it (rows running, then ranked best first); the
 * judge's reasons and the attempts' diffs shown as text, never HTML; a
 * diff opened stays open across a redraw; Apply and Apply none reached
 * from the keyboard post the run and the attempt. The host side is
 * vscode-chat-attempts.test.ts; the real workbench,
 * scripts/vscode-e2e/ui-checks-attempts.ts.
 */
import assert from 'node:assert/strict';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { INIT } from '../fixtures/chat-webview/session';
import type { AttemptsCardView } from '../../webview/chat/protocol';
import { pickOption } from '../support/vscode-elements';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
const DIFF = 'diff --git a/greet.js b/greet.js\n--- a/greet.js\n+++ b/greet.js\n@@ -1 +1 @@\n-<script>alert(1)</script>\n+hello\n';

const RUNNING: AttemptsCardView = {
  id: 'run-1',
  count: 2,
  phase: 'running',
  rows: [
    { n: 1, state: 'running', steps: 2, files: [], tokens: 0 },
    { n: 2, state: 'waiting', steps: 0, files: [], tokens: 0 },
  ],
};
const RANKED: AttemptsCardView = {
  ...RUNNING,
  phase: 'ranked',
  judged: { used: true },
  costUsd: 0.0123,
  rows: [
    { n: 2, state: 'ended', status: 'completed', steps: 1, check: true, files: [{ path: 'greet.js', added: 1, removed: 1 }], tokens: 900, costUsd: 0.004, why: HOSTILE, diffs: [{ path: 'greet.js', unified: DIFF }] },
    { n: 1, state: 'ended', status: 'error', steps: 2, check: false, files: [], tokens: 800, why: 'It broke.', diffs: [] },
  ],
};

describe('chat view: the parallel attempts card (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;
  beforeEach(() => (view = suite.view()));
  const page = () => view.page;

  it('the Attempts picker posts the count, and shows what the host says', async () => {
    await pickOption(page().locator('#attempts'), '3 attempts');
    assert.deepEqual(await view.takePosted(), [{ type: 'pick_attempts', count: 3 }]);
    await view.send({ type: 'attempts_count', count: 2 });
    assert.equal(await page().locator('#attempts').evaluate((element) => (element as HTMLElement & { value: string }).value), '2');
  });

  it('one card redrawn in place: running rows, then ranked best first with reasons and diffs as text, Apply only where there are changes', async () => {
    await view.send({ type: 'attempts', card: RUNNING });
    const card = page().locator('.attempts-card[data-run-id="run-1"]');
    assert.equal(await card.getAttribute('data-phase'), 'running');
    assert.match(await card.locator('.attempt-row[data-n="1"]').innerText(), /Attempt 1\s+running, 2 steps/);
    assert.match(await card.locator('.attempt-row[data-n="2"]').innerText(), /waiting/);

    await view.send({ type: 'attempts', card: RANKED });
    assert.equal(await page().locator('.attempts-card').count(), 1, 'the same card, redrawn');
    assert.match(await card.locator('.attempts-heading').innerText(), /Attempts, best first, ranked by the judge; \$0\.0123 in all/);
    assert.deepEqual(await card.locator('.attempt-row').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset['n'])), ['2', '1']);
    const best = card.locator('.attempt-row[data-n="2"]');
    assert.match(await best.innerText(), /#1\s+Attempt 2\s+finished\s+check passed\s+1 file \+1 \u22121\s+\$0\.0040/);
    assert.equal(await best.locator('.attempt-why').innerText(), HOSTILE);
    assert.equal(await card.locator('img, b, script').count(), 0, 'no markup from the judge or the diff became HTML');
    assert.equal(await page().evaluate('window.__pwned'), undefined);
    assert.match(await card.locator('.attempt-row[data-n="1"]').innerText(), /failed\s+check FAILED\s+no changes/);
    assert.equal(await card.locator('.attempt-apply').count(), 1, 'Apply only for the attempt with changes');

    // A diff opened from the keyboard stays open when the card is redrawn.
    const summary = best.locator('details.attempt-diff > summary');
    await summary.focus();
    await page().keyboard.press('Enter');
    assert.equal(await best.locator('.diff-del').innerText(), '-<script>alert(1)</script>');
    await view.send({ type: 'attempts', card: RANKED });
    assert.equal(await card.locator('details.attempt-diff[data-n="2"]').evaluate((element) => (element as HTMLDetailsElement).open), true);
  });

  it('Apply and Apply none from the keyboard post the run and the attempt; labels name what they do', async () => {
    await view.send({ type: 'attempts', card: RANKED });
    const card = page().locator('.attempts-card[data-run-id="run-1"]');
    const apply = card.locator('.attempt-apply[data-n="2"]');
    assert.equal(await apply.getAttribute('aria-label'), 'Apply attempt 2 to your files (Undo takes it back)');
    await apply.focus();
    await page().keyboard.press('Enter');
    const none = card.locator('.attempts-dismiss');
    await none.focus();
    await page().keyboard.press('Enter');
    assert.deepEqual(await view.takePosted(), [
      { type: 'apply_attempt', run: 'run-1', n: 2 },
      { type: 'dismiss_attempts', run: 'run-1' },
    ]);
    await view.send({ type: 'attempts', card: { ...RANKED, phase: 'applied', applied: 2 } });
    assert.equal(await card.locator('.attempt-apply, .attempts-dismiss').count(), 0, 'no choice once one is applied');
    assert.match(await card.locator('.attempts-heading').innerText(), /Attempt 2 applied/);
  });

  it("a background run's kept attempts say they stay to pick later, or which was applied, not that worktrees were removed", async () => {
    const card = page().locator('.attempts-card[data-run-id="run-1"]');
    await view.send({ type: 'attempts', card: { ...RANKED, kept: true, phase: 'dismissed' } });
    assert.match(await card.locator('.attempts-heading').innerText(), /None applied: the background run keeps its attempts \(Background runs, Open\)\./);
    await view.send({ type: 'attempts', card: { ...RANKED, kept: true, phase: 'applied', applied: 2 } });
    assert.equal(await card.locator('.attempts-heading').innerText(), 'Attempt 2 applied: Undo takes it back.');
  });

  it('a run that could not start says why, and nothing else', async () => {
    await view.send({ type: 'attempts', card: { ...RUNNING, phase: 'failed', problem: '/w is not in a git repository: attempts run in git worktrees. Run git init and commit once, then try again.' } });
    const card = page().locator('.attempts-card');
    assert.match(await card.innerText(), /The attempts could not run\.\s+\/w is not in a git repository/);
    assert.equal(await card.locator('.attempt-row').count(), 0);
  });
});
