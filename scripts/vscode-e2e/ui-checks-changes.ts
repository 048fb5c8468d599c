/**
 * The UI phase's checks of the changes bar as a view of the prompt's
 * journal (issue 37; issue 39, items 7 and 8): the bar lists what Undo
 * would put back, so a file a command changed is there with its lines and
 * a file the agent wrote and put back is not. Screenshots at a 300 (and
 * 250) px side bar, dark and light: ui-clicks-journal-*.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { HarnessError } from './harness-error';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';
import { screenshots } from './ui-checks-clicks';

const JOURNAL = { command: 'journal-cmd.txt', putBack: 'journal-back.txt', prompt: 'Tidy the journal notes.', done: 'Tidied the journal notes.' };

export const CHANGES_CHECKS: UiCheck[] = [
  {
    slug: 'changes-from-journal',
    name: "the changes bar lists what the journal says the prompt changed: a command's file with its lines, not a file written and put back (screenshots ui-clicks-journal-*.png)",
    timeoutMs: 120_000,
    run: changesFromJournal,
  },
];

export const HUNK_CHECKS: UiCheck[] = [
  {
    slug: 'hunk-undo',
    name: "a file's row in the changes bar opens its hunks; Undo on one puts back only its lines and the counts follow, Keep hides one (screenshots ui-clicks-hunks-*.png)",
    timeoutMs: 120_000,
    run: hunkUndo,
  },
];

const HUNKS = { path: 'hunks-notes.txt', before: 'alpha\n2\n3\n4\n5\nomega\n', after: 'ALPHA\n2\n3\n4\n5\nOMEGA\n', prompt: 'Shout the ends of the notes.', done: 'Shouted both ends.' };

async function hunkUndo(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const file = join(context.workspace, HUNKS.path);
  writeFileSync(file, HUNKS.before);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('write_file', { path: HUNKS.path, content: HUNKS.after }), say(HUNKS.done));
  await sendPrompt(chat, HUNKS.prompt, timeoutMs);
  await allowUntil(chat, HUNKS.done, timeoutMs);
  const row = chat.locator(`.changes-bar .changes-file[data-path="${HUNKS.path}"]`).last();
  await row.locator('button.changes-hunks-toggle').click({ timeout: timeoutMs });
  const hunks = row.locator('.changes-hunk');
  await row.locator('.changes-hunks').waitFor({ state: 'attached', timeout: timeoutMs / 4 }).catch(async () => {
    throw new HarnessError(`no hunks came for ${HUNKS.path}; its row: ${await row.innerHTML()}; the transcript ends: ${(await chat.locator('main.transcript').innerText()).slice(-400)}`);
  });
  await hunks.nth(1).waitFor({ state: 'visible', timeout: timeoutMs / 6 }).catch(async () => {
    const boxes = await hunks.evaluateAll((nodes) => nodes.map((node) => JSON.stringify(node.getBoundingClientRect())));
    throw new HarnessError(`the second hunk of ${HUNKS.path} is not visible; hunks' boxes: ${boxes.join(' ')}; its row: ${await row.innerHTML()}`);
  });
  if ((await hunks.count()) !== 2) throw new HarnessError(`${HUNKS.path} shows ${await hunks.count()} hunks, not 2`);
  await screenshots(context, row, 'hunks', timeoutMs / 4);
  await hunks.nth(1).locator('button.changes-hunk-undo').click({ timeout: timeoutMs });
  await row.locator('.changes-hunk-restored').waitFor({ state: 'visible', timeout: timeoutMs });
  const content = readFileSync(file, 'utf8');
  if (content !== 'ALPHA\n2\n3\n4\n5\nomega\n') throw new HarnessError(`after one hunk's Undo ${HUNKS.path} holds ${JSON.stringify(content)}`);
  await row.locator('.changes-hunk').nth(1).waitFor({ state: 'detached', timeout: timeoutMs });
  // The journal's new counts come after the file's hunks: wait for them as a person sees them change.
  await row.locator('.changes-added', { hasText: /^\+1$/ }).waitFor({ state: 'visible', timeout: timeoutMs / 4 }).catch(() => undefined);
  const counts = `${await row.locator('.changes-added').innerText()} ${await row.locator('.changes-removed').innerText()}`;
  if (counts !== '+1 −1') throw new HarnessError(`after one hunk's Undo the bar counts ${JSON.stringify(counts)} for ${HUNKS.path}`);
  await row.locator('.changes-hunk button.changes-hunk-keep').click({ timeout: timeoutMs });
  await row.locator('.changes-hunk-none').waitFor({ state: 'visible', timeout: timeoutMs / 4 });
  if (readFileSync(file, 'utf8') !== content) throw new HarnessError('Keep on a hunk wrote the file');
}

async function changesFromJournal(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  writeFileSync(join(context.workspace, JOURNAL.command), 'old\n');
  writeFileSync(join(context.workspace, JOURNAL.putBack), 'same\n');
  await newSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: JOURNAL.putBack, content: 'changed\n' }),
    toolCall('write_file', { path: JOURNAL.putBack, content: 'same\n' }),
    toolCall('bash', { command: `echo new > ${JOURNAL.command}` }),
    say(JOURNAL.done),
  );
  await sendPrompt(chat, JOURNAL.prompt, timeoutMs);
  await allowUntil(chat, JOURNAL.done, timeoutMs / 2);
  if (readFileSync(join(context.workspace, JOURNAL.command), 'utf8') !== 'new\n') throw new HarnessError(`the command did not change ${JOURNAL.command}`);
  const bar = chat.locator('.changes-bar').last();
  await bar.waitFor({ state: 'visible', timeout: timeoutMs / 4 }).catch(async () => {
    throw new HarnessError(`the answer showed but no changes bar came; busy=${await chat.locator('body').getAttribute('data-busy')}`);
  });
  const rows = await bar.locator('.changes-file').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset['path']));
  if (JSON.stringify(rows) !== JSON.stringify([JOURNAL.command])) throw new HarnessError(`the bar lists ${JSON.stringify(rows)}, not just ${JOURNAL.command} (the file put back is not changed)`);
  const row = bar.locator(`.changes-file[data-path="${JOURNAL.command}"]`);
  const counts = `${await row.locator('.changes-added').innerText({ timeout: timeoutMs })} ${await row.locator('.changes-removed').innerText({ timeout: timeoutMs })}`;
  if (counts !== '+1 −1') throw new HarnessError(`${JOURNAL.command} had its one line replaced by a command, but the bar counts ${JSON.stringify(counts)}`);
  const title = await bar.locator('.changes-title').innerText();
  if (title !== '1 file changed') throw new HarnessError(`the bar's title reads ${JSON.stringify(title)}`);
  await screenshots(context, bar, 'journal', timeoutMs);
}

/** Allows each call the agents ask for, once, until the answer `done` shows. */
export async function allowUntil(chat: Frame, done: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const answer = chat.locator('.msg-assistant', { hasText: done });
  while (!(await answer.isVisible())) {
    if (Date.now() > deadline) throw new HarnessError(`the answer "${done}" never showed; the transcript ends: ${JSON.stringify((await chat.locator('main.transcript').innerText()).slice(-400))}`);
    // An answered approval keeps its buttons, disabled, until the host reports on it: click only one still open, and never wait long on it.
    const ask = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]:not([disabled])').first();
    if (await ask.isVisible()) await ask.click({ timeout: 5_000 }).catch(() => undefined);
    else await chat.page().waitForTimeout(200);
  }
}
