/**
 * The UI phase's checks of going back and going on, in the real workbench:
 * Restore on a message (on the click, the file back as it was and the
 * rewound turns greyed), Edit on an earlier message (a new branch session with the
 * edited text, the old one still listed), and a message queued while the
 * agents work (shown as queued, then where the agent took it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';

const FILE = 'checkpoint-notes.md';
const FIRST = { prompt: 'Write the first notes.', content: 'first notes\n', done: 'Wrote the first notes.' };
const SECOND = { prompt: 'Write the second notes.', content: 'second notes\n', done: 'Wrote the second notes.' };
const EDITED = { prompt: 'Write the notes in French instead.', done: 'Notes in French, on a new branch.' };
/** Waits for a file the check writes once it saw the queued message, then prints. */
const QUEUED = {
  prompt: 'Run the slow check.',
  command: 'while [ ! -e .queue-gate ]; do sleep 0.2; done; echo gate-open',
  gate: '.queue-gate',
  line: 'Also say which files you read.',
  done: 'Checked, and I read no files.',
};

export const CHECKPOINT_CHECKS: UiCheck[] = [
  {
    slug: 'restore-checkpoint',
    name: 'Restore on a message puts the file back as it was on the click and says so (screenshot ui-restore-preview.png)',
    timeoutMs: 90_000,
    run: restoreCheckpoint,
  },
  {
    slug: 'edit-message',
    name: 'Edit on an earlier message sends the edited text in a new branch session; the old session stays in the list',
    timeoutMs: 60_000,
    run: editMessage,
  },
  {
    slug: 'queued-message',
    name: 'a message sent while a command runs shows as queued (screenshot ui-queued-message.png), then where the agent took it',
    timeoutMs: 90_000,
    run: queuedMessage,
  },
];

async function restoreCheckpoint(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: FILE, content: FIRST.content }),
    say(FIRST.done),
    toolCall('write_file', { path: FILE, content: SECOND.content }),
    say(SECOND.done),
  );
  for (const step of [FIRST, SECOND]) {
    await sendPrompt(chat, step.prompt, timeoutMs);
    await allowOnce(context, timeoutMs);
    await chat.locator('.msg-assistant', { hasText: step.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  }
  // As a person does: Restore once the run has ended (Stop gone from the composer), not while its end is still being written.
  await chat.locator('body[data-busy="false"]').waitFor({ state: 'attached', timeout: timeoutMs });
  const message = chat.locator('.msg-user[data-checkpoint]', { hasText: SECOND.prompt });
  await message.hover({ timeout: timeoutMs });
  await message.locator('button.checkpoint-restore').click({ timeout: timeoutMs });
  await message.locator('button.restore-both').click({ timeout: timeoutMs });
  // Restore acts on the click (issue 39): no question; the line after the rewound turns says what went back.
  const said = chat.locator('.restore-note.restore-restored');
  await said.waitFor({ state: 'visible', timeout: timeoutMs });
  const told = await said.innerText();
  if (!told.includes(FILE)) throw new HarnessError(`the restore does not say what went back: ${JSON.stringify(told)}`);
  await said.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-restore-preview.png') });
  const content = readFileSync(join(context.workspace, FILE), 'utf8');
  if (content !== FIRST.content) throw new HarnessError(`after the restore ${FILE} holds ${JSON.stringify(content)}, not the first notes`);
}

async function editMessage(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  context.fake.enqueue('openai', say(EDITED.done));
  const message = chat.locator('.msg-user[data-checkpoint]', { hasText: FIRST.prompt });
  await message.hover({ timeout: timeoutMs });
  await message.locator('button.checkpoint-edit').click({ timeout: timeoutMs });
  await message.locator('textarea.edit-input').fill(EDITED.prompt, { timeout: timeoutMs });
  await message.locator('button.edit-send').click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: EDITED.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const shown = await chat.locator('#transcript').innerText();
  if (shown.includes(FIRST.prompt) || shown.includes(SECOND.prompt)) throw new HarnessError(`the branch shows the messages it replaced:\n${shown}`);
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-edit-message.png') });
  const sessions = chat.locator('details#sessions');
  if ((await sessions.getAttribute('open')) === null) await sessions.locator('summary').click({ timeout: timeoutMs });
  await sessions.locator('button.session', { hasText: '(fork at #1)' }).first().waitFor({ state: 'visible', timeout: timeoutMs });
  // The session it branched from is listed beside the branch, by the same first message.
  const titled = await sessions.locator('button.session', { hasText: FIRST.prompt }).count();
  if (titled < 2) throw new HarnessError(`the sessions list shows ${titled} session(s) opened by "${FIRST.prompt}", not the old one and its branch`);
}

async function queuedMessage(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('bash', { command: QUEUED.command, timeout_ms: 80_000 }), say(QUEUED.done));
  await sendPrompt(chat, QUEUED.prompt, timeoutMs);
  const running = chat.locator('.tool-card[data-status="running"]', { hasText: 'bash' }).last();
  await running.or(approval(context)).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await approval(context).isVisible()) await approval(context).click({ timeout: timeoutMs });
  await running.waitFor({ state: 'visible', timeout: timeoutMs });
  // A side bar under 330 px (VS Code's default is about 300) shows Send as its icon: its label and name say Queue.
  const offer = await chat.locator('#send').evaluate((send) => ({ label: send.textContent?.trim(), name: send.getAttribute('aria-label') ?? '' }));
  if (offer.label !== 'Queue' || !offer.name.startsWith('Queue')) throw new HarnessError(`while the agents work, Send does not offer to queue: ${JSON.stringify(offer)}`);
  await sendPrompt(chat, QUEUED.line, timeoutMs);
  await chat.locator('.queue .queue-item', { hasText: QUEUED.line }).waitFor({ state: 'visible', timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-queued-message.png') });
  writeFileSync(join(context.workspace, QUEUED.gate), '');
  await chat.locator('.msg-steered', { hasText: QUEUED.line }).waitFor({ state: 'visible', timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: QUEUED.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  if (await chat.locator('.queue').isVisible()) throw new HarnessError('the queue still shows a message the agent took');
}

/** Allows the write the builder asks for, when this workspace asks (it does; a sandboxed command would not). */
async function allowOnce(context: UiContext, timeoutMs: number): Promise<void> {
  await approval(context).click({ timeout: timeoutMs });
}

function approval(context: UiContext) {
  return chatFrame(context).locator('.approval:not([data-decision]) button[data-decision="allow_once"]').first();
}
