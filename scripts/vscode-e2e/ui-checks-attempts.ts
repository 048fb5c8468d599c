/**
 * The UI phase's check of parallel attempts in the chat view: with
 * Attempts at 2 in a folder that is not a git repository the card says
 * why and what to do; in a repository, 3 attempts run side by side on the
 * fake model (which tells them apart by the worktree their system prompt
 * names), the card ranks them with the judge's reasons (shown as text,
 * never HTML) and a diff each (screenshot ui-attempts.png), Apply, reached
 * from the keyboard, brings the picked one into the file, and the changes
 * bar's Undo puts it back.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { pickOption } from '../../test/support/vscode-elements';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, sendPrompt, type UiCheck, type UiContext, waitUntil } from './ui-checks';

export const FILE = 'greet.js';
export const ORIGINAL = "module.exports = () => 'hi';\n";
export const WRITES: Record<number, string> = {
  1: "module.exports = () => 'hello';\n",
  2: "module.exports = () => 'hallo';\n",
  3: "// Greets the caller.\nmodule.exports = () => 'hello';\n",
};
const PROMPT = 'Make greet.js say hello.';
/** The judge's reasons; one holds markup, which the card must show as the characters it is. */
const REASONS = { 3: 'Correct, and documents the function.', 1: 'Correct but <b>bare</b>.', 2: 'Says hallo, not hello.' };

export const ATTEMPTS_CHECKS: UiCheck[] = [
  {
    slug: 'attempts-compare',
    name: "Attempts: outside a git repository the card says why; in one, 3 attempts run side by side, the card ranks them with the judge's reasons and a diff each (screenshot ui-attempts.png), Apply from the keyboard writes the picked one, and Undo puts the file back",
    timeoutMs: 180_000,
    run: attemptsCompare,
  },
];

async function attemptsCompare(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const file = join(context.workspace, FILE);
  writeFileSync(file, ORIGINAL);
  context.fake.respondWith('openai', attemptsModel);
  try {
    await newSession(chat, timeoutMs);
    await pickOption(chat.locator('#attempts'), '2 attempts', timeoutMs);
    await sendPrompt(chat, PROMPT, timeoutMs);
    const failed = chat.locator('.attempts-card[data-phase="failed"]').last();
    await failed.waitFor({ state: 'visible', timeout: timeoutMs });
    const why = await failed.innerText();
    if (!/not in a git repository[\s\S]*Run git init and commit once[\s\S]*set Attempts to 1/.test(why)) throw new HarnessError(`the card outside a repository reads ${JSON.stringify(why)}`);

    repository(context.workspace);
    await pickOption(chat.locator('#attempts'), '3 attempts', timeoutMs);
    await sendPrompt(chat, PROMPT, timeoutMs);
    const card = chat.locator('.attempts-card[data-phase="ranked"]').last();
    await card.waitFor({ state: 'visible', timeout: timeoutMs });
    await checkRanking(chat, timeoutMs);
    if (readFileSync(file, 'utf8') !== ORIGINAL) throw new HarnessError('the attempts changed the folder before anyone applied one');
    await card.locator('details.attempt-diff[data-n="3"] > summary').click({ timeout: timeoutMs });
    await card.locator('details.attempt-diff[data-n="3"] .diff-add', { hasText: 'Greets the caller' }).waitFor({ state: 'visible', timeout: timeoutMs });
    await card.scrollIntoViewIfNeeded();
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-attempts.png') });

    // Apply from the keyboard: focus reaches the button, Enter applies.
    const apply = card.locator('.attempt-apply[data-n="3"]');
    await apply.focus({ timeout: timeoutMs });
    await apply.press('Enter', { timeout: timeoutMs });
    await waitUntil(() => readFileSync(file, 'utf8') === WRITES[3], timeoutMs / 3, 'Apply on attempt 3 did not bring its change into the file');
    await chat.locator('.attempts-card[data-phase="applied"]').last().waitFor({ state: 'visible', timeout: timeoutMs });
    const bar = chat.locator('.changes-bar').last();
    await bar.waitFor({ state: 'visible', timeout: timeoutMs });
    if (!(await bar.innerText()).includes(FILE)) throw new HarnessError(`the changes bar after Apply reads ${JSON.stringify(await bar.innerText())}`);
    await bar.locator('.changes-undo').click({ timeout: timeoutMs });
    await waitUntil(() => readFileSync(file, 'utf8') === ORIGINAL, timeoutMs / 3, 'Undo on the changes bar did not put the file back after the applied attempt');
    const left = git(context.workspace, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '));
    if (left.length !== 1) throw new HarnessError(`worktrees left after Apply: ${left.join(', ')}`);
  } finally {
    // The checks after this one run as usual: one attempt, no scripted responder, no repository.
    await pickOption(chat.locator('#attempts'), '1 attempt', timeoutMs).catch(() => undefined);
    context.fake.respondWith('openai', () => undefined);
    rmSync(join(context.workspace, '.git'), { recursive: true, force: true });
    if (existsSync(file)) rmSync(file);
  }
}

/** Best first as the judge said, its reasons as text (the markup shown, not made), an Apply per attempt. */
async function checkRanking(chat: Frame, timeoutMs: number): Promise<void> {
  const card = chat.locator('.attempts-card[data-phase="ranked"]').last();
  const order = await card.locator('.attempt-row').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset['n']));
  if (order.join(',') !== '3,1,2') throw new HarnessError(`the attempts are ranked ${order.join(',')}, not 3,1,2 as the judge said`);
  const reason = card.locator('.attempt-row[data-n="1"] .attempt-why');
  if ((await reason.innerText({ timeout: timeoutMs })) !== REASONS[1]) throw new HarnessError(`the judge's reason reads ${JSON.stringify(await reason.innerText())}`);
  if ((await reason.locator('b').count()) > 0) throw new HarnessError("the judge's markup became HTML");
  if ((await card.locator('.attempt-apply').count()) !== 3) throw new HarnessError('not every attempt with changes offers Apply');
  await card.locator('.attempts-dismiss').waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * The fake model behind the attempts: an attempt (its system prompt names
 * its worktree, .git/crow-attempts/RUN/N) writes greet.js its own way, then
 * says so; the judge ranks 3, 1, 2.
 */
export function attemptsModel(body: Record<string, unknown>): ScriptedReply | undefined {
  const messages = body['messages'] as { role: string; content: unknown }[];
  const system = JSON.stringify(messages.filter((message) => message.role === 'system'));
  if (system.includes('the judge of several attempts')) {
    const ranking = Object.entries(REASONS).map(([n, reason]) => ({ attempt: Number(n), reason }));
    return { blocks: [{ type: 'text', text: `\`\`\`json\n${JSON.stringify({ ranking: [ranking[2], ranking[0], ranking[1]] })}\n\`\`\`` }] };
  }
  const n = Number(/crow-attempts\/[^/"\\]+\/(\d)/.exec(system)?.[1]);
  if (!WRITES[n]) return undefined;
  if (messages.at(-1)?.role !== 'tool') return { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: FILE, content: WRITES[n] } }] };
  return { blocks: [{ type: 'text', text: `Attempt ${n}: greet.js done.` }] };
}

export function repository(root: string): void {
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'start');
}

export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  if (run.status !== 0) throw new HarnessError(`git ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}
