/**
 * The UI phase's checks of what a command's card says about it: whether it
 * ran in the sandbox (a badge, and only when it did), and Stop on a running
 * command, which ends that command alone while the prompt goes on.
 */
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext, waitUntil, workspaceFileSize } from './ui-checks';

const STOP = {
  prompt: 'Check the greeting, then keep a log going.',
  quick: 'echo greeting-$((40 + 2))',
  log: '.stop-log',
  long: 'while true; do echo tick >> .stop-log; sleep 0.2; done',
  done: 'You stopped the log; I will leave it there.',
};

export const STATUS_CHECKS: UiCheck[] = [
  {
    slug: 'sandbox-badge-and-stop',
    name: 'a sandboxed command\'s card says "sandboxed" (and only then); Stop on a running command ends it alone and the prompt goes on (screenshot ui-stop-command.png)',
    timeoutMs: 90_000,
    run: sandboxBadgeAndStop,
  },
];

async function sandboxBadgeAndStop(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('bash', { command: STOP.quick }), toolCall('bash', { command: STOP.long, timeout_ms: 80_000 }), say(STOP.done));
  await sendPrompt(chat, STOP.prompt, timeoutMs);

  // Commands in the sandbox run unasked; without a usable bubblewrap they are asked for, and run outside it.
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  const quick = chat.locator('.tool-card[data-status="completed"]', { hasText: 'greeting' }).last();
  await quick.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  const asked = await allow.isVisible();
  if (asked) await allow.click({ timeout: timeoutMs });
  await quick.waitFor({ state: 'visible', timeout: timeoutMs });
  const badges = await quick.locator('.tool-sandboxed').count();
  if (asked ? badges !== 0 : badges !== 1) {
    throw new HarnessError(`a command that ${asked ? 'was asked for (no sandbox)' : 'ran unasked in the sandbox'} shows ${badges} "sandboxed" badge(s)`);
  }
  if (!asked && !(await quick.locator('.tool-sandboxed').getAttribute('title'))?.includes('sandbox')) throw new HarnessError('the "sandboxed" badge has no tooltip saying what the sandbox allows');

  const running = chat.locator('.tool-card[data-status="running"]', { hasText: 'stop-log' }).last();
  await running.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await allow.isVisible()) await allow.click({ timeout: timeoutMs });
  await waitUntil(() => workspaceFileSize(context, STOP.log) > 0, timeoutMs, 'the long command never started writing its log');
  await running.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-stop-command.png') });
  await running.locator('button.tool-stop').click({ timeout: timeoutMs });

  // The prompt goes on: the model is told and answers; the command no longer runs.
  await chat.locator('.msg-assistant', { hasText: STOP.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const before = workspaceFileSize(context, STOP.log);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (workspaceFileSize(context, STOP.log) !== before) throw new HarnessError('after Stop the command kept running: its log still grows');
  if ((await chat.locator('.tool-card[data-status="running"]').count()) > 0) throw new HarnessError('a card still shows running after Stop');
  if ((await chat.locator('.prompt-end button.resume-run').count()) > 0) throw new HarnessError('Stop ended the whole prompt (it offers Resume), not the one command');
}
