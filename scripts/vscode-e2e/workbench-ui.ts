/**
 * Driving the real workbench the way a user does: the activity bar, the
 * command palette (F1), notifications, and webviews, whose content lives in
 * nested iframes (the view's frame holds an inner `active-frame`) reachable
 * through `page.frames()`. Selectors are VS Code 1.139's (code-server 4.139).
 */
import type { Frame, Locator, Page } from 'playwright-core';
import { setTimeout as sleep } from 'node:timers/promises';
import { HarnessError } from './harness-error';

const POLL_MS = 250;

/** The activity bar entry of a view container, by its title. */
export function activityBarItem(page: Page, title: string): Locator {
  return page.locator(`.activitybar li.action-item:has(> a.action-label[aria-label="${title}"])`);
}

/**
 * Shows a view container as a click on its activity bar entry does; a click
 * on the one already shown would hide it. A reloaded window restores its
 * side bar a moment after the activity bar appears, so a click can close
 * what was just restored: the container counts as shown once it stays
 * selected over two looks, and is clicked again until it does.
 */
export async function openViewContainer(page: Page, title: string, timeoutMs: number): Promise<void> {
  const item = activityBarItem(page, title);
  const deadline = Date.now() + timeoutMs;
  const selected = async () => (await item.getAttribute('aria-selected', { timeout: Math.max(1, deadline - Date.now()) })) === 'true';
  for (;;) {
    if ((await selected()) && (await sleep(SETTLE_MS), await selected())) return;
    if (Date.now() > deadline) throw new HarnessError(`the "${title}" view container did not stay open within ${timeoutMs} ms`);
    if (!(await selected())) await item.click({ timeout: Math.max(1, deadline - Date.now()) });
    await sleep(SETTLE_MS);
  }
}

/** How long a shown view container must stay shown to count as open. */
const SETTLE_MS = 400;

/** Runs a command by its palette title ("Category: Title"), as F1, typing and Enter would. */
export async function runCommand(page: Page, title: string, timeoutMs: number): Promise<void> {
  // F1 opens the palette with ">" typed; keep it, so the list shows commands.
  // Enter runs the focused row (a click on a row may land while the list still re-renders); wait until it is ours.
  const input = await openPalette(page, `>${title}`, `.quick-input-list .monaco-list-row.focused[aria-label^="${title}"]`, timeoutMs);
  // Pressed once, whatever follows: the command runs at most once.
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: timeoutMs });
}

/** How long one try at opening the palette may take before it is closed and tried again. */
const PALETTE_TRY_MS = 5_000;

/**
 * Opens the palette (F1), types `text` and waits until `ready` (a selector in
 * the page) shows; returns the palette's input. With the focus in a webview
 * (a check that clicked the chat or opened the trace), a palette opened by F1
 * sometimes never shows, or closes again under the typing (the vsix phase and
 * the UI phase, about one run in three; CI's stop 52 lost a whole run to it).
 * Each try that fails is closed with Escape and the focus given back to the
 * workbench's title bar, away from any webview, until `timeoutMs` is spent.
 * Nothing is chosen here, so a retry never runs anything twice.
 */
export async function openPalette(page: Page, text: string, ready: string, timeoutMs: number): Promise<Locator> {
  const input = page.locator('.quick-input-widget input');
  const deadline = Date.now() + timeoutMs;
  for (let tries = 1; ; tries++) {
    const tryMs = Math.max(1, Math.min(PALETTE_TRY_MS, deadline - Date.now()));
    try {
      if (!(await input.isVisible())) await page.keyboard.press('F1');
      await input.fill(text, { timeout: tryMs });
      await page.locator(ready).first().waitFor({ state: 'visible', timeout: tryMs });
      return input;
    } catch (error) {
      if (Date.now() >= deadline) {
        throw new HarnessError(`the palette did not show ${JSON.stringify(text)} within ${timeoutMs / 1000} s (${tries} tries): ${(error as Error).message.split('\n')[0]}`);
      }
      await page.keyboard.press('Escape');
      await page.locator('.part.titlebar').click({ position: { x: 5, y: 5 }, timeout: 2_000 }).catch(() => undefined);
    }
  }
}

/**
 * Waits for a notification containing `text`. Notifications may land in the
 * notification center without a toast (as they do with the smoke-test driver
 * on), so the center is opened when no toast shows it.
 */
export async function waitForNotification(page: Page, text: string, timeoutMs: number): Promise<void> {
  const toast = page.locator('.notification-toast', { hasText: text });
  const inCenter = page.locator('.notifications-center .notification-list-item', { hasText: text });
  if (await toast.isVisible()) return;
  await runCommand(page, 'Notifications: Show Notifications', timeoutMs);
  await inCenter.first().waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * The frame of a webview whose document matches `selector` (e.g. the chat
 * view's `textarea#prompt`). Webview frames come and go as views open, so
 * this polls `page.frames()` until one matches.
 */
export async function webviewFrame(page: Page, selector: string, timeoutMs: number): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame() || frame.isDetached()) continue;
      const found = await frame.locator(selector).count().catch(() => 0);
      if (found > 0) return frame;
    }
    await sleep(POLL_MS);
  }
  const urls = page.frames().map((frame) => frame.url()).filter((url) => url && url !== 'about:blank');
  throw new HarnessError(
    `no webview shows ${selector} after ${timeoutMs / 1000} s. Frames open: ${urls.length ? urls.join(', ') : 'none'}`,
  );
}
