/**
 * The UI phase's check of background runs in the chat view: a prompt sent
 * with Background (beside Send) runs while the chat stays free; the
 * Background runs list shows it running (screenshot ui-background-running.png),
 * then finished once the fake model's held reply is released
 * (ui-background-finished.png); Open shows it as its session, its prompt and
 * answer in the transcript (ui-background-opened.png).
 */
import { join } from 'node:path';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, type UiCheck, type UiContext } from './ui-checks';

const PROMPT = 'Summarise the README in the background.';
const ANSWER = 'The background summary is ready.';

export const BACKGROUND_CHECKS: UiCheck[] = [
  {
    slug: 'background-runs',
    name: 'Background runs: Background beside Send starts a run the chat does not wait for; the list shows it running, then finished; Open shows it as its session (screenshots ui-background-*.png)',
    timeoutMs: 120_000,
    run: backgroundRuns,
  },
];

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
