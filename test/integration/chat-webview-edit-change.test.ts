/**
 * An approval's file change edited in the diff editor, the card's side
 * (issue 39 item 7), in headless Chromium: Edit… asks the host to open
 * the editor instead of showing JSON; once the host says it is open, the
 * card says so, offers "Allow with my changes" in place of Allow once and
 * Always, and its diff follows the person's text; a refusal shows in the
 * card. The host side is vscode-chat-edit-change.test.ts; the real
 * workbench, scripts/vscode-e2e/ui-checks-edit-change.ts.
 */
import assert from 'node:assert/strict';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { CODER, DIFF, INIT } from '../fixtures/chat-webview/session';
import type { ApprovalRequest } from '../../webview/chat/protocol';

const EDIT: ApprovalRequest = {
  id: 'ask-w',
  callId: 'call-w',
  actor: CODER,
  title: 'Edit src/app.ts',
  category: 'write',
  paths: ['src/app.ts'],
  alwaysScope: 'all file changes',
  diff: { path: 'src/app.ts', unified: DIFF },
  arguments: JSON.stringify({ path: 'src/app.ts', old_string: 'a', new_string: 'b' }, null, 2),
  editInEditor: true,
};

describe('chat view: a file change edited in the diff editor (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;
  beforeEach(() => (view = suite.view()));
  const page = () => view.page;

  it('Edit… opens the editor; the card then says so, follows the edit, and allows with the changes', async () => {
    await view.send({ type: 'approval', request: EDIT });
    const approval = page().locator('.approval[data-id="ask-w"]');
    await approval.locator('button[data-decision="edit"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'edit_change', id: 'ask-w' }]);
    assert.equal(await approval.locator('textarea').count(), 0, 'no JSON box');

    const mine = DIFF.replace('+export const hello = 2;', '+export const hello = 3;');
    await view.send({ type: 'approval_change', id: 'ask-w', diff: { path: 'src/app.ts', unified: mine } });
    assert.match(await approval.locator('.approval-editing-note').innerText(), /Editing in the editor: change the right side of src\/app\.ts/);
    assert.match(await approval.locator('.diff').innerText(), /\+export const hello = 3;/, 'the diff follows the edit');
    assert.deepEqual(await approval.locator('button[data-decision]:visible').allInnerTexts(), ['Allow with my changes', 'Deny'], 'Allow once and Always give way');
    await approval.focus();
    await page().keyboard.press('y');
    assert.deepEqual(await view.takePosted(), [], "y does not allow the model's version while the person edits");
    assert.match(await approval.locator('.approval-scope').innerText(), /^Keys: n deny Deny and say why…$/);

    await approval.locator('button.choice-show-editor').click();
    await approval.locator('button[data-decision="allow_edited"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'edit_change', id: 'ask-w' }, { type: 'approve_change', id: 'ask-w' }]);
    await view.send({ type: 'approval_invalid', id: 'ask-w', problem: 'your version leaves src/app.ts as it is now' });
    assert.equal(await approval.locator('.approval-problem').innerText(), 'your version leaves src/app.ts as it is now');
    assert.equal(await approval.locator('button[data-decision="allow_edited"]').isDisabled(), false, 'another try is possible');
    await approval.locator('button[data-decision="allow_edited"]').click();
    await view.send({ type: 'approval_done', id: 'ask-w', decision: 'allow_edited' });
    assert.equal(await approval.locator('button').count(), 0);
    assert.equal(await approval.locator('.approval-outcome').innerText(), 'Allowed with your changes');
  });

  it('a file that cannot be edited says why in the card, and the usual answers stay', async () => {
    await view.send({ type: 'approval', request: { ...EDIT, id: 'ask-b' } });
    const approval = page().locator('.approval[data-id="ask-b"]');
    await approval.locator('button[data-decision="edit"]').click();
    await view.send({ type: 'approval_invalid', id: 'ask-b', problem: 'src/app.ts is a binary file' });
    assert.equal(await approval.locator('.approval-problem').innerText(), 'src/app.ts is a binary file');
    assert.deepEqual(await approval.locator('button[data-decision]:visible').allInnerTexts(), ['Allow once', 'Always', 'Deny', 'Edit…']);
  });
});
