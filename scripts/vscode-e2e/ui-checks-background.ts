/**
 * The UI phase's check of background runs in the chat view: a prompt sent
 * with Background (beside Send) runs while the chat stays free; the
 * Background runs list shows it running (screenshot ui-background-running.png),
 * then finished once the fake model's held reply is released
 * (ui-background-finished.png); Open shows it as its session, its prompt and
 * answer in the transcript (ui-background-opened.png). Background with
 * Attempts at 3 runs them as a background run (no card on screen, listed
 * with "3 attempts"); Open on the finished run shows the comparison card
 * (ui-background-attempts.png), and Apply writes the picked attempt.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pickOption } from '../../test/support/vscode-elements';
import { attemptsModel, FILE, ORIGINAL, repository, WRITES } from './ui-checks-attempts';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, type UiCheck, type UiContext, waitUntil } from './ui-checks';

const PROMPT = 'Summarise the README in the background.';
const ANSWER = 'The background summary is ready.';

export const BACKGROUND_CHECKS: UiCheck[] = [
  {
    slug: 'background-runs',
    name: 'Background runs: Background beside Send starts a run the chat does not wait for; the list shows it running, then finished; Open shows it as its session (screenshots ui-background-*.png)',
    timeoutMs: 120_000,
    run: backgroundRuns,
  },
  {
    slug: 'background-attempts',
    name: 'Background attempts: Background with Attempts at 3 lists a run of 3 attempts and shows no card; Open on the finished run shows the comparison card (screenshot ui-background-attempts.png); Apply writes the picked attempt into the file',
    timeoutMs: 180_000,
    run: backgroundAttempts,
  },
];

const ATTEMPTS_PROMPT = 'Make greet.js say hello, in the background.';

async function backgroundAttempts(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const file = join(context.workspace, FILE);
  writeFileSync(file, ORIGINAL);
  repository(context.workspace);
  context.fake.respondWith('openai', attemptsModel);
  try {
    await newSession(chat, timeoutMs);
    await pickOption(chat.locator('#attempts'), '3 attempts', timeoutMs);
    await chat.locator('textarea#prompt').fill(ATTEMPTS_PROMPT, { timeout: timeoutMs });
    await chat.locator('#background').click({ timeout: timeoutMs });
    const list = chat.locator('#background-runs');
    await list.waitFor({ state: 'visible', timeout: timeoutMs });
    if (!(await list.evaluate((element) => (element as HTMLDetailsElement).open))) await list.locator('summary').click({ timeout: timeoutMs });
    const finished = list.locator('.background-run[data-state="finished"]', { hasText: ATTEMPTS_PROMPT });
    await finished.waitFor({ state: 'visible', timeout: timeoutMs });
    const meta = await finished.locator('.background-meta').innerText({ timeout: timeoutMs });
    if (!meta.includes('3 attempts')) throw new HarnessError(`the finished run's line reads ${JSON.stringify(meta)}, not "3 attempts"`);
    if ((await chat.locator('.attempts-card').count()) > 0) throw new HarnessError('background attempts showed a card in the session on screen');
    if (readFileSync(file, 'utf8') !== ORIGINAL) throw new HarnessError('the background attempts changed the folder before anyone applied one');

    await finished.locator('.background-open').click({ timeout: timeoutMs });
    const card = chat.locator('.attempts-card[data-phase="ranked"]').last();
    await card.waitFor({ state: 'visible', timeout: timeoutMs });
    const order = await card.locator('.attempt-row').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset['n']));
    if (order.join(',') !== '3,1,2') throw new HarnessError(`the opened run's attempts are ranked ${order.join(',')}, not 3,1,2`);
    await card.locator('details.attempt-diff[data-n="1"] > summary').click({ timeout: timeoutMs });
    await card.locator('details.attempt-diff[data-n="1"] .diff-add', { hasText: "'hello'" }).waitFor({ state: 'visible', timeout: timeoutMs });
    await card.scrollIntoViewIfNeeded();
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-background-attempts.png') });

    await card.locator('.attempt-apply[data-n="1"]').click({ timeout: timeoutMs });
    await waitUntil(() => readFileSync(file, 'utf8') === WRITES[1], timeoutMs / 3, 'Apply on attempt 1 of the background run did not bring its change into the file');
    await chat.locator('.attempts-card[data-phase="applied"]').last().waitFor({ state: 'visible', timeout: timeoutMs });
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-background-attempts-applied.png') });
  } finally {
    await pickOption(chat.locator('#attempts'), '1 attempt', timeoutMs).catch(() => undefined);
    context.fake.respondWith('openai', () => undefined);
    rmSync(join(context.workspace, '.git'), { recursive: true, force: true });
    if (existsSync(file)) rmSync(file);
  }
}

async function backgroundRuns(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  context.fake.respondWith('openai', (body): ScriptedReply | undefined =>
    JSON.stringify(body).includes(PROMPT) ? { blocks: [{ type: 'text', text: ['The background ', 'summary is ready.'] }], pauses: [{ before: 'summary is ready.', until: held }] } : undefined,
  );
  try {
    await newSession(chat, timeoutMs);
    await chat.locator('textarea#prompt').fill(PROMPT, { timeout: timeoutMs });
    await chat.locator('#background').click({ timeout: timeoutMs });
    const list = chat.locator('#background-runs');
    await list.waitFor({ state: 'visible', timeout: timeoutMs });
    if (!(await list.evaluate((element) => (element as HTMLDetailsElement).open))) await list.locator('summary').click({ timeout: timeoutMs });
    const running = list.locator('.background-run[data-state="running"]', { hasText: PROMPT });
    await running.waitFor({ state: 'visible', timeout: timeoutMs });
    // The chat is free meanwhile: not busy (Send, not Queue).
    const busy = await chat.locator('.composer').getAttribute('data-busy', { timeout: timeoutMs });
    if (busy !== 'false') throw new HarnessError(`while the background run runs, the chat is busy (${JSON.stringify(busy)})`);
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-background-running.png') });

    release();
    const finished = list.locator('.background-run[data-state="finished"]', { hasText: PROMPT });
    await finished.waitFor({ state: 'visible', timeout: timeoutMs });
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-background-finished.png') });

    await finished.locator('.background-open').click({ timeout: timeoutMs });
    await chat.locator('.msg-user', { hasText: PROMPT }).waitFor({ state: 'visible', timeout: timeoutMs });
    await chat.locator('.msg-assistant', { hasText: ANSWER }).waitFor({ state: 'visible', timeout: timeoutMs });
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-background-opened.png') });
  } finally {
    release();
    context.fake.respondWith('openai', () => undefined);
  }
}
