/**
 * The trace panel as a person reads it after a reviewed (pair) run: rows
 * that tell the story ("builder · read greeting.txt", "reviewer · asked for
 * changes: …", model calls with their tokens), each review's verdict in the
 * tree, a row selected from the start, and the arrow keys moving through
 * the rows (screenshot ui-trace-story.png at 1280×800).
 */
import { join } from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, sendPrompt, type UiCheck, type UiContext, newPairSession, toolCall } from './ui-checks';
import { runCommand, webviewFrame } from './workbench-ui';

const STORY = {
  prompt: 'Write story.md from greeting.txt, for the trace check.',
  file: 'story.md',
  feedback: 'Changes requested: give story.md a title line.',
  approval: 'Approved: story.md has its title.',
  /** The two reviews' rows: the verdict said once, though each review opens with its own. */
  feedbackRow: 'reviewer · asked for changes: give story.md a title line.',
  approvalRow: 'reviewer · approved: story.md has its title.',
};

export const TRACE_CHECKS: UiCheck[] = [
  {
    slug: 'trace-story',
    name: 'the trace of a reviewed run reads as a story with each verdict in the tree, a row selected, and arrow keys moving through it (screenshot ui-trace-story.png)',
    timeoutMs: 90_000,
    run: traceStory,
  },
];

async function traceStory(context: UiContext, timeoutMs: number): Promise<void> {
  await pairRun(context, timeoutMs);
  const { page } = context;
  // Reading a trace, a person gives it the room the terminal panel (opened by earlier checks) takes.
  if (await page.locator('[id="workbench.parts.panel"]').isVisible()) await runCommand(page, 'View: Hide Panel', timeoutMs);
  await runCommand(page, 'Crow: Show Trace of This Chat', timeoutMs);
  const trace = await webviewFrame(page, '#tree[role="tree"] .row[role="treeitem"]', timeoutMs);
  await trace.locator('html[data-mode="story"]').waitFor({ state: 'attached', timeout: timeoutMs });
  // The run's spans arrive together; wait for the last review's row.
  const approved = trace.locator('.row[data-verdict="approved"]');
  await approved.waitFor({ state: 'visible', timeout: timeoutMs });

  const rows = await storyRows(trace);
  const expect = (what: string, found: boolean): void => {
    if (!found) throw new HarnessError(`the trace's story lacks ${what}:\n${rows.join('\n')}`);
  };
  expect('"builder · read greeting.txt"', rows.includes('builder · read greeting.txt'));
  expect(`"builder · wrote ${STORY.file}"`, rows.includes(`builder · wrote ${STORY.file}`));
  expect('a model call as "builder · model (… in / … out…)"', rows.some((row) => /^builder · model \(\d[\d.kM]* in \/ \d[\d.kM]* out/.test(row)));
  expect(`the review that asked for changes ("${STORY.feedbackRow}")`, rows.includes(STORY.feedbackRow));
  expect(`the approval ("${STORY.approvalRow}")`, rows.includes(STORY.approvalRow));
  expect('no OpenTelemetry span names', !rows.some((row) => /invoke_agent|execute_tool|^chat /.test(row)));
  expect('no cost shown as $0.0000', !rows.some((row) => row.includes('$0.0000')));

  const selected = trace.locator('.row[aria-selected="true"]');
  if ((await selected.count()) !== 1) throw new HarnessError('no row is selected when the trace opens');
  const first = await selectedLine(trace);
  if (!first.startsWith('you · asked:')) throw new HarnessError(`the row selected at first is "${first}", not the prompt`);
  if (!(await trace.locator('.details-title').innerText()).startsWith('you · asked:')) throw new HarnessError('the first row\'s details are not shown');

  // Keyboard only from here: Tab into the page's tree is the person's way in; a click on the selected row is ours.
  await selected.click({ timeout: timeoutMs });
  await page.keyboard.press('ArrowDown');
  await waitForSelection(trace, (line) => line !== first, 'ArrowDown did not move the selection', timeoutMs);
  await page.keyboard.press('End');
  const last = rows[rows.length - 1]!;
  await waitForSelection(trace, (line) => line === last, 'End did not reach the last row', timeoutMs);
  // Up from the last row (the approving review's own calls) to the approving review itself.
  for (let step = 0; step < 4 && !(await selectedLine(trace)).startsWith('reviewer · approved'); step++) {
    await page.keyboard.press('ArrowUp');
    await trace.waitForTimeout(100);
  }
  await waitForSelection(trace, (line) => line.startsWith('reviewer · approved'), 'ArrowUp never reached the approving review', timeoutMs);
  const details = await trace.locator('.details').innerText();
  if (!/verdict\s+approved/.test(details)) throw new HarnessError(`the approving review's details lack its verdict:\n${details}`);
  const focused = await trace.evaluate(() => document.activeElement?.getAttribute('aria-selected'));
  if (focused !== 'true') throw new HarnessError('the keyboard focus did not stay on the selected row');
  await page.keyboard.press('ArrowLeft');
  await approved.and(trace.locator('[aria-expanded="false"]')).waitFor({ state: 'visible', timeout: 5_000 });
  await page.keyboard.press('ArrowRight');
  await approved.and(trace.locator('[aria-expanded="true"]')).waitFor({ state: 'visible', timeout: 5_000 });
  await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-trace-story.png') });
  // The checks after this one expect the window as it was.
  await runCommand(page, 'View: Close All Editors', timeoutMs);
}

/** A pair run with one round of changes asked for and then approved, as ui-checks-runs.ts scripts one. */
async function pairRun(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newPairSession(chat, timeoutMs);
  context.fake.enqueue(
    'openai',
    toolCall('read_file', { path: 'greeting.txt' }),
    toolCall('write_file', { path: STORY.file, content: 'Once upon a time.\n' }),
    toolCall('task_complete', { summary: 'Wrote story.md.' }),
    { blocks: [{ type: 'text', text: STORY.feedback }] },
    toolCall('write_file', { path: STORY.file, content: '# A story\n\nOnce upon a time.\n' }),
    toolCall('task_complete', { summary: 'Gave story.md a title.' }),
    toolCall('task_complete', { summary: STORY.approval }),
  );
  await sendPrompt(chat, STORY.prompt, timeoutMs);
  // Writes are asked for in this workspace: the builder's two writes wait for a click each.
  for (let write = 0; write < 2; write++) {
    await chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]').first().click({ timeout: timeoutMs });
  }
  await chat.locator('.prompt-end').last().waitFor({ state: 'visible', timeout: timeoutMs });
  if (context.fake.pending('openai') > 0) throw new HarnessError(`the pair run ended with ${context.fake.pending('openai')} scripted replies unused`);
}

/** Each row as it reads: "actor · what happened". */
function storyRows(trace: Frame): Promise<string[]> {
  return trace.locator('.row').evaluateAll((rows) =>
    rows.map((row) => {
      const actor = row.querySelector('.agent')?.textContent ?? '';
      const name = row.querySelector('.name')?.textContent ?? '';
      return actor ? `${actor} · ${name}` : name;
    }),
  );
}

async function selectedLine(trace: Frame): Promise<string> {
  const row: Locator = trace.locator('.row[aria-selected="true"]');
  const actor = await row.locator('.agent').innerText();
  const name = await row.locator('.name').innerText();
  return actor ? `${actor} · ${name}` : name;
}

async function waitForSelection(trace: Frame, wanted: (line: string) => boolean, failure: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + Math.min(timeoutMs, 5_000);
  let line = '';
  while (Date.now() < deadline) {
    line = await selectedLine(trace).catch(() => '');
    if (wanted(line)) return;
    await trace.waitForTimeout(100);
  }
  throw new HarnessError(`${failure} (the selected row reads "${line}")`);
}
