/**
 * The UI phase's checks of a run's life, after the basic ones of
 * ui-checks.ts: an approval that waits while the Crow view is hidden, the
 * meter of a new session, a provider that fails and then comes back, a
 * reviewed run that reads the same when resumed as it did live, a command
 * in the Crow terminal, and a long command's output shown while it runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { assertInSight, chatFrame, newPairSession, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';
import { runCommand, waitForNotification, webviewFrame } from './workbench-ui';

const HIDDEN = { path: 'hidden.txt', prompt: 'Write hidden.txt while I look elsewhere.', done: 'hidden.txt is written.' };
const DOWN = { prompt: 'Answer once the provider is back.', answer: 'The provider is back and answers.' };
const PAIR = { prompt: 'Add lines to notes.md', file: 'notes.md' };
const TERMINAL = { prompt: 'Run the greeting check in a terminal.', command: 'echo terminal-$((40 + 2))', printed: 'terminal-42', done: 'The check printed terminal-42.' };
/** Two frames of npm's spinner (a braille glyph, then node's cursorTo(0) and clearLine(1)), then a line of its own. */
const SPINNER = {
  prompt: 'Install the packages.',
  command: 'printf "\\342\\240\\213\\033[1G\\033[0K\\342\\240\\231\\033[1G\\033[0K"; echo spun-$((6 * 7))',
  printed: 'spun-42',
  done: 'The packages are in.',
};
/** Prints three lines, then waits for a file the check writes only once it saw them on the running card. */
const LIVE = {
  prompt: 'Run the long check.',
  command: 'for i in 1 2 3; do echo "live-line-$((i * 7))"; done; while [ ! -e .live-gate ]; do sleep 0.2; done; echo "finished-$((6 * 7))"',
  printed: 'live-line-21',
  last: 'finished-42',
  gate: '.live-gate',
  done: 'The long check finished.',
};
/** What the engine makes of a request: one try and DEFAULT_RETRY_POLICY's four retries. */
const TRIES = 5;

export const RUN_CHECKS: UiCheck[] = [
  {
    slug: 'approval-while-hidden',
    name: 'an approval waiting while the Crow view is hidden shows a badge, a status bar item and a notification; the item reveals it',
    timeoutMs: 60_000,
    run: approvalWhileHidden,
  },
  {
    slug: 'new-session-meter',
    name: 'a new session shows no meter until something is spent',
    timeoutMs: 20_000,
    run: async (context, timeoutMs) => {
      const chat = chatFrame(context);
      await newSession(chat, timeoutMs);
      const meter = chat.locator('#meter');
      await meter.waitFor({ state: 'hidden', timeout: timeoutMs });
    },
  },
  {
    slug: 'provider-down',
    name: 'a provider that keeps failing shows one updating retry line, then an error card whose Retry works once it is back',
    timeoutMs: 60_000,
    run: providerDown,
  },
  {
    slug: 'pair-resumed',
    name: 'a reviewed (pair) run reads the same resumed as it did live: rounds, verdicts, tool cards, the final line',
    timeoutMs: 90_000,
    run: pairResumed,
  },
  {
    slug: 'command-in-terminal',
    name: 'a bash call runs in the Crow terminal, which shows the command as written (not the wrapper around it)',
    timeoutMs: 60_000,
    run: commandInTerminal,
  },
  {
    slug: 'spinner-output',
    name: "a command's spinner (npm's braille frames redrawn in place) never reaches its card: the card shows what the terminal finally shows",
    timeoutMs: 60_000,
    run: spinnerOutput,
  },
  {
    slug: 'live-output',
    name: 'a long command\'s card shows its time and its output while it runs (screenshot ui-live-output-running.png), then its result',
    timeoutMs: 90_000,
    run: liveOutput,
  },
];

async function approvalWhileHidden(context: UiContext, timeoutMs: number): Promise<void> {
  const { page, fake } = context;
  const chat = chatFrame(context);
  // The call streams slowly, so the view is hidden well before the approval is asked.
  fake.enqueue(
    'openai',
    {
      latencyMs: 150,
      blocks: [
        { type: 'text', text: 'Writing the file now, once you allow it.' },
        { type: 'tool_call', name: 'write_file', arguments: { path: HIDDEN.path, content: 'seen\n' } },
      ],
    },
    { blocks: [{ type: 'text', text: HIDDEN.done }] },
  );
  await sendPrompt(chat, HIDDEN.prompt, timeoutMs);
  await runCommand(page, 'View: Show Explorer', timeoutMs);
  const badge = page.locator('.activitybar li.action-item:has(> a.action-label[aria-label^="Crow"]) .badge-content', { hasText: '1' });
  await badge.waitFor({ state: 'visible', timeout: timeoutMs });
  const item = page.locator('.statusbar-item', { hasText: 'Crow: approval waiting' });
  await item.waitFor({ state: 'visible', timeout: timeoutMs });
  await waitForNotification(page, 'waits for your approval', timeoutMs);
  await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-approval-signals.png') });
  await runCommand(page, 'Notifications: Hide Notifications', timeoutMs).catch(() => page.keyboard.press('Escape'));
  await item.click({ timeout: timeoutMs });
  const revealed = (context.chat = await webviewFrame(page, 'textarea#prompt', timeoutMs));
  const pending = '.approval:not([data-decision]) button[data-decision="allow_once"]';
  await revealed.locator(pending).waitFor({ state: 'visible', timeout: timeoutMs });
  await assertInSight(page, revealed, pending);
  await revealed.locator(pending).click({ timeout: timeoutMs });
  await revealed.locator('.msg-assistant', { hasText: HIDDEN.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  await badge.waitFor({ state: 'detached', timeout: timeoutMs });
  await item.waitFor({ state: 'hidden', timeout: timeoutMs });
}

async function providerDown(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const down: ScriptedReply = { kind: 'http_error', status: 503, message: 'fake LLM server: overloaded' };
  context.fake.enqueue('openai', ...Array.from({ length: TRIES }, () => down));
  await sendPrompt(chat, DOWN.prompt, timeoutMs);
  const retrying = chat.locator('#transcript .notice', { hasText: 'The provider failed; retry' });
  await retrying.filter({ hasText: `retry ${TRIES - 2} in` }).waitFor({ state: 'visible', timeout: timeoutMs });
  const retryLines = await retrying.count();
  if (retryLines !== 1) throw new HarnessError(`${TRIES - 2} retries drew ${retryLines} retry lines; one updating line was expected`);
  const failed = chat.locator('.prompt-end[data-status="error"]').last();
  await failed.waitFor({ state: 'visible', timeout: timeoutMs });
  // The card tells how the retries ended; a line still saying "retrying" would contradict it.
  if ((await retrying.count()) !== 0) throw new HarnessError('the retry line still shows under the final error card');
  for (const action of ['button.error-retry', 'button.error-log']) {
    if ((await failed.locator(action).count()) !== 1) throw new HarnessError(`the error card has no ${action}`);
  }
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-provider-down.png') });
  context.fake.enqueue('openai', { blocks: [{ type: 'text', text: DOWN.answer }] });
  await failed.locator('button.error-retry').click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: DOWN.answer }).waitFor({ state: 'visible', timeout: timeoutMs });
}

async function pairResumed(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newPairSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: PAIR.file, content: '# Notes\n\n- one\n' }),
    toolCall('task_complete', { summary: 'Added a line.' }),
    { blocks: [{ type: 'text', text: 'Changes requested: add a second line.' }] },
    toolCall('write_file', { path: PAIR.file, content: '# Notes\n\n- one\n- two\n' }),
    toolCall('task_complete', { summary: 'Added the second line.' }),
    toolCall('task_complete', { summary: 'Approved.' }),
  );
  await sendPrompt(chat, PAIR.prompt, timeoutMs);
  // Writes are asked for in this workspace: the builder's two writes wait for a click each.
  for (let write = 0; write < 2; write++) {
    const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
    await allow.first().click({ timeout: timeoutMs });
  }
  await chat.locator('.prompt-end').last().waitFor({ state: 'visible', timeout: timeoutMs });
  if (context.fake.pending('openai') > 0) throw new HarnessError(`the pair run ended with ${context.fake.pending('openai')} scripted replies unused`);
  const live = await transcriptText(chat);
  for (const expected of ['First review', 'Second review', 'Reviewer asked for changes', 'Reviewer approved']) {
    if (!live.includes(expected)) throw new HarnessError(`the live pair transcript lacks "${expected}":\n${live}`);
  }
  await newSession(chat, timeoutMs);
  await chat.locator('#transcript .prompt-end').waitFor({ state: 'detached', timeout: timeoutMs });
  const sessions = chat.locator('details#sessions');
  if ((await sessions.getAttribute('open')) === null) await sessions.locator('summary').click({ timeout: timeoutMs });
  await sessions.locator('button.session', { hasText: PAIR.prompt }).first().click({ timeout: timeoutMs });
  await chat.locator('.prompt-end').last().waitFor({ state: 'visible', timeout: timeoutMs });
  const resumed = await transcriptText(chat);
  if (resumed !== live) {
    writeFileSync(join(ARTIFACTS_DIR, 'pair-live.txt'), live);
    writeFileSync(join(ARTIFACTS_DIR, 'pair-resumed.txt'), resumed);
    throw new HarnessError(`the resumed transcript differs from the live one (both in ${ARTIFACTS_DIR}/pair-*.txt): ${firstDifference(live, resumed)}`);
  }
}

/** In a new session, a prompt whose one bash call runs `command`, answered `done`; resolves once the answer shows. */
async function runOneCommand(context: UiContext, run: { prompt: string; command: string; done: string }, timeoutMs: number): Promise<Frame> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('bash', { command: run.command }), say(run.done));
  await sendPrompt(chat, run.prompt, timeoutMs);
  const answer = chat.locator('.msg-assistant', { hasText: run.done });
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  // Commands in the sandbox run unasked; without bubblewrap they are asked for.
  await answer.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await allow.isVisible()) await allow.click({ timeout: timeoutMs });
  await answer.waitFor({ state: 'visible', timeout: timeoutMs });
  return chat;
}

async function commandInTerminal(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = await runOneCommand(context, TERMINAL, timeoutMs);
  const card = chat.locator('.tool-card[data-status="completed"]', { hasText: 'bash' }).last();
  await card.locator('.tool-output summary').click({ timeout: timeoutMs });
  await card.locator('.tool-text', { hasText: TERMINAL.printed }).waitFor({ state: 'visible', timeout: timeoutMs });
  // The terminal as a person sees it: the line typed, then what it printed.
  const screen = context.page.locator('.terminal-wrapper .xterm-rows', { hasText: TERMINAL.printed }).first();
  await screen.waitFor({ state: 'visible', timeout: timeoutMs });
  const shown = await screen.innerText();
  if (!shown.includes(`crow-run '${TERMINAL.command}'`) || /bash -c|printf|env -u/.test(shown)) {
    throw new HarnessError(`the Crow terminal does not show the command as written:\n${shown}`);
  }
  // The first line is the shell's prompt and the line typed, nothing garbled before or in it.
  const first = shown.split('\n').find((line) => line.trim() !== '') ?? '';
  if (!/^\S+[#$] crow-run '/.test(first.trim()) || /[^\x20-\x7e]/.test(first)) throw new HarnessError(`the Crow terminal's first line reads ${JSON.stringify(first)}; the screen: ${JSON.stringify(shown)}`);
}

async function spinnerOutput(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = await runOneCommand(context, SPINNER, timeoutMs);
  const card = chat.locator('.tool-card[data-status="completed"]', { hasText: 'spun' }).last();
  await card.locator('.tool-output summary').click({ timeout: timeoutMs });
  const text = await card.locator('.tool-output .tool-text').innerText({ timeout: timeoutMs });
  if (!text.startsWith(SPINNER.printed) || /[\u2800-\u28ff]/.test(text)) throw new HarnessError(`the card's output reads ${JSON.stringify(text)}, not the spinner's last line alone`);
}

async function liveOutput(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('bash', { command: LIVE.command, timeout_ms: 80_000 }), { blocks: [{ type: 'text', text: LIVE.done }] });
  await sendPrompt(chat, LIVE.prompt, timeoutMs);
  const card = chat.locator('.tool-card[data-status="running"]', { hasText: 'bash' }).last();
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  // Commands in the sandbox run unasked; without bubblewrap they are asked for.
  await card.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await allow.isVisible()) await allow.click({ timeout: timeoutMs });
  const tail = card.locator('.tool-tail', { hasText: LIVE.printed });
  await tail.waitFor({ state: 'visible', timeout: timeoutMs });
  // The card's time moves while the command waits, output or not.
  const took = card.locator('.tool-duration');
  const first = await took.innerText();
  const deadline = Date.now() + timeoutMs;
  while ((await took.innerText()) === first) {
    if (Date.now() > deadline) throw new HarnessError(`the running card's time stayed at ${JSON.stringify(first)}`);
    await chat.waitForTimeout(200);
  }
  await card.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-live-output-running.png') });
  const shown = await tail.innerText();
  if (!shown.includes('live-line-7') || shown.includes(LIVE.last)) throw new HarnessError(`the running card's output reads ${JSON.stringify(shown)}`);
  writeFileSync(join(context.workspace, LIVE.gate), '');
  await chat.locator('.msg-assistant', { hasText: LIVE.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const done = chat.locator('.tool-card[data-status="completed"]', { hasText: 'bash' }).last();
  if ((await done.locator('.tool-live').count()) !== 0) throw new HarnessError('the finished card still shows the live output');
  await done.locator('.tool-output summary').click({ timeout: timeoutMs });
  await done.locator('.tool-text', { hasText: LIVE.last }).waitFor({ state: 'visible', timeout: timeoutMs });
}

/** What a person reads in the transcript, line by line; durations are left out (a replay shows the recorded ones, rounded alike). */
async function transcriptText(chat: Frame): Promise<string> {
  // Let the last frames of rendering land.
  await chat.waitForTimeout(300);
  return (await chat.locator('#transcript').innerText())
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

function firstDifference(live: string, resumed: string): string {
  const a = live.split('\n');
  const b = resumed.split('\n');
  const at = a.findIndex((line, i) => line !== b[i]);
  const index = at === -1 ? a.length : at;
  return `line ${index + 1}: live ${JSON.stringify(a[index])}, resumed ${JSON.stringify(b[index])}`;
}
