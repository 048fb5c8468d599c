/**
 * The UI phase's checks of the person's own clicks (issue 39, items 3 and
 * 8): the changes bar counts each file net (a line written twice is +1 −1),
 * one file's Undo puts just that file back, the bar's Undo puts the rest
 * back at once; Restore on a message puts the file back and greys the
 * rewound turns. None of it shows an approval card or a message the person
 * did not type (no "/undo", no "/rewind 3 both"). An "Always" stands in a
 * list above the input until revoked, and "Deny and say why…" hands the
 * agent the person's words (issue 39, item 7). Screenshots at a 300 and
 * a 250 px side bar, dark and light: ui-clicks-undo-*.png,
 * ui-clicks-restore-*.png, ui-clicks-deny-*.png.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, pickTheme, say, sendPrompt, toolCall, type UiCheck, type UiContext, waitUntil } from './ui-checks';
import { setSidebarWidth, sidebarWidth } from './ui-checks-narrow';

const UNDO = { edited: 'clicks-a.txt', created: 'clicks-b.txt', prompt: 'Rework the click notes.', done: 'Reworked the click notes.' };
const DENY = { path: 'clicks-denied.txt', prompt: 'Write the denied notes.', reason: 'Put them in clicks-notes.md instead.', done: 'Understood, not written.' };
const RESTORE = { path: 'clicks-notes.md', first: { prompt: 'Start the click notes.', content: 'first\n', done: 'Started the notes.' }, second: { prompt: 'Redo the click notes.', content: 'second\n', done: 'Redid the notes.' } };

export const CLICK_CHECKS: UiCheck[] = [
  {
    slug: 'undo-on-click',
    name: "the changes bar counts a file net (+1 −1 for a line written twice), one file's Undo and the bar's Undo act on the click, with no approval card and no /undo message (screenshots ui-clicks-undo-*.png)",
    timeoutMs: 120_000,
    run: undoOnClick,
  },
  {
    slug: 'restore-on-click',
    name: 'Restore on a message puts the file back on the click, greys the rewound turns under a label, with no approval card and no /rewind message; an "Always" is listed as a standing answer until revoked (screenshots ui-clicks-restore-*.png)',
    timeoutMs: 120_000,
    run: restoreOnClick,
  },
  {
    slug: 'deny-with-reason',
    name: '"Deny and say why…" on an approval sends the person\'s words to the agent as the denial, and nothing is written (screenshots ui-clicks-deny-*.png)',
    timeoutMs: 120_000,
    run: denyWithReason,
  },
];

async function undoOnClick(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const edited = join(context.workspace, UNDO.edited);
  const created = join(context.workspace, UNDO.created);
  writeFileSync(edited, 'one\n');
  await newSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: UNDO.edited, content: 'two\n' }),
    toolCall('write_file', { path: UNDO.edited, content: 'three\n' }),
    toolCall('write_file', { path: UNDO.created, content: 'new\n' }),
    say(UNDO.done),
  );
  await sendPrompt(chat, UNDO.prompt, timeoutMs);
  for (let i = 0; i < 3; i++) await allowOnce(chat, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: UNDO.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const bar = chat.locator('.changes-bar[data-counts="net"]').last();
  await bar.waitFor({ state: 'visible', timeout: timeoutMs });
  const row = bar.locator(`.changes-file[data-path="${UNDO.edited}"]`);
  const counts = `${await row.locator('.changes-added').innerText()} ${await row.locator('.changes-removed').innerText()}`;
  if (counts !== '+1 −1') throw new HarnessError(`${UNDO.edited} had one line changed (written twice) but the bar counts ${JSON.stringify(counts)}`);
  const approvals = await chat.locator('.approval').count();

  await bar.locator(`.changes-file[data-path="${UNDO.created}"] button.changes-file-undo`).click({ timeout: timeoutMs });
  await waitUntil(() => !existsSync(created), timeoutMs / 3, `one file's Undo did not remove ${UNDO.created}, which the prompt created`);
  await bar.locator(`.changes-file[data-path="${UNDO.created}"] .changes-file-outcome`, { hasText: 'undone' }).waitFor({ state: 'visible', timeout: timeoutMs });
  if (readFileSync(edited, 'utf8') !== 'three\n') throw new HarnessError(`one file's Undo also changed ${UNDO.edited}`);
  await screenshots(context, bar, 'undo', timeoutMs);

  await bar.locator('.changes-undo').click({ timeout: timeoutMs });
  await waitUntil(() => readFileSync(edited, 'utf8') === 'one\n', timeoutMs / 3, `the bar's Undo did not put ${UNDO.edited} back`);
  const outcome = bar.locator('.changes-outcome', { hasText: 'Undone' });
  await outcome.waitFor({ state: 'visible', timeout: timeoutMs });
  await notTheAgents(chat, approvals, '/undo');
}

async function restoreOnClick(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  const { first, second } = RESTORE;
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: RESTORE.path, content: first.content }),
    say(first.done),
    toolCall('write_file', { path: RESTORE.path, content: second.content }),
    say(second.done),
  );
  // "Always" for the first write: the second is not asked, and the answer stands in a list with Revoke.
  await sendPrompt(chat, first.prompt, timeoutMs);
  await chat.locator('.approval:not([data-decision]) button[data-decision="allow_always"]').first().click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: first.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  await sendPrompt(chat, second.prompt, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: second.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const rules = chat.locator('details.rules');
  await rules.waitFor({ state: 'visible', timeout: timeoutMs });
  await rules.locator('summary').click({ timeout: timeoutMs });
  const rule = await rules.locator('.rule-text').innerText();
  if (rule !== 'Always allowed: file changes') throw new HarnessError(`the standing answer reads ${JSON.stringify(rule)}`);
  const approvals = await chat.locator('.approval').count();
  const message = chat.locator('.msg-user[data-checkpoint]', { hasText: second.prompt });
  await message.hover({ timeout: timeoutMs });
  await message.locator('button.checkpoint-restore').click({ timeout: timeoutMs });
  await message.locator('button.restore-both').click({ timeout: timeoutMs });
  await chat.locator('.restore-note.restore-restored').waitFor({ state: 'visible', timeout: timeoutMs });
  const content = readFileSync(join(context.workspace, RESTORE.path), 'utf8');
  if (content !== first.content) throw new HarnessError(`after Restore ${RESTORE.path} holds ${JSON.stringify(content)}, not the first notes`);
  if (!(await message.evaluate((node) => node.classList.contains('rewound')))) throw new HarnessError('the rewound message is not shown as rewound');
  await chat.locator('.rewound-label').last().waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await chat.locator('.msg-assistant.rewound', { hasText: second.done }).count()) !== 1) throw new HarnessError('the rewound answer is not shown as rewound');
  if ((await chat.locator('.msg-user.rewound', { hasText: first.prompt }).count()) !== 0) throw new HarnessError('the turn before the checkpoint is shown as rewound');
  await notTheAgents(chat, approvals, '/rewind');
  await screenshots(context, chat.locator('.rewound-label').last(), 'restore', timeoutMs);
  await rules.locator('button.rule-revoke').click({ timeout: timeoutMs });
  await rules.waitFor({ state: 'hidden', timeout: timeoutMs });
}

async function denyWithReason(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('write_file', { path: DENY.path, content: 'no\n' }), say(DENY.done));
  const asked = context.fake.requests.length;
  await sendPrompt(chat, DENY.prompt, timeoutMs);
  const approval = chat.locator('.approval:not([data-decision])').first();
  await approval.locator('button.approval-deny-why').click({ timeout: timeoutMs });
  await approval.locator('textarea.approval-reason-text').fill(DENY.reason, { timeout: timeoutMs });
  await screenshots(context, approval, 'deny', timeoutMs);
  await approval.locator('button[data-decision="deny_reason"]').click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: DENY.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  if (existsSync(join(context.workspace, DENY.path))) throw new HarnessError(`${DENY.path} was written although the person denied it`);
  const request = JSON.stringify(context.fake.requests.slice(asked).at(-1)?.body ?? {});
  if (!request.includes(DENY.reason)) throw new HarnessError("the agent's next request does not carry the person's reason for the denial");
}

/** Nothing of a click went through the agents: no new approval card, no message the person did not type. */
async function notTheAgents(chat: Frame, approvalsBefore: number, command: string): Promise<void> {
  const approvals = await chat.locator('.approval').count();
  if (approvals !== approvalsBefore) throw new HarnessError(`the click brought up ${approvals - approvalsBefore} approval card(s): ${await chat.locator('.approval').last().innerText()}`);
  const typed = await chat.locator('.msg-user', { hasText: command }).count();
  if (typed > 0) throw new HarnessError(`the click shows as a message "${command}…" the person never typed`);
}

/** Screenshots of `subject` in a 300 and a 250 px side bar in the dark theme, then at 300 px in the light one; the side bar and theme are put back after. */
export async function screenshots(context: UiContext, subject: ReturnType<Frame['locator']>, name: string, timeoutMs: number): Promise<void> {
  const { page } = context;
  const before = await sidebarWidth(page);
  try {
    await pickTheme(page, 'Dark Modern', timeoutMs);
    for (const width of [300, 250]) {
      await setSidebarWidth(page, width);
      await page.waitForTimeout(300);
      await subject.scrollIntoViewIfNeeded({ timeout: timeoutMs });
      await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-clicks-${name}-dark-${width}.png`) });
    }
    await setSidebarWidth(page, 300);
    await pickTheme(page, 'Light Modern', timeoutMs);
    await page.waitForTimeout(500);
    await subject.scrollIntoViewIfNeeded({ timeout: timeoutMs });
    await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-clicks-${name}-light-300.png`) });
  } finally {
    await pickTheme(page, 'Dark Modern', timeoutMs).catch(() => undefined);
    await setSidebarWidth(page, before).catch(() => undefined);
  }
}

async function allowOnce(chat: Frame, timeoutMs: number): Promise<void> {
  await chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]').first().click({ timeout: timeoutMs });
}
