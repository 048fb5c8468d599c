/**
 * The last UI checks, as they reload the window. A reload while a command
 * runs stops the command (nothing the agents started runs on unseen), and
 * the view opens again on that session, whose end says it was interrupted
 * and offers Resume, which goes on. A reload while an approval waits
 * withdraws it (nothing is written unasked) and Resume asks it again.
 */
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { existsSync } from 'node:fs';
import type { Frame, Locator } from 'playwright-core';
import { chatFrame, newSession, openChat, say, sendPrompt, toolCall, type UiCheck, type UiContext, waitUntil, workspaceFileSize } from './ui-checks';

const RELOAD = {
  prompt: 'Keep a log going until I stop you.',
  log: '.reload-log',
  command: 'while true; do echo tick >> .reload-log; sleep 0.2; done',
  resumed: 'Going on after the reload.',
};

const APPROVAL = {
  prompt: 'Write the release note.',
  path: 'release-note.txt',
  content: 'Released after a reload.\n',
  done: 'The release note is written.',
};

export const RELOAD_CHECKS: UiCheck[] = [
  {
    slug: 'reload-mid-command',
    name: 'a window reload mid-command stops the command and reopens the session as interrupted, with Resume (screenshot ui-reload-interrupted.png)',
    timeoutMs: 120_000,
    run: reloadMidCommand,
  },
  {
    slug: 'reload-mid-approval',
    name: 'a window reload while an approval waits writes nothing, reopens the session as interrupted, and Resume asks again (screenshot ui-reload-approval.png)',
    timeoutMs: 120_000,
    run: reloadMidApproval,
  },
];

async function reloadMidCommand(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: RELOAD.command, timeout_ms: 110_000 } }] });
  await sendPrompt(chat, RELOAD.prompt, timeoutMs);
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  const running = chat.locator('.tool-card[data-status="running"]', { hasText: 'bash' }).last();
  await running.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await allow.isVisible()) await allow.click({ timeout: timeoutMs });
  await waitUntil(() => workspaceFileSize(context, RELOAD.log) > 0, timeoutMs, 'the command never started writing its log');

  const { reopened, resume } = await reloadAndReopen(context, timeoutMs);
  // Stopped: the log no longer grows.
  const before = workspaceFileSize(context, RELOAD.log);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  if (workspaceFileSize(context, RELOAD.log) !== before) throw new HarnessError('after the reload the command kept running: its log still grows');
  if ((await reopened.locator('.tool-card[data-status="running"]').count()) > 0) throw new HarnessError('a card of the interrupted prompt still shows running');
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-reload-interrupted.png') });
  context.fake.enqueue('openai', { blocks: [{ type: 'text', text: RELOAD.resumed }] });
  await resume.click({ timeout: timeoutMs });
  await reopened.locator('.msg-assistant', { hasText: RELOAD.resumed }).waitFor({ state: 'visible', timeout: timeoutMs });
}

async function reloadMidApproval(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  const write = toolCall('write_file', { path: APPROVAL.path, content: APPROVAL.content });
  context.fake.enqueue('openai', write);
  await sendPrompt(chat, APPROVAL.prompt, timeoutMs);
  const pending = '.approval:not([data-decision]) button[data-decision="allow_once"]';
  await chat.locator(pending).waitFor({ state: 'visible', timeout: timeoutMs });

  const { reopened, resume } = await reloadAndReopen(context, timeoutMs);
  if ((await reopened.locator(pending).count()) > 0) throw new HarnessError('the reopened view still offers the approval of the interrupted prompt');
  if (existsSync(join(context.workspace, APPROVAL.path))) throw new HarnessError(`${APPROVAL.path} was written although nobody allowed it`);
  if ((await reopened.locator('.tool-card[data-status="waiting"], .tool-card[data-status="running"]').count()) > 0) {
    throw new HarnessError('a card of the interrupted prompt still waits or runs');
  }
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-reload-approval.png') });

  // Resume goes on from the stored history: the model asks for the write again, and this time it is allowed.
  context.fake.enqueue('openai', write, say(APPROVAL.done));
  await resume.click({ timeout: timeoutMs });
  await reopened.locator(pending).click({ timeout: timeoutMs });
  await reopened.locator('.msg-assistant', { hasText: APPROVAL.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  if (!existsSync(join(context.workspace, APPROVAL.path))) throw new HarnessError(`${APPROVAL.path} is missing after the write was allowed`);
}

/** Reloads the window and opens the chat again, which must show the interrupted session: its end reads "Interrupted", once, with Resume. */
async function reloadAndReopen(context: UiContext, timeoutMs: number): Promise<{ reopened: Frame; resume: Locator }> {
  await context.page.reload();
  await openChat(context, timeoutMs);
  const reopened = chatFrame(context);
  const resume = reopened.locator('.prompt-end button.resume-run');
  await resume.waitFor({ state: 'visible', timeout: timeoutMs });
  const status = await reopened.locator('.prompt-end .prompt-end-status').last().innerText();
  if (status !== 'Interrupted') throw new HarnessError(`the interrupted prompt's end reads ${JSON.stringify(status)}, not "Interrupted"`);
  // The reopened session gets the room: the session list (left open by earlier checks) is folded.
  if ((await reopened.locator('#sessions').getAttribute('open')) !== null) throw new HarnessError('the session list is still unfolded over the reopened session');
  return { reopened, resume };
}
