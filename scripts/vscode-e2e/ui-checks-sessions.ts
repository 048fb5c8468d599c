/**
 * The UI phase's checks of a session's own actions (issue 39, items 3 and
 * 10): New Session and the trace are the chat view's title-bar actions
 * only, not repeated inside the view; Edit on an earlier message says the
 * branch leaves the files as they are and offers to put them back too; a
 * session reopened from the list greys the turns a Restore rewound, as the
 * stored session records them. Screenshots at a 300 px side bar, light and
 * dark: ui-sessions-<name>-<theme>.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, pickTheme, say, sendPrompt, showChatTrace, toolCall, type UiCheck, type UiContext, waitUntil } from './ui-checks';
import { setSidebarWidth, sidebarWidth } from './ui-checks-narrow';
import { runCommand, webviewFrame } from './workbench-ui';

const TITLE = { prompt: 'Say something to trace.', done: 'Something to trace.' };
const REOPEN = { first: { prompt: 'Name the first reopen note.', done: 'The first reopen note is named.' }, second: { prompt: 'Name the second reopen note.', done: 'The second reopen note is named.' } };
const BRANCH = {
  path: 'branch-notes.txt',
  original: { prompt: 'Change the branch notes.', content: 'changed\n', done: 'Changed the branch notes.' },
  withFiles: { prompt: 'Change the branch notes gently.', content: 'gentle\n', done: 'Changed them gently.' },
  filesKept: { prompt: 'Leave the branch notes alone.', done: 'Left them alone.' },
};

export const SESSION_CHECKS: UiCheck[] = [
  {
    slug: 'title-actions',
    name: 'New Session and the trace are in the chat view\'s title bar only (no second + or Trace inside the view), and both work (screenshots ui-sessions-title-*.png)',
    timeoutMs: 90_000,
    run: titleActions,
  },
  {
    slug: 'edit-branch',
    name: 'Edit on an earlier message says the files stay as they are, offers to put them back too, and the new branch says what became of them (screenshots ui-sessions-edit-*.png)',
    timeoutMs: 150_000,
    run: editBranch,
  },
  {
    slug: 'reopen-rewound',
    name: 'a session reopened from the list greys the turns a Restore rewound, read from the stored session (screenshots ui-sessions-reopen-*.png)',
    timeoutMs: 120_000,
    run: reopenRewound,
  },
];

async function titleActions(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const inView = await chat.locator('#new-session, #show-trace, header.toolbar vscode-button, header.toolbar button').count();
  if (inView > 0) throw new HarnessError(`the chat view repeats the title bar's actions: ${inView} button(s) in its own top bar`);
  // A session with a prompt, so it has a trace to show.
  context.fake.enqueue('openai', say(TITLE.done));
  await sendPrompt(chat, TITLE.prompt, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: TITLE.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  await showChatTrace(chat, timeoutMs);
  await webviewFrame(context.page, '#tree[role="tree"] .row[role="treeitem"]', timeoutMs);
  await runCommand(context.page, 'View: Close All Editors', timeoutMs);
  await newSession(chat, timeoutMs);
  await chat.locator('#transcript .msg-user').first().waitFor({ state: 'detached', timeout: timeoutMs });
  await screenshots(context, chat.locator('#prompt'), 'title', timeoutMs);
}

async function editBranch(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const file = join(context.workspace, BRANCH.path);
  writeFileSync(file, 'before\n');
  await newSession(chat, timeoutMs);
  const { original, withFiles, filesKept } = BRANCH;
  context.fake.enqueue('openai', toolCall('write_file', { path: BRANCH.path, content: original.content }), say(original.done));
  await sendPrompt(chat, original.prompt, timeoutMs);
  await allowOnce(chat, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: original.done }).waitFor({ state: 'visible', timeout: timeoutMs });

  // Edit with the files ticked: the file goes back to before the message, and the branch says so.
  let box = await openEdit(chat, original.prompt, timeoutMs);
  const note = await box.locator('.edit-note').innerText({ timeout: timeoutMs });
  if (!/files stay as they are/i.test(note)) throw new HarnessError(`the edit box does not say what becomes of the files: ${JSON.stringify(note)}`);
  await screenshots(context, box, 'edit', timeoutMs);
  context.fake.enqueue('openai', toolCall('write_file', { path: BRANCH.path, content: withFiles.content }), say(withFiles.done));
  await box.locator('.edit-input').fill(withFiles.prompt, { timeout: timeoutMs });
  await box.locator('input.edit-files').check({ timeout: timeoutMs });
  await waitUntilRestored(() => readFileSync(file, 'utf8') === 'before\n', timeoutMs, `Edit with "also put the files back" left ${BRANCH.path} as ${JSON.stringify(readFileSync(file, 'utf8'))}`, () => box.locator('button.edit-send').click({ timeout: timeoutMs }));
  await chat.locator('.restore-note', { hasText: 'Branched from before the edited message' }).waitFor({ state: 'visible', timeout: timeoutMs });
  await allowOnce(chat, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: withFiles.done }).waitFor({ state: 'visible', timeout: timeoutMs });

  // Edit without: the branch says the files were left as they are, and they are.
  box = await openEdit(chat, withFiles.prompt, timeoutMs);
  context.fake.enqueue('openai', say(filesKept.done));
  await box.locator('.edit-input').fill(filesKept.prompt, { timeout: timeoutMs });
  await box.locator('button.edit-send').click({ timeout: timeoutMs });
  const kept = chat.locator('.restore-note', { hasText: 'files were left as they are' });
  await kept.waitFor({ state: 'visible', timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: filesKept.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const content = readFileSync(file, 'utf8');
  if (content !== withFiles.content) throw new HarnessError(`Edit without the files ticked changed ${BRANCH.path} to ${JSON.stringify(content)}`);
  await screenshots(context, kept, 'edit-kept', timeoutMs);
}

async function reopenRewound(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  const { first, second } = REOPEN;
  context.fake.enqueue('openai', say(first.done), say(second.done));
  await sendPrompt(chat, first.prompt, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: first.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  await sendPrompt(chat, second.prompt, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: second.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const message = chat.locator('.msg-user[data-checkpoint]', { hasText: second.prompt });
  await message.hover({ timeout: timeoutMs });
  await message.locator('button.checkpoint-restore').click({ timeout: timeoutMs });
  await message.locator('button.restore-conversation').click({ timeout: timeoutMs });
  await chat.locator('.rewound-label').waitFor({ state: 'visible', timeout: timeoutMs });

  // Another session, then this one again from the list: the greying comes from the stored session.
  await newSession(chat, timeoutMs);
  await chat.locator('#transcript .msg-user').first().waitFor({ state: 'detached', timeout: timeoutMs });
  const sessions = chat.locator('details#sessions');
  if ((await sessions.getAttribute('open')) === null) await sessions.locator('summary').click({ timeout: timeoutMs });
  await sessions.locator('button.session', { hasText: first.prompt }).first().click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: second.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const label = chat.locator('.rewound-label');
  await label.waitFor({ state: 'visible', timeout: timeoutMs }).catch(() => {
    throw new HarnessError('the reopened session shows no "Rewound" label over the turns its Restore rewound');
  });
  const rewound = async (locator: Locator): Promise<boolean> => locator.evaluate((node) => node.classList.contains('rewound'));
  if (!(await rewound(chat.locator('.msg-user', { hasText: second.prompt })))) throw new HarnessError('the reopened session does not grey the rewound message');
  if (!(await rewound(chat.locator('.msg-assistant', { hasText: second.done })))) throw new HarnessError('the reopened session does not grey the rewound answer');
  if (await rewound(chat.locator('.msg-user', { hasText: first.prompt }))) throw new HarnessError('the reopened session greys the turn before the checkpoint');
  if ((await chat.locator('.msg-user.rewound .checkpoint-restore').count()) > 0) throw new HarnessError('a rewound message of the reopened session still offers Restore');
  await screenshots(context, label, 'reopen', timeoutMs);
}

/** Clicks Edit on the message reading `prompt`; the edit box. */
async function openEdit(chat: Frame, prompt: string, timeoutMs: number): Promise<Locator> {
  const message = chat.locator('.msg-user[data-checkpoint]', { hasText: prompt }).last();
  await message.hover({ timeout: timeoutMs });
  await message.locator('button.checkpoint-edit').click({ timeout: timeoutMs });
  const box = message.locator('.edit-box');
  await box.waitFor({ state: 'visible', timeout: timeoutMs });
  return box;
}

/** Does `act`, then waits until `condition` holds. */
async function waitUntilRestored(condition: () => boolean, timeoutMs: number, failure: string, act: () => Promise<void>): Promise<void> {
  await act();
  await waitUntil(condition, timeoutMs / 3, failure);
}

async function allowOnce(chat: Frame, timeoutMs: number): Promise<void> {
  await chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]').first().click({ timeout: timeoutMs });
}

/** Screenshots of `subject` at a 300 px side bar, light then dark; the side bar and theme are put back after. */
async function screenshots(context: UiContext, subject: Locator, name: string, timeoutMs: number): Promise<void> {
  const { page } = context;
  const before = await sidebarWidth(page);
  try {
    await setSidebarWidth(page, 300);
    for (const theme of [{ name: 'Light Modern', slug: 'light' }, { name: 'Dark Modern', slug: 'dark' }]) {
      await pickTheme(page, theme.name, timeoutMs);
      await page.waitForTimeout(500);
      await subject.scrollIntoViewIfNeeded({ timeout: timeoutMs });
      await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-sessions-${name}-${theme.slug}.png`) });
    }
  } finally {
    await pickTheme(page, 'Dark Modern', timeoutMs).catch(() => undefined);
    await setSidebarWidth(page, before).catch(() => undefined);
  }
}
