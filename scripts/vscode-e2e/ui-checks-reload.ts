/**
 * The last UI check, as it reloads the window: a reload while a command
 * runs stops the command (nothing the agents started runs on unseen), and
 * the view opens again on that session, whose end says it was interrupted
 * and offers Resume, which goes on.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, openChat, sendPrompt, type UiCheck, type UiContext } from './ui-checks';

const RELOAD = {
  prompt: 'Keep a log going until I stop you.',
  log: '.reload-log',
  command: 'while true; do echo tick >> .reload-log; sleep 0.2; done',
  resumed: 'Going on after the reload.',
};

export const RELOAD_CHECKS: UiCheck[] = [
  {
    slug: 'reload-mid-command',
    name: 'a window reload mid-command stops the command and reopens the session as interrupted, with Resume (screenshot ui-reload-interrupted.png)',
    timeoutMs: 120_000,
    run: reloadMidCommand,
  },
];

async function reloadMidCommand(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await chat.locator('button#new-session').click({ timeout: timeoutMs });
  context.fake.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: RELOAD.command, timeout_ms: 110_000 } }] });
  await sendPrompt(chat, RELOAD.prompt, timeoutMs);
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  const running = chat.locator('.tool-card[data-status="running"]', { hasText: 'bash' }).last();
  await running.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await allow.isVisible()) await allow.click({ timeout: timeoutMs });
  await waitUntil(() => size(context) > 0, timeoutMs, 'the command never started writing its log');

  await context.page.reload();
  await openChat(context, timeoutMs);
  const reopened = chatFrame(context);
  const resume = reopened.locator('.prompt-end button.resume-run');
  await resume.waitFor({ state: 'visible', timeout: timeoutMs });
  // Stopped: the log no longer grows.
  const before = size(context);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  if (size(context) !== before) throw new HarnessError('after the reload the command kept running: its log still grows');
  if ((await reopened.locator('.tool-card[data-status="running"]').count()) > 0) throw new HarnessError('a card of the interrupted prompt still shows running');
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-reload-interrupted.png') });
  context.fake.enqueue('openai', { blocks: [{ type: 'text', text: RELOAD.resumed }] });
  await resume.click({ timeout: timeoutMs });
  await reopened.locator('.msg-assistant', { hasText: RELOAD.resumed }).waitFor({ state: 'visible', timeout: timeoutMs });
}

function size(context: UiContext): number {
  try {
    return statSync(join(context.workspace, RELOAD.log)).size;
  } catch {
    return 0;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number, failure: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new HarnessError(failure);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
