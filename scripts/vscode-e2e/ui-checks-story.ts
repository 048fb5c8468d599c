/**
 * The chat tells the person's story (issue 39, items 4, 5, 6 and part of
 * 10), in the real workbench: tool cards say what happened in plain words
 * with the tool's name one click away, a single agent wears no badge,
 * task_complete is no card but the answer, a refusal is a neutral "Not
 * allowed", a reviewed run reads as reviews and verdicts with the builder's
 * answer and the reviewer's words as prose, card heads keep their facts at
 * 300 and 250 px and nothing scrolls sideways once focus moves (light and
 * dark), shell blocks offer no Apply, Apply's prompt is no message the person
 * typed, and a message's Restore and Edit show on hover or focus only.
 * Screenshots: ui-story-*.png.
 */
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newPairSession, newSession, pickTheme, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';
import { runCommand } from './workbench-ui';
import { pickOption } from '../../test/support/vscode-elements';
import { setSidebarWidth, sidebarWidth } from './ui-checks-narrow';

const BUILD = {
  prompt: 'Tell the story of story.txt.',
  path: 'story.txt',
  search: 'story-marker',
  answer: 'story.txt now says two; npm test has no script here.',
};
const DENIED = { prompt: 'Change story.txt again.', path: 'story.txt' };
const PAIR = {
  prompt: 'Write the pair story notes.',
  path: 'pair-story.md',
  first: 'Wrote pair-story.md with one line.',
  feedback: 'Please add a second line about the reviewer.',
  second: 'Added the second line to pair-story.md.',
  approval: 'Both lines are there and read well.',
};
const BLOCKS = {
  prompt: 'Show me a command and a file.',
  path: 'story-apply.ts',
  answer: 'Run this:\n\n```bash\nnpm test\n```\n\nand put this in a file:\n\n```ts story-apply.ts\nexport const story = 1;\n```\n',
};
/** Tool names a person should not have to read in a card's head. */
const TOOL_NAMES = /\b(read_file|edit_file|write_file|bash|grep|list_directory|task_complete)\b/;

export const STORY_CHECKS: UiCheck[] = [
  {
    slug: 'story-cards',
    name: 'tool cards say what happened in plain words ("Read …", "Edited … +1 −1", "Ran npm test — failed, exit N", "Searched for …"), the tool one click away, no badge for a lone agent, no task_complete card (its summary is the answer)',
    timeoutMs: 90_000,
    run: storyCards,
  },
  {
    slug: 'story-denied',
    name: 'an edit the person denies reads as a neutral "Not allowed: edit …" card, not a red failure quoting what the model was told',
    timeoutMs: 60_000,
    run: storyDenied,
  },
  {
    slug: 'story-narrow',
    name: 'at 300 and 250 px, light and dark, card heads keep what happened and how it ended, and the transcript never scrolls sideways once focus moves (screenshots ui-story-<width>-<theme>.png)',
    timeoutMs: 120_000,
    run: storyNarrow,
  },
  {
    slug: 'story-review',
    name: 'a reviewed run reads as a story: "First review", "Reviewer asked for changes: …", "Second review", "Reviewer approved" with its words, the builder\'s answer as prose, badges since two agents speak (screenshot ui-story-review.png)',
    timeoutMs: 120_000,
    run: storyReview,
  },
  {
    slug: 'story-blocks',
    name: 'a shell block offers no Apply; Apply on a file block shows a quiet "Applied a code block to …", not a message the person typed; a message\'s Restore and Edit show on hover or keyboard focus only',
    timeoutMs: 60_000,
    run: storyBlocks,
  },
  {
    slug: 'story-slash',
    name: "@crow's slash list in VS Code's own chat offers the few everyday commands, not every internal agent, and an unlisted agent typed as /name still runs (screenshot ui-story-slash.png)",
    timeoutMs: 60_000,
    run: storySlash,
  },
];

async function storyCards(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newBuildSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: BUILD.path, content: `one\n${BUILD.search}\n` }),
    toolCall('read_file', { path: BUILD.path }),
    toolCall('edit_file', { path: BUILD.path, old_string: 'one', new_string: 'two' }),
    toolCall('grep', { pattern: BUILD.search }),
    toolCall('bash', { command: 'npm test' }),
    toolCall('task_complete', { summary: BUILD.answer }),
  );
  await sendPrompt(chat, BUILD.prompt, timeoutMs);
  await allowUntilEnd(chat, timeoutMs);
  const heads = await headTexts(chat);
  const expect = (pattern: RegExp, what: string): void => {
    if (!heads.some((head) => pattern.test(head))) throw new HarnessError(`no card head reads ${what}; the heads read:\n${heads.join('\n')}`);
  };
  expect(/^Wrote story\.txt\s+new file \+2 −0/, '"Wrote story.txt new file +2 −0"');
  expect(/^Read story\.txt/, '"Read story.txt"');
  expect(/^Edited story\.txt\s+\+1 −1/, '"Edited story.txt +1 −1"');
  expect(/^Searched for "story-marker"\s+\d+ files?/, '"Searched for "story-marker" N files"');
  expect(/^Ran npm test[\s\S]*failed, exit \d+/, '"Ran npm test … failed, exit N"');
  const named = heads.filter((head) => TOOL_NAMES.test(head));
  if (named.length > 0) throw new HarnessError(`card heads still name tools: ${named.join(' | ')}`);
  if ((await chat.locator('.tool-card[data-tool="task_complete"]').count()) > 0) throw new HarnessError('task_complete is shown as a card');
  await chat.locator('.msg-assistant', { hasText: BUILD.answer }).waitFor({ state: 'visible', timeout: timeoutMs });
  const badges = await chat.locator('#transcript .badge').evaluateAll((items) => items.filter((item) => (item as HTMLElement).offsetParent !== null).map((item) => item.textContent));
  if (badges.length > 0) throw new HarnessError(`a single-agent run shows badges: ${badges.join(', ')}`);
  // The machinery, one click away: the tool's name and arguments under Details.
  const read = chat.locator('.tool-card', { hasText: 'Read story.txt' }).last();
  if (await read.locator('.tool-name').isVisible()) throw new HarnessError('the tool name shows before anyone asks for it');
  await read.locator('.tool-args > summary').click({ timeout: timeoutMs });
  const name = await read.locator('.tool-name').innerText({ timeout: timeoutMs });
  if (name !== 'read_file') throw new HarnessError(`Details names the tool ${JSON.stringify(name)}, not read_file`);
  const ending = await chat.locator('.prompt-end').last().innerText();
  if (/completed the task/.test(ending)) throw new HarnessError(`the ending repeats the engine's line: ${ending}`);
  await chat.locator('.tool-card', { hasText: 'Ran npm test' }).last().scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-story-cards.png') });
}

async function storyDenied(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  context.fake.enqueue('openai', toolCall('edit_file', { path: DENIED.path, old_string: 'two', new_string: 'three' }), say('I will leave story.txt as it is.'));
  await chat.locator('#transcript[aria-busy="false"]').waitFor({ state: 'attached', timeout: timeoutMs });
  await sendPrompt(chat, DENIED.prompt, timeoutMs);
  await chat.locator('.approval:not([data-decision]) button[data-decision="reject_once"]').click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: 'I will leave story.txt as it is.' }).waitFor({ state: 'visible', timeout: timeoutMs });
  const card = chat.locator('.tool-card[data-status="denied"]').last();
  await card.waitFor({ state: 'visible', timeout: timeoutMs });
  const head = await card.locator('.tool-head').innerText();
  if (!/^Not allowed: edit story\.txt/.test(head.trim())) throw new HarnessError(`the denied card's head reads ${JSON.stringify(head)}`);
  const shown = await card.innerText();
  if (/Permission denied|Do not retry|failed/.test(shown)) throw new HarnessError(`the denied card shows words meant for the model or "failed": ${JSON.stringify(shown)}`);
  if (!/You said no\./.test(shown)) throw new HarnessError(`the denied card does not say who refused: ${JSON.stringify(shown)}`);
  const border = await card.evaluate((element) => getComputedStyle(element).borderColor);
  const plain = await chat.locator('.tool-card[data-status="completed"]').last().evaluate((element) => getComputedStyle(element).borderColor);
  if (border !== plain) throw new HarnessError(`the denied card is coloured as an alarm (${border}, a done card ${plain})`);
}

async function storyNarrow(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const chat = chatFrame(context);
  const before = await sidebarWidth(page);
  try {
    for (const theme of [{ name: 'Light Modern', slug: 'light' }, { name: 'Dark Modern', slug: 'dark' }]) {
      await pickTheme(page, theme.name, timeoutMs);
      for (const width of [300, 250]) {
        await setSidebarWidth(page, width);
        await page.waitForTimeout(400); // the webview follows the side bar's new size
        await assertFactsWhole(chat, width);
        // Focus moving to a card's control (as Tab does) must not scroll the transcript sideways.
        await chat.locator('.tool-card .trace-link').first().focus();
        await chat.locator('.tool-card .trace-link').last().focus();
        await assertNoSideways(chat, width);
        await chat.locator('.tool-card', { hasText: 'Ran npm test' }).last().scrollIntoViewIfNeeded({ timeout: timeoutMs });
        await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-story-${width}-${theme.slug}.png`) });
      }
    }
  } finally {
    await setSidebarWidth(page, before).catch(() => undefined);
  }
}

async function storyReview(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newPairSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: PAIR.path, content: '# Pair story\n\n- one\n' }),
    toolCall('task_complete', { summary: PAIR.first }),
    say(PAIR.feedback),
    toolCall('write_file', { path: PAIR.path, content: '# Pair story\n\n- one\n- the reviewer\n' }),
    toolCall('task_complete', { summary: PAIR.second }),
    toolCall('task_complete', { summary: PAIR.approval }),
  );
  await sendPrompt(chat, PAIR.prompt, timeoutMs);
  await allowUntilEnd(chat, timeoutMs);
  const text = await chat.locator('#transcript').innerText();
  for (const expected of ['First review', 'Reviewer asked for changes', PAIR.feedback, 'Second review', 'Reviewer approved', PAIR.approval]) {
    if (!text.includes(expected)) throw new HarnessError(`the reviewed run does not read "${expected}":\n${text}`);
  }
  for (const internal of ['round 1', 'What was passed on', '→', 'approved the work after', 'task_complete']) {
    if (text.includes(internal)) throw new HarnessError(`the reviewed run still reads "${internal}":\n${text}`);
  }
  // The builder's answers are prose in the transcript, not folded in cards.
  for (const answer of [PAIR.first, PAIR.second]) {
    const prose = chat.locator('.msg-assistant', { hasText: answer });
    if (!(await prose.last().isVisible())) throw new HarnessError(`the builder's answer "${answer}" is not shown as prose`);
  }
  // Both the verdict's words and the order: the run ends with the reviewer's approval, then the ending line.
  const last = await chat.locator('#transcript > .verdict').last().innerText();
  if (!last.includes(PAIR.approval)) throw new HarnessError(`the last verdict does not carry the reviewer's words: ${last}`);
  const badges = await chat.locator('#transcript .badge:visible').count();
  if (badges === 0) throw new HarnessError('two agents speak, yet no badge says who');
  await chat.locator('#transcript > .verdict').last().scrollIntoViewIfNeeded({ timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-story-review.png') });
}

async function storyBlocks(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newBuildSession(chat, timeoutMs);
  context.fake.enqueue('openai', say(BLOCKS.answer));
  await sendPrompt(chat, BLOCKS.prompt, timeoutMs);
  const blocks = chat.locator('.msg-assistant .code-block');
  await blocks.nth(1).waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await blocks.nth(0).locator('button.code-apply').count()) !== 0) throw new HarnessError('a bash block offers Apply');
  if ((await blocks.nth(0).locator('button.code-copy').count()) !== 1) throw new HarnessError('a bash block lost Copy');
  await chat.locator('#transcript[aria-busy="false"]').waitFor({ state: 'attached', timeout: timeoutMs });
  // Restore and Edit on a message: out of sight until hovered or reached by the keyboard.
  const message = chat.locator('.msg-user[data-checkpoint]', { hasText: BLOCKS.prompt }).last();
  await message.waitFor({ state: 'visible', timeout: timeoutMs });
  await chat.locator('#prompt').focus();
  await context.page.mouse.move(0, 0);
  const idle = await opacity(message);
  if (idle !== '0') throw new HarnessError(`a message's Restore and Edit show without hover or focus (opacity ${idle})`);
  await message.locator('button.checkpoint-restore').focus();
  const focused = await opacity(message);
  if (focused !== '1') throw new HarnessError(`the keyboard reached Restore, but it stays hidden (opacity ${focused})`);
  await message.hover();
  if ((await opacity(message)) !== '1') throw new HarnessError('hovering a message does not show its Restore and Edit');
  // Apply: the file block's Apply, then its approval; the transcript says what the person did, not a message they never typed.
  await blocks.nth(1).locator('button.code-apply').click({ timeout: timeoutMs });
  await chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]').click({ timeout: timeoutMs });
  const line = chat.locator('.msg-user.msg-action', { hasText: `Applied a code block to ${BLOCKS.path}` });
  await line.waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await chat.locator('.msg-user:not(.msg-action)', { hasText: 'Apply the code block' }).count()) > 0) throw new HarnessError('Apply still posts a message the person never typed');
  await chat.locator('.tool-card', { hasText: `Wrote ${BLOCKS.path}` }).last().waitFor({ state: 'visible', timeout: timeoutMs });
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-story-blocks.png') });
}

async function storySlash(context: UiContext, timeoutMs: number): Promise<void> {
  const { page, fake } = context;
  await runCommand(page, 'Chat: Open Chat', timeoutMs);
  const input = page.locator('.interactive-input-editor .monaco-editor').first();
  await input.click({ timeout: timeoutMs });
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('@crow /', { delay: 20 });
  const rows = page.locator('.suggest-widget .monaco-list-row');
  await rows.first().waitFor({ state: 'visible', timeout: timeoutMs });
  const offered = await rows.evaluateAll((items) => items.map((item) => item.getAttribute('aria-label') ?? item.textContent ?? ''));
  await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-story-slash.png') });
  const names = offered.join(' | ');
  for (const wanted of ['/pair', '/plan']) if (!names.includes(wanted)) throw new HarnessError(`@crow's slash list lacks ${wanted}: ${names}`);
  for (const internal of ['/build-loop', '/build-judged', '/build-criteria', '/build-prompted', '/build-verified', '/pair-chat']) {
    if (names.includes(internal)) throw new HarnessError(`@crow's slash list offers the internal agent ${internal}: ${names}`);
  }
  // An agent the list leaves out, typed by name: it runs, and the model gets the prompt without the name.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  const done = 'The loop agent answered.';
  fake.enqueue('openai', toolCall('task_complete', { summary: done }));
  const asked = fake.requestsFor('openai').length;
  await page.keyboard.type('@crow /build-loop say hello from the loop', { delay: 10 });
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  await page.locator('.interactive-response', { hasText: done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const sent = fake.requestsFor('openai').slice(asked).map((request) => JSON.stringify(request.body));
  if (!sent.some((body) => body.includes('say hello from the loop'))) throw new HarnessError('the typed agent\'s prompt never reached the model');
  if (sent.some((body) => body.includes('/build-loop'))) throw new HarnessError('the typed agent name reached the model as text, not as the agent to run');
  await runCommand(page, 'View: Hide Secondary Side Bar', timeoutMs);
}

/** A new session on the single-agent "build" (the checks before may have left another agent picked). */
async function newBuildSession(chat: Frame, timeoutMs: number): Promise<void> {
  await newSession(chat, timeoutMs);
  await pickOption(chat.locator('#agent'), 'build', timeoutMs);
  await chat.locator('.model[data-role="coagent"]').waitFor({ state: 'hidden', timeout: timeoutMs });
}

/** Allows everything the run asks for until its ending shows. */
async function allowUntilEnd(chat: Frame, timeoutMs: number): Promise<void> {
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  const ended = chat.locator('#transcript .prompt-end');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const pending = await allow.count();
    if (pending > 0) await allow.first().click({ timeout: 5_000 }).catch(() => undefined);
    else if ((await ended.count()) > 0) return;
    await chat.page().waitForTimeout(200);
  }
  throw new HarnessError(`the run did not end: ${await allow.count()} approvals pending, ${await ended.count()} endings shown`);
}

/** Each card head's words, time and state as shown, on one line each. */
async function headTexts(chat: Frame): Promise<string[]> {
  return chat.locator('#transcript .tool-head').evaluateAll((heads) => heads.map((head) => (head as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
}

/** Every card's words and state are whole (nothing cut), and inside the view. */
async function assertFactsWhole(chat: Frame, width: number): Promise<void> {
  const cut = await chat.evaluate(() => {
    const view = document.documentElement.clientWidth;
    const problems: string[] = [];
    for (const part of Array.from(document.querySelectorAll<HTMLElement>('#transcript .tool-head > .tool-what, #transcript .tool-head > .tool-outcome, #transcript .tool-head > .tool-state, #transcript .tool-head > .tool-duration'))) {
      if (part.offsetParent === null) continue;
      const box = part.getBoundingClientRect();
      if (part.scrollWidth > part.clientWidth + 1 || box.right > view + 1) problems.push(`"${part.innerText}" (${part.scrollWidth} > ${part.clientWidth}, right ${Math.round(box.right)} of ${view})`);
    }
    return problems;
  });
  if (cut.length > 0) throw new HarnessError(`at ${width} px card heads cut their facts: ${cut.join('; ')}`);
  const failed = await chat.locator('.tool-card', { hasText: 'Ran npm test' }).last().locator('.tool-head').innerText();
  if (!/Ran npm test[\s\S]*failed, exit \d+/.test(failed)) throw new HarnessError(`at ${width} px the failed command's head reads ${JSON.stringify(failed)}`);
}

/** The transcript, the page and the body are no wider than the view, and none is scrolled sideways. */
async function assertNoSideways(chat: Frame, width: number): Promise<void> {
  const measured = await chat.evaluate(() =>
    ['#transcript', 'body', 'html'].map((selector) => {
      const element = document.querySelector(selector)!;
      return { selector, scroll: element.scrollWidth, client: element.clientWidth, left: element.scrollLeft };
    }),
  );
  const wide = measured.filter((item) => item.scroll > item.client || item.left !== 0);
  if (wide.length > 0) throw new HarnessError(`at ${width} px the view scrolls sideways: ${JSON.stringify(wide)}`);
}

async function opacity(message: ReturnType<Frame['locator']>): Promise<string> {
  return message.locator('.checkpoint-actions').evaluate((element) => getComputedStyle(element).opacity);
}
