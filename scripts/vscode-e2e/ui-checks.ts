/**
 * What the UI phase checks in the real workbench, in order; each check
 * builds on the ones before it. The model's replies are scripted on the fake
 * LLM server the runner started; everything else (the extension, the engine,
 * the tools, the webview) is real. The chat webview's DOM hooks are the
 * stable ones documented in webview/chat/main.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { FakeLlmServer, ScriptedReply } from '../../testkit/fake-llm-server';
import { pickOption } from '../../test/support/vscode-elements';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { activityBarItem, openPalette, openViewContainer, runCommand, waitForNotification, webviewFrame } from './workbench-ui';

export interface UiContext {
  page: Page;
  fake: FakeLlmServer;
  /** The temp copy of the fixture workspace the workbench has open. */
  workspace: string;
  /** Where code-server writes its logs, the extension host's (and Crow's output channel) among them. */
  logsDir: string;
  /** The extension's version, as package.json says. */
  version: string;
  /** The chat webview's frame, once the chat view is open. */
  chat?: Frame;
}

export interface UiCheck {
  /** Names the screenshot: ui-<n>-<slug>.png */
  slug: string;
  /** What a user relies on, as the report prints it. */
  name: string;
  timeoutMs: number;
  run(context: UiContext, timeoutMs: number): Promise<void>;
}

const GREETING = { path: 'greeting.txt', before: 'Hello, world!', after: 'Hello, Crow!' };
const PROMPT = 'Say hello to the end-to-end test.';
const ANSWER = 'Hello from the scripted model: the Crow chat view works.';
const EDIT_PROMPT = `Make ${GREETING.path} greet Crow.`;
const EDIT_DONE = `${GREETING.path} now greets Crow.`;
/** The line Crow's log gets once its language models are listed (MODELS_READY in src/adapters/vscode/extension.ts). */
const MODELS_READY = 'language models ready';
const NATIVE_ANSWER = 'Hello from Crow in VS Code\'s own chat.';

/** Crow's icon in the activity bar: the workbench, the extension host and the extension are up (the first check waits for all). */
export const crowLoaded: UiCheck['run'] = ({ page }, timeoutMs) => activityBarItem(page, 'Crow').waitFor({ state: 'visible', timeout: timeoutMs });

/** Opens the Crow container, finds the chat webview's frame by its prompt box and checks its controls are drawn. */
export const openChat: UiCheck['run'] = async (context, timeoutMs) => {
  await context.page.keyboard.press('Escape');
  await openViewContainer(context.page, 'Crow', timeoutMs);
  context.chat = await webviewFrame(context.page, 'textarea#prompt', timeoutMs);
  await assertControlsDrawn(context.chat, timeoutMs);
  await firstSessionOpened(context.chat, timeoutMs);
};

/**
 * The view has its first session on screen (the host's answer to its
 * `ready`): until then a New Session clicked would be counted by that
 * answer, and a prompt typed after it would land in the session the New
 * Session then replaces.
 */
async function firstSessionOpened(chat: Frame, timeoutMs: number): Promise<void> {
  await chat.waitForFunction(() => Number(document.body.dataset['opened'] ?? '0') >= 1, undefined, { timeout: timeoutMs });
}

/**
 * The view's controls are @vscode-elements components, styled, with their
 * codicons: Send is a vscode-button whose icon links the page's codicon.css
 * (served from the extension, so a .vsix without it shows no icons) and the
 * codicon font loaded.
 */
async function assertControlsDrawn(chat: Frame, timeoutMs: number): Promise<void> {
  await chat.locator('#send vscode-icon').waitFor({ state: 'attached', timeout: timeoutMs });
  const drawn = await chat.evaluate(async () => {
    const send = document.querySelector('#send');
    const link = send?.shadowRoot?.querySelector('vscode-icon')?.shadowRoot?.querySelector<HTMLLinkElement>('link[rel="stylesheet"]');
    await document.fonts.load('16px codicon');
    // (fonts.check is true for a family no @font-face declares: look for the face itself.)
    let font = false;
    document.fonts.forEach((face) => (font ||= face.family.replace(/["']/g, '') === 'codicon' && face.status === 'loaded'));
    return { tag: send?.tagName ?? '', styled: (send?.shadowRoot?.adoptedStyleSheets.length ?? 0) > 0, iconSheet: link?.href ?? '', font };
  });
  if (drawn.tag !== 'VSCODE-BUTTON' || !drawn.styled) throw new HarnessError(`Send is not a styled vscode-button: ${JSON.stringify(drawn)}`);
  if (!/\/codicon\.css$/.test(drawn.iconSheet)) throw new HarnessError(`the icon inside Send found no #vscode-codicon-stylesheet: ${JSON.stringify(drawn)}`);
  if (!drawn.font) throw new HarnessError('the codicon font did not load in the chat view');
}

export const UI_CHECKS: UiCheck[] = [
  {
    slug: 'extension-loaded',
    name: 'the workbench loads the extension under development (Crow in the activity bar)',
    // The first check also waits for the workbench itself and the extension host to come up.
    timeoutMs: 60_000,
    run: crowLoaded,
  },
  {
    slug: 'native-chat',
    name: 'the first @crow request in VS Code\'s own chat is answered (no "Language model unavailable")',
    timeoutMs: 45_000,
    run: nativeChatFirstRequest,
  },
  {
    slug: 'command',
    name: 'a Crow command runs from the command palette (F1, Crow: Show Version)',
    timeoutMs: 30_000,
    run: async ({ page, version }, timeoutMs) => {
      await runCommand(page, 'Crow: Show Version', timeoutMs);
      await waitForNotification(page, `Crow Agent ${version}`, timeoutMs);
    },
  },
  {
    slug: 'chat-view',
    name: 'the Crow chat view opens from the activity bar',
    timeoutMs: 30_000,
    run: openChat,
  },
  {
    slug: 'prompt-answered',
    name: 'a prompt typed into the chat view gets the scripted answer',
    timeoutMs: 30_000,
    run: async (context, timeoutMs) => {
      const chat = chatFrame(context);
      context.fake.enqueue('openai', { blocks: [{ type: 'text', text: ANSWER }] });
      await sendPrompt(chat, PROMPT, timeoutMs);
      await chat.locator('.msg-assistant', { hasText: ANSWER }).waitFor({ state: 'visible', timeout: timeoutMs });
      const asked = context.fake.requestsFor('openai').some((request) => JSON.stringify(request.body).includes(PROMPT));
      if (!asked) throw new HarnessError('the answer showed, but no request to the fake LLM server carried the prompt');
    },
  },
  {
    slug: 'diff-card',
    name: 'a scripted edit_file call asks for approval and, once allowed, shows its diff card',
    timeoutMs: 45_000,
    run: async (context, timeoutMs) => {
      const chat = chatFrame(context);
      context.fake.enqueue(
        'openai',
        {
          blocks: [
            { type: 'text', text: `Updating ${GREETING.path}.` },
            {
              type: 'tool_call',
              name: 'edit_file',
              arguments: { path: GREETING.path, old_string: GREETING.before, new_string: GREETING.after },
            },
          ],
        },
        { blocks: [{ type: 'text', text: EDIT_DONE }] },
      );
      await sendPrompt(chat, EDIT_PROMPT, timeoutMs);
      // crow.permissions.write is "ask" in the UI workspace: the edit waits for this answer, which shows the change first.
      const approval = chat.locator('.approval:not([data-decision])');
      await approval.locator('.diff', { hasText: GREETING.after }).waitFor({ state: 'visible', timeout: timeoutMs });
      await assertInSight(context.page, chat, '.approval:not([data-decision]) button[data-decision="allow_once"]');
      await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-approval-pending.png') });
      await approval.locator('button[data-decision="allow_once"]').click({ timeout: timeoutMs });
      const diff = chat.locator('.tool-card[data-call-id] .diff', { hasText: GREETING.after });
      await diff.waitFor({ state: 'visible', timeout: timeoutMs });
      await chat.locator('.msg-assistant', { hasText: EDIT_DONE }).waitFor({ state: 'visible', timeout: timeoutMs });
      // The check's screenshot should show the diff, not the end of the transcript.
      await diff.scrollIntoViewIfNeeded({ timeout: timeoutMs });
      const onDisk = readFileSync(join(context.workspace, GREETING.path), 'utf8');
      if (!onDisk.includes(GREETING.after)) {
        throw new HarnessError(`the diff card showed, but ${GREETING.path} on disk still reads ${JSON.stringify(onDisk)}`);
      }
    },
  },
  {
    slug: 'themes',
    name: 'the chat view reads in light, high-contrast and dark themes (screenshots ui-theme-*.png)',
    timeoutMs: 60_000,
    run: themeScreenshots,
  },
];

/**
 * `@crow` in VS Code's chat, before anything of Crow's was opened: the
 * participant answers the very first request (the models Crow contributes
 * are known by then, since Crow activates on start-up).
 */
async function nativeChatFirstRequest({ page, fake, logsDir }: UiContext, timeoutMs: number): Promise<void> {
  // As a person does, ask once VS Code has started (Crow's models are listed a moment after start-up).
  await waitForLogLine(logsDir, 'Crow.log', MODELS_READY, timeoutMs);
  fake.enqueue('openai', { blocks: [{ type: 'text', text: NATIVE_ANSWER }] });
  await runCommand(page, 'Chat: Open Chat', timeoutMs);
  const input = page.locator('.interactive-input-editor .monaco-editor').first();
  await input.click({ timeout: timeoutMs });
  await page.keyboard.type('@crow Say hello from the native chat.', { delay: 10 });
  await page.keyboard.press('Enter');
  const answer = page.locator('.interactive-response', { hasText: NATIVE_ANSWER });
  const unavailable = page.locator('.interactive-response', { hasText: 'Language model unavailable' });
  await answer.or(unavailable).first().waitFor({ state: 'visible', timeout: timeoutMs });
  if (await unavailable.count()) throw new HarnessError('the first @crow request failed with "Language model unavailable"');
  await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-native-chat.png') });
  // The checks after this one expect the window as it was: the chat goes away again.
  await runCommand(page, 'View: Hide Secondary Side Bar', timeoutMs);
}

/** Waits until a log file called `name` somewhere under `dir` holds `text`. */
async function waitForLogLine(dir: string, name: string, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => basename(file) === name) : [];
    if (files.some((file) => readFileSync(join(dir, file), 'utf8').includes(text))) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new HarnessError(`no ${name} under ${dir} says "${text}" after ${timeoutMs / 1000} s`);
}

/** Fails unless the element is inside both the webview's visible area and the browser window: seen without scrolling. */
export async function assertInSight(page: Page, frame: Frame, selector: string): Promise<void> {
  const inView = await frame.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= element.ownerDocument.documentElement.clientHeight && box.height > 0;
  });
  const box = await frame.locator(selector).boundingBox();
  const viewport = page.viewportSize();
  const inWindow = box !== null && viewport !== null && box.y >= 0 && box.y + box.height <= viewport.height;
  if (!inView || !inWindow) throw new HarnessError(`${selector} is not in sight at ${viewport?.width}×${viewport?.height} without scrolling (box ${JSON.stringify(box)})`);
}

/** Picks a colour theme through the palette, as a person would: Preferences: Color Theme, then the theme's name. */
export async function pickTheme(page: Page, theme: string, timeoutMs: number): Promise<void> {
  const command = '.quick-input-list .monaco-list-row[aria-label^="Preferences: Color Theme"]';
  const input = await openPalette(page, '>Preferences: Color Theme', command, timeoutMs);
  // "Browse Color Themes in Marketplace" may rank first, and arrow keys sent while the list still filters are lost: click the command itself.
  await page.locator(command).first().click({ timeout: timeoutMs });
  // The theme list replaces the command list in the same widget.
  await page.locator('.quick-input-list .monaco-list-row[aria-label*="Dark Modern"]').first().waitFor({ state: 'visible', timeout: timeoutMs });
  // The widget may clear its input as it swaps lists, after a fill: fill again until the theme is the focused row.
  const wanted = page.locator(`.quick-input-list .monaco-list-row.focused[aria-label^="${theme}"]`);
  const deadline = Date.now() + timeoutMs;
  while (!(await wanted.isVisible())) {
    if (Date.now() > deadline) throw new HarnessError(`the theme picker never focused ${theme}`);
    await input.fill(theme);
    await page.waitForTimeout(300);
  }
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: timeoutMs });
}

/** The themes a screenshot set covers; Dark Modern (the default) last, so later checks see what they always saw. */
const THEMES = [
  { name: 'Light Modern', slug: 'light' },
  { name: 'Dark High Contrast', slug: 'high-contrast' },
  { name: 'Dark Modern', slug: 'dark' },
];

async function themeScreenshots(context: UiContext, timeoutMs: number): Promise<void> {
  chatFrame(context);
  for (const theme of THEMES) {
    await pickTheme(context.page, theme.name, timeoutMs);
    // The webview restyles from the theme's variables a moment later.
    await context.page.waitForTimeout(500);
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, `ui-theme-${theme.slug}.png`) });
  }
}

export function chatFrame(context: UiContext): Frame {
  if (!context.chat || context.chat.isDetached()) throw new HarnessError('the chat view is not open (an earlier check failed?)');
  return context.chat;
}

export async function sendPrompt(chat: Frame, text: string, timeoutMs: number): Promise<void> {
  await chat.locator('textarea#prompt').fill(text, { timeout: timeoutMs });
  await chat.locator('#send').click({ timeout: timeoutMs });
}

/** A scripted reply that calls one tool. */
export function toolCall(name: string, args: unknown): ScriptedReply {
  return { blocks: [{ type: 'tool_call', name, arguments: args }] };
}

/** A scripted reply that says `text`. */
export function say(text: string): ScriptedReply {
  return { blocks: [{ type: 'text', text }] };
}

/** The size of a file in the check's workspace; 0 while it does not exist. */
export function workspaceFileSize(context: UiContext, path: string): number {
  try {
    return statSync(join(context.workspace, path)).size;
  } catch {
    return 0;
  }
}

/** Waits until `condition` holds, checked every 100 ms; fails with `failure` after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs: number, failure: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new HarnessError(failure);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A new session as a person starts one: the + in the chat view's title bar
 * (VS Code shows a view's title actions while the pointer is over its header).
 */
export async function newSession(chat: Frame, timeoutMs: number): Promise<void> {
  const page = chat.page();
  const header = page.locator('.pane-header', { has: page.locator('h3.title', { hasText: /^Chat$/ }) });
  await firstSessionOpened(chat, timeoutMs);
  const opened = Number((await chat.locator('body').getAttribute('data-opened', { timeout: timeoutMs })) ?? '0');
  await header.hover({ timeout: timeoutMs });
  await header.locator('.actions .action-label[aria-label^="New Session"]').click({ timeout: timeoutMs });
  // The title bar's command reaches the view on its own path: type only once the new session is on screen, as a person sees it.
  await chat.waitForFunction((before) => Number(document.body.dataset['opened'] ?? '0') > before, opened, { timeout: timeoutMs });
}

/** The chat view's own trace, from the list icon in its title bar. */
export async function showChatTrace(chat: Frame, timeoutMs: number): Promise<void> {
  const page = chat.page();
  const header = page.locator('.pane-header', { has: page.locator('h3.title', { hasText: /^Chat$/ }) });
  await header.hover({ timeout: timeoutMs });
  await header.locator('.actions .action-label[aria-label^="Show Trace of This Chat"]').click({ timeout: timeoutMs });
}

/** A new session on the pair agent; the host confirms the pick by offering a model picker for the reviewer (the coagent). */
export async function newPairSession(chat: Frame, timeoutMs: number): Promise<void> {
  await newSession(chat, timeoutMs);
  await pickOption(chat.locator('#agent'), 'pair', timeoutMs);
  await chat.locator('.model[data-role="coagent"]').waitFor({ state: 'visible', timeout: timeoutMs });
}
