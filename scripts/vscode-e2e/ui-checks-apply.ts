/**
 * The UI phase's check of Apply on an answer's code block, as a Copilot
 * user applies a suggestion: the block's Apply asks like an agent's write,
 * the file gets the block, the changes bar lists it and its Undo puts the
 * file back, and the agents hear of it with the next message.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, say, sendPrompt, type UiCheck, type UiContext, waitUntil } from './ui-checks';

const APPLY = {
  path: 'apply-check.ts',
  before: 'export const applied = 1;\n',
  after: 'export const applied = 2;\n',
  prompt: 'Make applied 2.',
  next: 'Now tell me what the file holds.',
  told: 'It holds applied = 2.',
};

export const APPLY_CHECKS: UiCheck[] = [
  {
    slug: 'apply-code-block',
    name: "Apply on an answer's code block asks like a write, writes the block, lists it in the changes bar (screenshot ui-apply.png), Undo puts the file back, and the next request tells the model both",
    timeoutMs: 90_000,
    run: applyCodeBlock,
  },
];

async function applyCodeBlock(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const file = join(context.workspace, APPLY.path);
  writeFileSync(file, APPLY.before);
  await newSession(chat, timeoutMs);
  context.fake.enqueue('openai', say(['Change the constant:', '', `\`\`\`ts ${APPLY.path}`, APPLY.after.trimEnd(), '```'].join('\n')));
  await sendPrompt(chat, APPLY.prompt, timeoutMs);
  const apply = chat.locator(`.code-block button.code-apply[data-path="${APPLY.path}"]`).last();
  await apply.click({ timeout: timeoutMs });

  const allow = chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]');
  await allow.waitFor({ state: 'visible', timeout: timeoutMs });
  if (readFileSync(file, 'utf8') !== APPLY.before) throw new HarnessError('Apply wrote the file before the person allowed it');
  await allow.click({ timeout: timeoutMs });
  await waitUntil(() => readFileSync(file, 'utf8') === APPLY.after, timeoutMs / 3, 'after the yes the file does not hold the applied block');

  const bar = chat.locator('.changes-bar').last();
  await bar.waitFor({ state: 'visible', timeout: timeoutMs });
  const listed = (await bar.innerText()).replace(/\s+/g, ' ');
  if (!/1 file changed/.test(listed) || !listed.includes(APPLY.path) || !listed.includes('+1')) throw new HarnessError(`the changes bar after Apply reads ${JSON.stringify(listed)}`);
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-apply.png') });

  // Undo acts on the click (issue 39): no approval to answer.
  await bar.locator('.changes-undo').click({ timeout: timeoutMs });
  await waitUntil(() => readFileSync(file, 'utf8') === APPLY.before, timeoutMs / 3, 'Undo on the changes bar did not put the file back as it was before the Apply');

  // The Apply and its undo are the person's: the model reads of both before the next message.
  const asked = context.fake.requests.length;
  context.fake.enqueue('openai', say(APPLY.told));
  await sendPrompt(chat, APPLY.next, timeoutMs);
  await chat.locator('.msg-assistant', { hasText: APPLY.told }).waitFor({ state: 'visible', timeout: timeoutMs });
  const request = JSON.stringify(context.fake.requests.slice(asked).at(-1)?.body ?? {});
  if (!request.includes(`applied a code block from an answer to ${APPLY.path}`)) throw new HarnessError('the next request does not tell the model that the person applied the block');
  if (!request.includes(`${APPLY.path} is back as it was before`)) throw new HarnessError('the next request does not tell the model that the Apply was undone');
}
