/**
 * What the vsix phase checks in a workbench that runs only the installed
 * .vsix: the extension loads, its chat view opens, and one prompt uses the
 * two tools that depend most on how the package was built: grep (ripgrep,
 * which the .vsix does not ship and must find in VS Code itself) and
 * edit_file (asked for, approved, written to disk). The model's replies are
 * scripted on the fake LLM server; everything else is the packed code.
 * Last, the walkthrough opens with its pages, which only the package holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { HarnessError } from './harness-error';
import { chatFrame, crowLoaded, openChat, sendPrompt, type UiCheck, type UiContext } from './ui-checks';
import { WALKTHROUGH_CHECKS } from './ui-checks-walkthrough';

const GREETING = { path: 'greeting.txt', before: 'Hello, world!', after: 'Hello, packaged Crow!' };
/** Names no file, so the model (and this check) can only learn where the greeting is from grep's output. */
const PROMPT = 'Find the greeting in this workspace and make it greet the packaged Crow.';
/** A regular expression, so a literal-text fallback could not pass for ripgrep. */
const PATTERN = 'Hello, \\w+!';
const ANSWER = 'Found the greeting with grep and made it greet the packaged Crow.';

export const VSIX_CHECKS: UiCheck[] = [
  {
    slug: 'installed-extension-loaded',
    name: 'the workbench loads the installed .vsix (Crow in the activity bar, no extension under development)',
    // Also waits for the workbench and the extension host to come up.
    timeoutMs: 60_000,
    run: crowLoaded,
  },
  {
    slug: 'chat-view',
    name: "the packed chat view opens (its webview bundle and the engine's first load)",
    timeoutMs: 30_000,
    run: openChat,
  },
  {
    slug: 'grep-card',
    name: "a scripted grep call runs VS Code's ripgrep and its card shows the match",
    timeoutMs: 45_000,
    run: async (context, timeoutMs) => {
      const chat = chatFrame(context);
      context.fake.enqueue(
        'openai',
        { blocks: [{ type: 'text', text: 'Looking for the greeting.' }, { type: 'tool_call', name: 'grep', arguments: { pattern: PATTERN } }] },
        { blocks: [{ type: 'tool_call', name: 'edit_file', arguments: { path: GREETING.path, old_string: GREETING.before, new_string: GREETING.after } }] },
        { blocks: [{ type: 'text', text: ANSWER }] },
      );
      await sendPrompt(chat, PROMPT, timeoutMs);
      const output = await finishedGrepOutput(chat, timeoutMs);
      if (!output.includes(GREETING.path) || !output.includes(GREETING.before)) {
        throw new HarnessError(`the grep card completed without the match ${GREETING.path}: ${GREETING.before}; its output: ${output}`);
      }
    },
  },
  {
    slug: 'edit-approved',
    name: 'the scripted edit_file call, once approved, changes the file on disk and the answer shows',
    timeoutMs: 45_000,
    run: async (context, timeoutMs) => {
      const chat = chatFrame(context);
      // crow.permissions.write is "ask" in the phase's workspace: the edit waits for this answer.
      await chat.locator('.approval button[data-decision="allow_once"]').click({ timeout: timeoutMs });
      await chat.locator('.tool-card[data-call-id] .diff', { hasText: GREETING.after }).waitFor({ state: 'visible', timeout: timeoutMs });
      await chat.locator('.msg-assistant', { hasText: ANSWER }).waitFor({ state: 'visible', timeout: timeoutMs });
      const onDisk = readFileSync(join(context.workspace, GREETING.path), 'utf8');
      if (!onDisk.includes(GREETING.after)) {
        throw new HarnessError(`the answer showed, but ${GREETING.path} on disk still reads ${JSON.stringify(onDisk)}`);
      }
      if (!grepResultReachedModel(context)) {
        throw new HarnessError("the edit went through, but no request to the fake LLM server carried grep's result back to the model");
      }
    },
  },
  // The walkthrough's pages come from the package (media/walkthrough/ in .vscodeignore): the check reads one.
  ...WALKTHROUGH_CHECKS,
];

/**
 * Waits for the grep card to settle and returns its output; a failed card
 * (rg not found, rg erroring) fails with the tool's own message. The output
 * is opened so the check's screenshot shows it.
 */
async function finishedGrepOutput(chat: Frame, timeoutMs: number): Promise<string> {
  const grepName = chat.locator('.tool-name', { hasText: /^grep$/ });
  const card = chat.locator('.tool-card:not([data-status="running"]):not([data-status="waiting"])', { has: grepName });
  await card.waitFor({ state: 'visible', timeout: timeoutMs });
  const status = await card.getAttribute('data-status', { timeout: timeoutMs });
  // A card with no output has no output section: look, don't wait for one.
  const pre = card.locator('.tool-output pre');
  const output = (await pre.count()) > 0 ? ((await pre.textContent({ timeout: timeoutMs })) ?? '') : '';
  if (status !== 'completed') throw new HarnessError(`the grep card ended "${status}": ${output.trim() || '(no output)'}`);
  const details = card.locator('details.tool-output');
  if (output && (await details.getAttribute('open', { timeout: timeoutMs })) === null) {
    await details.locator('summary').click({ timeout: timeoutMs });
  }
  return output;
}

/** The tool message sent back after grep carries rg's matching line. */
function grepResultReachedModel(context: UiContext): boolean {
  return context.fake.requestsFor('openai').some((request) => {
    const messages = (request.body as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
    return messages.some((message) => message.role === 'tool' && JSON.stringify(message.content).includes(GREETING.before));
  });
}
