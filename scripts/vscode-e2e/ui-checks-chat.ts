/**
 * The UI phase's checks of how the chat reads to a person used to Copilot
 * or Cline: a first run without a key that ends with an answered prompt, a
 * command that fails reading as failed, and a call waiting for its
 * approval saying so. Each takes a screenshot of what it checked.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { selectedValue, textInput } from '../../test/support/vscode-elements';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';

const FIRST_RUN = { key: 'sk-ant-ui-check-not-real', prompt: 'Say hello from the first run.', answer: 'Hello from a provider set up in the view.' };
const FAILING = { prompt: 'List the file that is not there.', command: 'ls not-there-at-all.txt', done: 'The file is not there.' };
const WAITING = { prompt: 'Write waiting.txt once I allow it.', path: 'waiting.txt', done: 'waiting.txt is written.' };
const ANSWER = {
  prompt: 'Show me the add function and a table of its cases.',
  text: [
    '## The add function',
    '',
    '```ts',
    'export function add(a: number, b: number): number {',
    '  return a + b;',
    '}',
    '```',
    '',
    '| case | expected result of the call | note |',
    '| --- | --- | --- |',
    '| add(1, 2) | 3 | the ordinary case, with small positive numbers |',
    '| add(Number.MAX_SAFE_INTEGER, 1) | 9007199254740992 | past the safe range |',
  ].join('\n'),
};

export const CHAT_CHECKS: UiCheck[] = [
  {
    slug: 'first-run-setup',
    name: 'with no key the view opens on the provider set-up (screenshot ui-first-run-setup.png); a key given there answers the next prompt, no reload',
    timeoutMs: 60_000,
    run: firstRunSetup,
  },
  {
    slug: 'failed-command',
    name: 'a command that exits non-zero reads "failed, exit 2" in the error colour with its output open (screenshot ui-failed-command.png)',
    timeoutMs: 60_000,
    run: failedCommand,
  },
  {
    slug: 'answer-blocks',
    name: 'an answer\'s code block has its language, Copy and Insert; a wide table scrolls; a heading fits the sidebar (screenshot ui-answer-blocks.png)',
    timeoutMs: 60_000,
    run: answerBlocks,
  },
  {
    slug: 'approval-waiting',
    name: 'a call waiting for its approval says "waiting for you"; the approval names its file once, shows no raw diff headers and keeps its buttons on one line (screenshot ui-approval-waiting.png); the run ends with a bar of what it changed (ui-changes-bar.png)',
    timeoutMs: 60_000,
    run: approvalWaiting,
  },
];

/**
 * The workspace's settings switched to Anthropic (on the fake server) with
 * no key anywhere: a new session opens on the set-up; the key typed there
 * makes the next prompt work. The settings are put back afterwards.
 */
async function firstRunSetup(context: UiContext, timeoutMs: number): Promise<void> {
  const file = join(context.workspace, '.vscode', 'settings.json');
  const original = readFileSync(file, 'utf8');
  const settings = JSON.parse(original) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...settings, 'crow.provider': 'anthropic', 'crow.model': 'claude-ui-check', 'crow.baseUrls': { anthropic: context.fake.anthropicBaseUrl } }, null, 2));
  try {
    const chat = chatFrame(context);
    const setup = chat.locator('section.setup');
    // VS Code reads the changed file a moment later: a new session looks again until it does.
    const deadline = Date.now() + timeoutMs / 2;
    for (;;) {
      await newSession(chat, timeoutMs);
      if (await setup.waitFor({ state: 'visible', timeout: 2_000 }).then(() => true, () => false)) break;
      if (Date.now() > deadline) throw new HarnessError('with the provider switched to Anthropic and no key, the view never offered the set-up');
    }
    const why = await setup.locator('.setup-why').innerText();
    if (!why.includes('no key for anthropic')) throw new HarnessError(`the set-up does not say which provider lacks a key: ${JSON.stringify(why)}`);
    // The harness installs a language-model extension (test/vscode-lm-fixture): a model VS Code already has comes first.
    const first = setup.locator('.setup-choice').first();
    if ((await first.getAttribute('data-choice')) !== 'vscode' || (await first.getAttribute('aria-checked')) !== 'true') {
      throw new HarnessError('with VS Code offering a model, the set-up does not offer it first');
    }
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-first-run-setup.png') });
    await setup.locator('.setup-choice[data-choice="anthropic"]').click({ timeout: timeoutMs });
    await textInput(chat.locator('#setup-key')).fill(FIRST_RUN.key, { timeout: timeoutMs });
    await setup.locator('.setup-save').click({ timeout: timeoutMs });
    await setup.waitFor({ state: 'hidden', timeout: timeoutMs });
    context.fake.enqueue('anthropic', say(FIRST_RUN.answer));
    await sendPrompt(chat, FIRST_RUN.prompt, timeoutMs);
    await chat.locator('.msg-assistant', { hasText: FIRST_RUN.answer }).waitFor({ state: 'visible', timeout: timeoutMs });
    const { headers } = context.fake.requests.at(-1)!;
    if (headers['x-api-key'] !== FIRST_RUN.key && headers.authorization !== `Bearer ${FIRST_RUN.key}`) throw new HarnessError('the prompt did not carry the key typed into the set-up');
  } finally {
    writeFileSync(file, original);
  }
  // Back on the settings of the other checks before they run.
  await waitForSettingsBack(context, timeoutMs);
}

/** Waits until a new session's model picker shows the usual fake model again (VS Code has read the restored settings). */
async function waitForSettingsBack(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const picker = chat.locator('.model[data-role="primary"]');
  const deadline = Date.now() + timeoutMs / 2;
  for (;;) {
    await newSession(chat, timeoutMs);
    await chat.waitForTimeout(500);
    if ((await selectedValue(picker)) === 'fake-model') return;
    if (Date.now() > deadline) throw new HarnessError('after the first-run check the settings did not come back to the OpenAI fake');
  }
}

async function failedCommand(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('bash', { command: FAILING.command }), say(FAILING.done));
  await sendPrompt(chat, FAILING.prompt, timeoutMs);
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  const card = chat.locator('.tool-card', { hasText: FAILING.command }).last();
  const done = chat.locator('.msg-assistant', { hasText: FAILING.done });
  // A sandboxed command runs unasked; without bubblewrap it is asked for.
  await done.or(allow).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await allow.isVisible()) await allow.click({ timeout: timeoutMs });
  await done.waitFor({ state: 'visible', timeout: timeoutMs });
  const status = await card.getAttribute('data-status');
  const state = await card.locator('.tool-state').innerText();
  if (status !== 'failed' || state !== 'failed, exit 2') throw new HarnessError(`a command that exited 2 reads ${JSON.stringify(state)} (${status})`);
  if (!(await card.locator('.tool-output pre').isVisible())) throw new HarnessError('the output of the failed command is folded away');
  await card.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-failed-command.png') });
}

async function answerBlocks(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', say(ANSWER.text));
  await sendPrompt(chat, ANSWER.prompt, timeoutMs);
  const answer = chat.locator('.msg-assistant').last();
  const head = answer.locator('.code-head');
  await head.waitFor({ state: 'visible', timeout: timeoutMs });
  const label = await head.locator('.code-language').innerText();
  if (label !== 'ts' || !(await head.locator('button.code-copy').isVisible()) || !(await head.locator('button.code-insert').isVisible())) {
    throw new HarnessError(`the code block's head reads ${JSON.stringify(await head.innerText())}`);
  }
  // No named helpers inside: the page gets the function's source, without the bundler's __name.
  const sizes = await answer.evaluate((message) => ({
    h2: parseFloat(message.ownerDocument.defaultView!.getComputedStyle(message.querySelector('h2')!).fontSize),
    text: parseFloat(message.ownerDocument.defaultView!.getComputedStyle(message).fontSize),
    scrolls: message.ownerDocument.defaultView!.getComputedStyle(message.querySelector('table')!).overflowX === 'auto',
    broken: Array.from(message.querySelectorAll('td')).some((cell) => message.ownerDocument.defaultView!.getComputedStyle(cell).wordBreak !== 'normal'),
  }));
  if (sizes.h2 > sizes.text * 1.2) throw new HarnessError(`the heading is ${sizes.h2}px beside ${sizes.text}px text: too big for a sidebar`);
  if (sizes.broken || !sizes.scrolls) throw new HarnessError(`a wide table should scroll in its box with its words whole: ${JSON.stringify(sizes)}`);
  await answer.locator('table').scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-answer-blocks.png') });
}

async function approvalWaiting(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', toolCall('write_file', { path: WAITING.path, content: 'waited\n' }), say(WAITING.done));
  await sendPrompt(chat, WAITING.prompt, timeoutMs);
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  await allow.waitFor({ state: 'visible', timeout: timeoutMs });
  const card = chat.locator('.tool-card', { hasText: 'write_file' }).last();
  const state = await card.locator('.tool-state').innerText();
  if ((await card.getAttribute('data-status')) !== 'waiting' || state !== 'waiting for you') throw new HarnessError(`while its approval waits the card reads ${JSON.stringify(state)}`);
  const approval = chat.locator('.approval:not([data-decision])').last();
  const tops = await approval.locator('.approval-actions button').evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
  if (new Set(tops).size !== 1) throw new HarnessError(`the approval's buttons take ${new Set(tops).size} lines in the sidebar`);
  const rows = await approval.locator('.diff .diff-line').allInnerTexts();
  if (rows.some((row) => /^(---|\+\+\+|@@)/.test(row))) throw new HarnessError(`the approval's diff shows raw headers: ${rows.join(' | ')}`);
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-approval-waiting.png') });
  await allow.click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: WAITING.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await card.getAttribute('data-status')) !== 'completed') throw new HarnessError(`after the approval the card reads ${await card.getAttribute('data-status')}`);
  // The run's end lists what it changed, with Keep and Undo.
  const bar = chat.locator('.changes-bar').last();
  await bar.waitFor({ state: 'visible', timeout: timeoutMs });
  const listed = (await bar.innerText()).replace(/\s+/g, ' ');
  if (!/1 file changed/.test(listed) || !listed.includes(WAITING.path) || !listed.includes('+1')) throw new HarnessError(`the changes bar reads ${JSON.stringify(listed)}`);
  await bar.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-changes-bar.png') });
  await bar.locator('.changes-keep').click({ timeout: timeoutMs });
}
