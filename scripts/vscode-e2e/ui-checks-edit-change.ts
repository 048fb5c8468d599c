/**
 * The UI phase's check of Edit… on a file change (issue 39, item 7): it
 * opens VS Code's diff editor, the file as it is now on the left and
 * Crow's proposed version on the right, which the person edits; the card
 * says the change is being edited there and its diff follows the typing;
 * "Allow with my changes" writes exactly the person's text, the editor
 * closes, and the card says it was allowed with their changes. Code-server
 * auto-saves a second after typing stops, so the check also shows that a
 * save is not taken for a yes. Screenshots
 * while editing, at a 300 and a 250 px side bar, dark and light:
 * ui-clicks-edit-change-*.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext, waitUntil } from './ui-checks';
import { screenshots } from './ui-checks-clicks';

const EDIT = {
  path: 'edit-change.js',
  before: 'export const answer = 41;\n',
  typed: 'export const checked = true;',
  after: 'export const answer = 42;\nexport const checked = true;\n',
  prompt: 'Make the answer 42.',
  done: 'The answer is 42 now.',
};

export const EDIT_CHANGE_CHECKS: UiCheck[] = [
  {
    slug: 'edit-change',
    name: "Edit… on a file change opens it in the diff editor; the person types on the right side, the card's diff follows, and Allow with my changes writes their text (screenshots ui-clicks-edit-change-*.png)",
    timeoutMs: 150_000,
    run: editChange,
  },
  {
    slug: 'edit-change-cancel',
    name: 'a cancel while the person edits a proposed change closes its diff editor without asking to save, and writes nothing',
    timeoutMs: 120_000,
    run: cancelWhileEditing,
  },
];

const CANCEL = { path: 'edit-cancel.txt', before: 'as it was\n', prompt: 'Rewrite the cancel notes.', typed: 'mine, unsaved' };

async function cancelWhileEditing(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const chat = chatFrame(context);
  const file = join(context.workspace, CANCEL.path);
  writeFileSync(file, CANCEL.before);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('write_file', { path: CANCEL.path, content: 'the model\'s\n' }));
  await sendPrompt(chat, CANCEL.prompt, timeoutMs);
  const approval = chat.locator('.approval:not([data-decision])').first();
  await approval.locator('button[data-decision="edit"]').click({ timeout: timeoutMs });
  const tab = page.locator('.tabs-container .tab', { hasText: `Crow's proposed change to ${CANCEL.path}` });
  await tab.waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.monaco-diff-editor .editor.modified .view-lines').first().click({ timeout: timeoutMs });
  await page.keyboard.press('Control+End');
  await page.keyboard.type(CANCEL.typed, { delay: 20 });
  await approval.locator('.approval-diff .diff', { hasText: CANCEL.typed }).waitFor({ state: 'visible', timeout: timeoutMs });
  await chat.locator('#cancel').click({ timeout: timeoutMs });
  // Closed without a "Do you want to save?" in the way.
  await tab.waitFor({ state: 'hidden', timeout: timeoutMs / 3 }).catch(async () => {
    const dialog = await page.locator('.monaco-dialog-box').innerText().catch(() => '');
    throw new HarnessError(`the proposed change's editor stayed open after the cancel${dialog ? `, behind a dialog: ${JSON.stringify(dialog)}` : ''}`);
  });
  await chat.locator('#cancel').waitFor({ state: 'hidden', timeout: timeoutMs });
  if (readFileSync(file, 'utf8') !== CANCEL.before) throw new HarnessError(`a cancelled edit wrote ${CANCEL.path}: ${JSON.stringify(readFileSync(file, 'utf8'))}`);
}

async function editChange(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const chat = chatFrame(context);
  const file = join(context.workspace, EDIT.path);
  writeFileSync(file, EDIT.before);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('edit_file', { path: EDIT.path, old_string: 'answer = 41', new_string: 'answer = 42' }), say(EDIT.done));
  await sendPrompt(chat, EDIT.prompt, timeoutMs);
  const approval = chat.locator('.approval:not([data-decision])').first();
  await approval.locator('button[data-decision="edit"]').click({ timeout: timeoutMs });

  // The diff editor, titled as Crow's proposed change, its right side editable.
  const tab = page.locator('.tabs-container .tab', { hasText: `Crow's proposed change to ${EDIT.path}` });
  await tab.waitFor({ state: 'visible', timeout: timeoutMs });
  const right = page.locator('.monaco-diff-editor .editor.modified .view-lines').first();
  await right.click({ timeout: timeoutMs });
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type(EDIT.typed, { delay: 20 });
  await approval.locator('.approval-editing-note').waitFor({ state: 'visible', timeout: timeoutMs });
  await approval.locator('.approval-diff .diff', { hasText: EDIT.typed }).waitFor({ state: 'visible', timeout: timeoutMs });
  // The editor offers the same yes in its title bar.
  await page.locator('.editor-actions .action-label[aria-label^="Allow with My Changes"]').first().waitFor({ state: 'visible', timeout: timeoutMs });
  await screenshots(context, approval, 'edit-change', timeoutMs);
  // VS Code for the web saves by itself a second after typing stops: that save is no yes.
  if (readFileSync(file, 'utf8') !== EDIT.before) throw new HarnessError('the file changed before the person allowed the edit (an auto-save of the proposed side allowed it?)');

  await approval.locator('button[data-decision="allow_edited"]').click({ timeout: timeoutMs });
  await waitUntil(() => readFileSync(file, 'utf8') === EDIT.after, timeoutMs / 3, `after Allow with my changes ${EDIT.path} holds ${JSON.stringify(readFileSync(file, 'utf8'))}, not the person's text`);
  // The question goes once the call ends; the call's card keeps the answer.
  const card = chat.locator('.tool-card', { hasText: `Edited ${EDIT.path}` }).last();
  await card.waitFor({ state: 'visible', timeout: timeoutMs });
  await card.locator('text=allowed with your changes').waitFor({ state: 'visible', timeout: timeoutMs / 3 }).catch(async () => {
    throw new HarnessError(`the call's card does not say it was allowed with the person's changes: ${JSON.stringify(await card.innerText())}`);
  });
  await tab.waitFor({ state: 'hidden', timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: EDIT.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const told = JSON.stringify(context.fake.requests.at(-1)?.body ?? {});
  if (!told.includes("The user edited this call's arguments")) throw new HarnessError('the model was not told that the person changed the content');
}
