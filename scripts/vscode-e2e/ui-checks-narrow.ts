/**
 * The chat view in a narrow side bar (issue 26, item 6): the side bar is
 * dragged to 250 px, then 300 px, while a pair run waits on a write's
 * approval, and at each width every tool card's head, the composer's row
 * (the pickers and Send) and the approval's answers must each stay on one
 * line inside the view, and each picker (agent, both models, thinking when
 * offered) must show its whole value: the text its face shows is the value,
 * not cut (scrollWidth against clientWidth). Screenshots: ui-narrow-250.png,
 * ui-narrow-300.png.
 * The side bar gets its width back at the end, for the checks after it.
 */
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { readPickers, unreadablePickers } from '../../test/support/vscode-elements';
import { chatFrame, sendPrompt, toolCall, type UiCheck, type UiContext, newPairSession } from './ui-checks';

const NARROW = {
  prompt: 'Write the narrow-sidebar notes.',
  path: 'docs/narrow-sidebar/a-rather-long-file-name-for-the-narrow-check.md',
  content: '# Narrow\n\nOne line.\n',
};

export const NARROW_CHECKS: UiCheck[] = [
  {
    slug: 'narrow-sidebar',
    name: 'at a 250 px and a 300 px side bar, tool heads, Send beside the pickers and an approval\'s answers each stay on one line, and every picker shows its whole value (screenshots ui-narrow-250.png, ui-narrow-300.png)',
    timeoutMs: 90_000,
    run: narrowSidebar,
  },
];

async function narrowSidebar(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const chat = chatFrame(context);
  const before = await sidebarWidth(page);
  await newPairSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('write_file', { path: NARROW.path, content: NARROW.content }),
    toolCall('task_complete', { summary: 'Wrote the notes.' }),
    toolCall('task_complete', { summary: 'Approved.' }),
  );
  await sendPrompt(chat, NARROW.prompt, timeoutMs);
  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  await allow.waitFor({ state: 'visible', timeout: timeoutMs });
  try {
    for (const width of [250, 300]) {
      await setSidebarWidth(page, width);
      await chat.locator('.tool-card').first().waitFor({ state: 'visible', timeout: timeoutMs });
      await page.waitForTimeout(300); // the webview follows the side bar's new size
      await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-narrow-${width}.png`) });
      await assertOneLine(chat, width);
      await assertPickersReadable(chat, width);
    }
  } finally {
    await setSidebarWidth(page, before).catch(() => undefined);
  }
  await allow.click({ timeout: timeoutMs });
  await chat.locator('.prompt-end').last().waitFor({ state: 'visible', timeout: timeoutMs });
}

/** The side bar's width in the workbench, in CSS pixels. */
export async function sidebarWidth(page: Page): Promise<number> {
  const box = await page.locator('.part.sidebar').first().boundingBox();
  if (!box) throw new HarnessError('the side bar is not shown');
  return Math.round(box.width);
}

/**
 * Drags the sash at the side bar's right edge until the side bar is `width`
 * px wide (within 2 px); a few drags, since the workbench may snap.
 */
export async function setSidebarWidth(page: Page, width: number): Promise<void> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const box = await page.locator('.part.sidebar').first().boundingBox();
    if (!box) throw new HarnessError('the side bar is not shown');
    if (Math.abs(box.width - width) <= 2) return;
    const edge = box.x + box.width;
    const y = box.y + box.height / 2;
    await page.mouse.move(edge, y);
    await page.mouse.down();
    await page.mouse.move(edge + (width - box.width) / 2, y, { steps: 4 });
    await page.mouse.move(box.x + width, y, { steps: 4 });
    await page.mouse.up();
    await page.waitForTimeout(200);
  }
  const got = await sidebarWidth(page);
  if (Math.abs(got - width) > 2) throw new HarnessError(`could not make the side bar ${width} px wide by dragging its sash: it is ${got} px`);
}

/** Every tool head, the composer's row and the pending approval's answers each on one line, inside the view. */
async function assertOneLine(chat: Frame, width: number): Promise<void> {
  const viewWidth = await chat.evaluate(() => document.documentElement.clientWidth);
  const heads = await chat.locator('.tool-head').all();
  if (heads.length === 0) throw new HarnessError('no tool card to measure');
  for (const head of heads) {
    const whole = await head.boundingBox();
    const name = await head.locator('.tool-name').boundingBox();
    if (!whole || !name) throw new HarnessError('a tool head is not shown');
    if (whole.height > name.height * 1.8) throw new HarnessError(`at ${width} px a tool head wraps: ${whole.height} px high, its name ${name.height} px`);
    if (await head.evaluate((element) => element.scrollWidth > element.clientWidth)) throw new HarnessError(`at ${width} px a tool head runs past its card`);
  }
  const send = await chat.locator('#send').boundingBox();
  const picker = await chat.locator('.pickers vscode-single-select').first().boundingBox();
  if (!send || !picker) throw new HarnessError('the composer row is not shown');
  if (Math.abs(send.y - picker.y) >= picker.height) throw new HarnessError(`at ${width} px Send wraps under the pickers (Send at y ${send.y}, pickers at y ${picker.y})`);
  // boundingBox is in the workbench page's coordinates; how far right an element reaches in the view is the webview's own.
  const sendRight = await chat.locator('#send').evaluate((element) => element.getBoundingClientRect().right);
  if (sendRight > viewWidth + 1) throw new HarnessError(`at ${width} px Send runs past the view (${sendRight} > ${viewWidth})`);
  const answers = await chat.locator('.approval:not([data-decision]) .approval-actions button').all();
  const boxes = await Promise.all(answers.map((answer) => answer.boundingBox()));
  const tops = boxes.map((box) => Math.round(box?.y ?? -1));
  if (answers.length < 3 || new Set(tops).size !== 1) throw new HarnessError(`at ${width} px the approval's answers take ${new Set(tops).size} lines: ${tops.join(', ')}`);
  const right = Math.max(...(await Promise.all(answers.map((answer) => answer.evaluate((element) => element.getBoundingClientRect().right)))));
  if (right > viewWidth + 1) throw new HarnessError(`at ${width} px an approval answer runs past the view (${right} > ${viewWidth})`);
}

/** Every shown picker (the pair agent's: agent, both models) shows its whole value, inside the view. */
async function assertPickersReadable(chat: Frame, width: number): Promise<void> {
  const pickers = await readPickers(chat.locator('.pickers vscode-single-select'));
  if (pickers.length < 3) throw new HarnessError(`at ${width} px ${pickers.length} pickers are shown, not the pair agent's agent and two models`);
  const problems = unreadablePickers(pickers, width);
  if (problems.length > 0) throw new HarnessError(problems.join('; '));
}
