/**
 * Setting Crow up and picking its models, as a person does at a 300 px side
 * bar (issue 39, items 2, 9 and 10):
 * - the set-up: a prompt sent with no key opens it (no error about an
 *   environment variable); one's own server with its key, tested, says
 *   "Connected" with its model picker and "Use this" in sight, the form not
 *   scrolling inside itself; axe-core finds nothing serious in it; the key
 *   typed there is the one the next prompt sends (screenshots
 *   ui-setup-300-light.png, ui-setup-300-dark.png);
 * - the pair agent's two model pickers print whose they are ("Builder
 *   model", "Reviewer model") and offer no model the server does not serve
 *   (screenshot ui-pair-pickers-300.png);
 * - Crow's settings in VS Code's Settings editor: Provider and Model first,
 *   Auto Approve not among them, and Compaction's default named
 *   (screenshots ui-settings-order.png, ui-settings-compaction.png).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { describeFindings, seriousViolations } from '../../test/support/axe';
import { selectedValue, textInput } from '../../test/support/vscode-elements';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { log } from './progress';
import { assertInSight, chatFrame, newPairSession, newSession, pickTheme, say, sendPrompt, type UiCheck, type UiContext } from './ui-checks';
import { setSidebarWidth, sidebarWidth } from './ui-checks-narrow';
import { runCommand } from './workbench-ui';

const SETUP = {
  prompt: 'Say hello before any key is set.',
  key: 'sk-own-server-ui-check',
  answer: 'Hello through your own server.',
  after: 'Hello again, with the key from the set-up.',
};

export const SETUP_CHECKS: UiCheck[] = [
  {
    slug: 'setup-one-screen',
    name: 'at 300 px a prompt without a key opens the set-up; one\'s own server with its key tests "Connected", its model picker and "Use this" in sight without an inner scroll, axe-clean in light and dark; the key typed there answers the next prompt (screenshots ui-setup-300-*.png)',
    timeoutMs: 120_000,
    run: setupOneScreen,
  },
  {
    slug: 'pair-pickers-labelled',
    name: 'the pair agent\'s model pickers say "Builder model" and "Reviewer model" in print and offer only models the server serves (screenshot ui-pair-pickers-300.png)',
    timeoutMs: 60_000,
    run: pairPickersLabelled,
  },
  {
    slug: 'settings-order',
    name: 'Crow\'s settings start with Provider and Model (not Auto Approve), and Compaction shows its default (screenshots ui-settings-order.png, ui-settings-compaction.png)',
    timeoutMs: 60_000,
    run: settingsOrder,
  },
];

async function setupOneScreen(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const file = join(context.workspace, '.vscode', 'settings.json');
  const original = readFileSync(file, 'utf8');
  const settings = JSON.parse(original) as Record<string, unknown>;
  const before = await sidebarWidth(page);
  // OpenAI's own endpoint and no key anywhere (an earlier check keeps one for Anthropic in the secret storage);
  // no role moved to another provider (an earlier check puts the builder on a model VS Code offers).
  const own = Object.fromEntries(Object.entries(settings).filter(([name]) => !/^crow\.(primary|reviewer)\./.test(name)));
  writeFileSync(file, JSON.stringify({ ...own, 'crow.provider': 'openai', 'crow.model': 'fake-model', 'crow.baseUrls': {} }, null, 2));
  try {
    await setSidebarWidth(page, 300);
    const chat = chatFrame(context);
    const setup = chat.locator('section.setup');
    await untilSetupOffered(chat, timeoutMs);
    await setup.locator('.setup-later').click({ timeout: timeoutMs });
    // A prompt with no key: the set-up comes back with the prompt's card, which speaks of no variable.
    await sendPrompt(chat, SETUP.prompt, timeoutMs);
    await chat.locator('.prompt-end').last().waitFor({ state: 'visible', timeout: timeoutMs });
    await setup.waitFor({ state: 'visible', timeout: 5_000 }).catch(() => {
      throw new HarnessError('a prompt sent with no key did not open the set-up');
    });
    const card = await chat.locator('.prompt-end').last().innerText();
    if (/environment variable|OPENAI_API_KEY/.test(card)) throw new HarnessError(`the no-key card tells the person to set a variable: ${JSON.stringify(card)}`);

    await setup.locator('.setup-choice[data-choice="server"]').click({ timeout: timeoutMs });
    await textInput(chat.locator('#setup-url')).fill(context.fake.openaiBaseUrl, { timeout: timeoutMs });
    await setup.locator('.setup-test').click({ timeout: timeoutMs });
    // The fake server refuses a listing without a key, as OpenAI does: the answer says where the key goes.
    await setup.locator('.setup-result[data-ok="false"]', { hasText: 'key field' }).waitFor({ state: 'visible', timeout: timeoutMs });
    await textInput(chat.locator('#setup-server-key')).fill(SETUP.key, { timeout: timeoutMs });
    await setup.locator('.setup-test').click({ timeout: timeoutMs });
    await setup.locator('.setup-result[data-ok="true"]', { hasText: 'Connected' }).waitFor({ state: 'visible', timeout: timeoutMs });
    for (const selector of ['section.setup .setup-result', '#setup-model', 'section.setup .setup-use', '#send']) await assertInSight(page, chat, selector);
    if (await setup.evaluate((element) => element.scrollHeight > element.clientHeight + 1)) throw new HarnessError('the set-up scrolls inside itself at 300 px');
    if ((await selectedValue(chat.locator('#setup-model'))) !== 'fake-model') throw new HarnessError('the model picker does not offer the server\'s model');
    await axeInThemes(context, 'set-up');

    await setup.locator('.setup-use').click({ timeout: timeoutMs });
    await setup.waitFor({ state: 'hidden', timeout: timeoutMs });
    context.fake.enqueue('openai', say(SETUP.after));
    await sendPrompt(chat, SETUP.prompt, timeoutMs);
    await chat.locator('.msg-assistant', { hasText: SETUP.after }).waitFor({ state: 'visible', timeout: timeoutMs });
    const sent = context.fake.requestsFor('openai').at(-1)?.headers.authorization;
    if (sent !== `Bearer ${SETUP.key}`) throw new HarnessError(`the prompt after the set-up sent ${JSON.stringify(sent)}, not the key typed there`);
  } finally {
    writeFileSync(file, original);
    await setSidebarWidth(page, before).catch(() => undefined);
  }
}

/** VS Code reads a changed settings file a moment later: a new session looks again until the set-up is offered. */
async function untilSetupOffered(chat: Frame, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs / 2;
  for (;;) {
    await newSession(chat, timeoutMs);
    if (await chat.locator('section.setup').waitFor({ state: 'visible', timeout: 2_000 }).then(() => true, () => false)) return;
    if (Date.now() > deadline) throw new HarnessError('with the provider switched to OpenAI and no key, the view never offered the set-up');
  }
}

/** axe-core on the chat view in Light and Dark Modern (Dark last, as the checks after expect), a screenshot in each. */
async function axeInThemes(context: UiContext, what: string): Promise<void> {
  const problems: string[] = [];
  for (const theme of [{ name: 'Light Modern', slug: 'light' }, { name: 'Dark Modern', slug: 'dark' }]) {
    await pickTheme(context.page, theme.name, 30_000);
    await context.page.waitForTimeout(800);
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, `ui-setup-300-${theme.slug}.png`) });
    const found = await seriousViolations(chatFrame(context));
    if (found.length > 0) problems.push(`the ${what} in ${theme.name}:\n${describeFindings(found)}`);
  }
  if (problems.length === 0) return;
  // The runner prints only a failure's first lines: every finding goes to the log first.
  log(`axe-core's findings:\n${problems.join('\n')}`);
  throw new HarnessError(`axe-core found critical or serious violations in the ${what} (listed above)`);
}

async function pairPickersLabelled(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const chat = chatFrame(context);
  const before = await sidebarWidth(page);
  try {
    await setSidebarWidth(page, 300);
    await newPairSession(chat, timeoutMs);
    await page.waitForTimeout(300);
    for (const [role, caption] of [['primary', 'Builder model'], ['coagent', 'Reviewer model']] as const) {
      const label = chat.locator(`label.picker:has(.model[data-role="${role}"]) .picker-label`);
      const box = await label.boundingBox();
      const text = (await label.innerText().catch(() => '')).trim();
      if (!box || box.width < 20 || box.height < 8 || text !== caption) throw new HarnessError(`the ${role} model picker does not print "${caption}" (it shows "${text}", box ${JSON.stringify(box)})`);
    }
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-pair-pickers-300.png') });
    const offered = await chat.locator('.model li.option, .model vscode-option').evaluateAll((options) => options.map((option) => option.textContent?.trim() ?? ''));
    const unserved = offered.filter((option) => /gpt-5\.4/.test(option));
    if (unserved.length > 0) throw new HarnessError(`the model pickers offer models the server does not serve: ${unserved.join(', ')}`);
  } finally {
    await setSidebarWidth(page, before).catch(() => undefined);
  }
}

async function settingsOrder(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  await runCommand(page, 'Preferences: Open Settings (UI)', timeoutMs);
  // Through the table of contents, as a person browses to an extension's settings: Extensions, then Crow Agent.
  const toc = page.locator('.settings-editor .settings-toc-container .monaco-list-row');
  await toc.filter({ hasText: /^Extensions/ }).first().click({ timeout: timeoutMs });
  await toc.filter({ hasText: /^Crow Agent/ }).first().click({ timeout: timeoutMs });
  await page.locator('.settings-editor .setting-item-contents .setting-item-category', { hasText: /^Crow/ }).first().waitFor({ state: 'visible', timeout: timeoutMs });
  await page.waitForTimeout(800);
  await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-settings-order.png') });
  // The first screen of Crow's settings (the editor draws only the rows in sight): the provider and model, not Auto Approve (first alphabetically).
  const titles = (await settingTitles(page)).filter((title) => title.startsWith('Crow'));
  if (titles[0] !== 'Crow: Provider' || titles[1] !== 'Crow: Model') throw new HarnessError(`Crow's settings do not start with Provider and Model: ${titles.join(' | ')}`);
  if (titles.some((title) => title.includes('Auto Approve'))) throw new HarnessError(`Auto Approve is among Crow's first settings: ${titles.join(' | ')}`);
  // Compaction, found as a person finds a setting: typed into the search box.
  await page.locator('.settings-editor .settings-header .search-container').click({ timeout: timeoutMs });
  await page.waitForTimeout(500);
  await page.keyboard.type('crow.compaction', { delay: 40 });
  const compaction = page.locator('.settings-editor .setting-item-contents', { has: page.locator('.setting-item-label', { hasText: /^Compaction$/ }) });
  await compaction.waitFor({ state: 'visible', timeout: timeoutMs });
  const shown = (await compaction.locator('select').first().evaluate((element) => (element as HTMLSelectElement).selectedOptions[0]?.textContent ?? '')).trim();
  if (!/^Default \(auto\)/.test(shown)) throw new HarnessError(`the Compaction setting shows "${shown}", not its default`);
  await compaction.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-settings-compaction.png') });
  await runCommand(page, 'View: Close All Editors', timeoutMs);
}

/** The settings' titles as the editor lists them ("Category: Title" as one line), top to bottom. */
function settingTitles(page: Page): Promise<string[]> {
  return page.locator('.settings-editor .setting-item-contents .setting-item-title').evaluateAll((titles) =>
    titles.map((title) => {
      const category = title.querySelector('.setting-item-category')?.textContent ?? '';
      const label = title.querySelector('.setting-item-label')?.textContent ?? '';
      return `${category}${label}`.trim();
    }),
  );
}
