/**
 * The chat view in another language (headless Chromium): the host puts the
 * display language's bundle in the page (webviewPage's `l10n`, a JSON data
 * block the CSP lets through since it never runs), the view reads it before
 * it draws, and its words come from it; a message the bundle lacks stays
 * English. The bundle's keys are l10n/bundle.l10n.json's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { CODER, DIFF, INIT } from '../fixtures/chat-webview/session';
import type { ApprovalRequest } from '../../webview/chat/protocol';

const WRITE: ApprovalRequest = {
  id: 'ask-de',
  callId: 'call-de',
  actor: CODER,
  title: 'Edit src/app.ts',
  category: 'write',
  paths: ['src/app.ts'],
  alwaysScope: 'all file changes',
  diff: { path: 'src/app.ts', unified: DIFF },
};

/** A few of the view's words in German, keyed as the exported bundle keys them. */
const GERMAN: Record<string, string> = {
  'Allow once': 'Einmal erlauben',
  'Always': 'Immer',
  'Allow {0} this time': '{0} dieses Mal erlauben',
  'Approval needed': 'Freigabe nötig',
  'Denied': 'Abgelehnt',
  // "</script>" in a translation must not end the page's data block.
  'Preview': 'Vorschau </script><b>',
};

describe('chat view: its words in the display language (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);

  it('the exported bundle holds the keys this test translates', () => {
    const bundle = JSON.parse(readFileSync(join(__dirname, '..', '..', 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(GERMAN).filter((key) => bundle[key] !== key), []);
  });

  it("an approval's buttons, label and outcome read in German; what the bundle lacks stays English", async () => {
    const view = await ChatView.open(suite.harness(), 'dark', GERMAN);
    try {
      await view.send(INIT, { type: 'approval', request: WRITE });
      const approval = view.page.locator('.approval[data-id="ask-de"]');
      assert.deepEqual(await approval.locator('button[data-decision]').allInnerTexts(), ['Einmal erlauben', 'Immer', 'Deny']);
      assert.equal(await approval.locator('button[data-decision="allow_once"]').getAttribute('title'), 'Edit src/app.ts dieses Mal erlauben');
      assert.equal(await approval.getAttribute('aria-label'), 'Freigabe nötig: Edit src/app.ts');
      assert.equal(await approval.locator('button.preview-change').innerText(), 'Vorschau </script><b>', 'a translation is text, never markup');
      await view.send({ type: 'approval_done', id: 'ask-de', decision: 'reject_once' });
      assert.equal(await approval.locator('.approval-outcome').innerText(), 'Abgelehnt');
      assert.deepEqual(await view.violations(), [], 'the bundle in the page breaks no CSP rule');
      assert.deepEqual(view.problems, []);
    } finally {
      await view.close();
    }
  });

  it('a page without a bundle is English', async () => {
    const view = suite.view();
    await view.send({ type: 'approval', request: WRITE });
    assert.deepEqual(await view.page.locator('.approval button[data-decision]').allInnerTexts(), ['Allow once', 'Always', 'Deny']);
  });
});
