/**
 * The UI phase's check of Keep and Undo on each hunk in the editor (issue
 * 39, item 8): a file the prompt changed, opened from its row in the
 * changes bar, shows Keep and Undo over each hunk; Undo on one puts back
 * only its lines on disk, and the bar's counts follow. Screenshots at a
 * 300 (and 250) px side bar, dark and light: ui-clicks-editor-hunks-*.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';
import { allowUntil } from './ui-checks-changes';
import { screenshots } from './ui-checks-clicks';

export const EDITOR_HUNK_CHECKS: UiCheck[] = [
  {
    slug: 'editor-hunk-undo',
    name: "a file the prompt changed shows Keep and Undo over each hunk in the editor; Undo on one puts back only its lines on disk and the bar's counts follow, Keep there the bar's list too (screenshots ui-clicks-editor-hunks-*.png)",
    timeoutMs: 150_000,
    run: editorHunkUndo,
  },
];

const EDITED = {
  path: 'editor-hunks.txt',
  before: 'first line\n2\n3\n4\n5\n6\nlast line\n',
  after: 'FIRST LINE\n2\n3\n4\n5\n6\nLAST LINE\n',
  undone: 'FIRST LINE\n2\n3\n4\n5\n6\nlast line\n',
  prompt: 'Shout the first and last lines.',
  done: 'Shouted the first and last lines.',
};

async function editorHunkUndo(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const { page } = context;
  const file = join(context.workspace, EDITED.path);
  writeFileSync(file, EDITED.before);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('write_file', { path: EDITED.path, content: EDITED.after }), say(EDITED.done));
  await sendPrompt(chat, EDITED.prompt, timeoutMs);
  await allowUntil(chat, EDITED.done, timeoutMs);
  const row = chat.locator(`.changes-bar .changes-file[data-path="${EDITED.path}"]`).last();
  // The person opens the file from the bar, as they would to look at the change.
  await row.locator('.file-link').click({ timeout: timeoutMs });
  const editor = page.locator('.editor-instance .monaco-editor', { has: page.locator('.view-lines') }).first();
  await page.locator('.tab.active', { hasText: EDITED.path }).waitFor({ state: 'visible', timeout: timeoutMs / 4 });
  const undo = editor.locator('.codelens-decoration a', { hasText: 'Undo' });
  await undo.nth(1).waitFor({ state: 'visible', timeout: timeoutMs / 4 }).catch(async () => {
    throw new HarnessError(`the editor of ${EDITED.path} shows no Keep and Undo over its two hunks; its lenses: ${JSON.stringify(await editor.locator('.codelens-decoration').allInnerTexts())}`);
  });
  const keep = editor.locator('.codelens-decoration a', { hasText: 'Keep' });
  if ((await keep.count()) !== 2 || (await undo.count()) !== 2) throw new HarnessError(`expected Keep and Undo over each of 2 hunks, got ${await keep.count()} Keep and ${await undo.count()} Undo`);
  await screenshots(context, editor, 'editor-hunks', timeoutMs / 3);
  await undo.nth(1).click({ timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs / 4;
  while (readFileSync(file, 'utf8') !== EDITED.undone) {
    if (Date.now() > deadline) throw new HarnessError(`after the last hunk's Undo in the editor ${EDITED.path} holds ${JSON.stringify(readFileSync(file, 'utf8'))}`);
    await page.waitForTimeout(200);
  }
  // The editor follows: one hunk left; the bar follows: its counts are the journal's again.
  await undo.nth(1).waitFor({ state: 'detached', timeout: timeoutMs / 4 }).catch(() => {
    throw new HarnessError('the editor still offers Undo on the hunk it put back');
  });
  const added = row.locator('.changes-added', { hasText: '+1' });
  await added.waitFor({ state: 'visible', timeout: timeoutMs / 4 }).catch(async () => {
    throw new HarnessError(`after the editor's Undo the bar counts ${await row.locator('.changes-added').innerText()} ${await row.locator('.changes-removed').innerText()} for ${EDITED.path}, not +1 −1`);
  });
  await screenshots(context, editor, 'editor-hunks-undone', timeoutMs / 3);
  // Keep dismisses the last one and writes nothing; the bar's list of the file's changes follows.
  await row.locator('button.changes-hunks-toggle').click({ timeout: timeoutMs });
  await row.locator('.changes-hunk').first().waitFor({ state: 'visible', timeout: timeoutMs / 4 });
  await keep.first().click({ timeout: timeoutMs });
  await keep.first().waitFor({ state: 'detached', timeout: timeoutMs / 4 });
  if (readFileSync(file, 'utf8') !== EDITED.undone) throw new HarnessError('Keep on a hunk in the editor wrote the file');
  await row.locator('.changes-hunk-none', { hasText: 'Every change here is kept.' }).waitFor({ state: 'visible', timeout: timeoutMs / 4 }).catch(async () => {
    throw new HarnessError(`the bar still offers the hunk kept in the editor: ${await row.locator('.changes-hunks').innerText()}`);
  });
}
