/**
 * The UI phase's check of Crow's walkthrough (package.json
 * `contributes.walkthroughs`), opened as a person opens it: Help: Welcome,
 * then its entry (or F1, "Welcome: Open Walkthrough...", then its title).
 * VS Code draws it in its Welcome
 * editor: the four steps with their titles, the first one expanded with its
 * page (markdown, in a webview of its own) and its buttons; a button runs the
 * command it names. Screenshot: ui-walkthrough.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR, REPO_ROOT } from './paths';
import { openChat, type UiCheck } from './ui-checks';
import { openPalette, runCommand, webviewFrame } from './workbench-ui';

interface Walkthrough {
  title: string;
  steps: { id: string; title: string }[];
}

/** The walkthrough and its steps' titles in English, as package.nls.json gives them. */
function walkthrough(): Walkthrough {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { contributes: { walkthroughs: Walkthrough[] } };
  const nls = JSON.parse(readFileSync(join(REPO_ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const english = (text: string): string => nls[/^%(.+)%$/.exec(text)?.[1] ?? ''] ?? text;
  const [first] = manifest.contributes.walkthroughs;
  if (!first) throw new HarnessError('package.json contributes no walkthrough');
  return { title: english(first.title), steps: first.steps.map((step) => ({ id: step.id, title: english(step.title) })) };
}

export const WALKTHROUGH_CHECKS: UiCheck[] = [
  {
    slug: 'walkthrough',
    name: "Crow's walkthrough opens from Help: Welcome with its four steps, the first one's page and buttons, and its \"Open the set-up\" button opens the Crow chat view (screenshot ui-walkthrough.png)",
    timeoutMs: 60_000,
    run: async (context, timeoutMs) => {
      const { page } = context;
      const { title, steps } = walkthrough();
      await openWalkthrough(page, title, timeoutMs);
      const editor = page.locator('.gettingStartedContainer');
      // With the side bar closed (by the mouse: a second click on the container shown closes it) the editor is wide enough
      // for the step's page beside the steps, and the button's effect is plain to see.
      await hideSideBar(page, timeoutMs);
      for (const step of steps) {
        await editor.locator('.getting-started-step .step-title', { hasText: step.title }).first().waitFor({ state: 'visible', timeout: timeoutMs });
      }
      // The first step is expanded: its page (a markdown webview) and its buttons show.
      const media = editor.locator('.getting-started-media');
      await media.waitFor({ state: 'visible', timeout: timeoutMs });
      const pageFrame = await webviewFrame(page, 'h1:text("Connect a model")', timeoutMs);
      await pageFrame.locator('code', { hasText: 'crow.provider' }).waitFor({ state: 'visible', timeout: timeoutMs });
      const setUp = editor.locator('.getting-started-step.expanded .button-link, .getting-started-step.expanded .monaco-button', { hasText: 'Open the set-up' }).first();
      await setUp.waitFor({ state: 'visible', timeout: timeoutMs });
      await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-walkthrough.png') });
      // The button runs crow.chat.focus: the side bar comes back showing the Crow chat.
      if (await page.locator('.part.sidebar').isVisible()) throw new HarnessError('the side bar is still open before the button is clicked');
      await setUp.click({ timeout: timeoutMs });
      await page.waitForFunction(
        (selector) => document.querySelector(selector)?.getAttribute('aria-selected') === 'true',
        `.activitybar li.action-item:has(> a.action-label[aria-label="Crow"])`,
        { timeout: timeoutMs },
      );
      // The checks after this one expect the editor area as it was, and the chat view (drawn anew once the side bar came back).
      await runCommand(page, 'View: Close All Editors', timeoutMs);
      await openChat(context, timeoutMs);
    },
  },
];

/**
 * Help: Welcome, then the walkthrough's entry on the Welcome page, as a
 * person finds it; where the page does not list it (a crowded list), F1,
 * "Welcome: Open Walkthrough...", then its title.
 */
async function openWalkthrough(page: Page, title: string, timeoutMs: number): Promise<void> {
  await runCommand(page, 'Help: Welcome', timeoutMs);
  const entry = page.locator('.gettingStartedContainer button.getting-started-category', { hasText: title }).first();
  const opened = page.locator('.gettingStartedContainer .gettingStartedSlideDetails h2', { hasText: title }).first();
  // The click may report a timeout although it opened the walkthrough (the page redraws under it): what counts is what shows.
  await entry.click({ timeout: 5_000 }).catch(() => undefined);
  if (await opened.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) return;
  // Not listed: the palette's list of every walkthrough.
  // Not runCommand: the command's own list replaces the palette in the same widget, which never closes in between.
  const input = await openPalette(page, '>Welcome: Open Walkthrough...', '.quick-input-list .monaco-list-row.focused[aria-label^="Welcome: Open Walkthrough..."]', timeoutMs);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget input[placeholder="Select a walkthrough to open"]').waitFor({ state: 'visible', timeout: timeoutMs });
  await input.fill(title);
  await page.locator(`.quick-input-list .monaco-list-row.focused[aria-label*="${title}"]`).waitFor({ state: 'visible', timeout: timeoutMs });
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: timeoutMs });
  await opened.waitFor({ state: 'visible', timeout: timeoutMs });
}

/** Closes the primary side bar with the mouse: shows the Explorer, then clicks its entry again. */
async function hideSideBar(page: Page, timeoutMs: number): Promise<void> {
  const explorer = page.locator('.activitybar li.action-item:has(> a.action-label[aria-label^="Explorer"])');
  const sideBar = page.locator('.part.sidebar');
  const deadline = Date.now() + timeoutMs;
  while (await sideBar.isVisible()) {
    if (Date.now() > deadline) throw new HarnessError('the side bar stays open');
    await explorer.click({ timeout: timeoutMs });
    await page.waitForTimeout(400);
  }
}
