/**
 * axe-core in the real workbench (issue 39, item 11): its source injected
 * into the chat view's frame and the trace panel's, run in the Light Modern,
 * Light High Contrast, Dark High Contrast and Dark Modern themes; any critical or serious violation fails the
 * check, each printed with its rule, the elements it found and axe's help.
 * Runs late (just before the VS Code models check, which must be last), so
 * the chat holds what the checks before it left there.
 * Screenshots: ui-a11y-<theme>-chat.png, ui-a11y-<theme>-trace.png.
 */
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { describeFindings, seriousViolations } from '../../test/support/axe';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { log } from './progress';
import { chatFrame, pickTheme, type UiCheck, type UiContext } from './ui-checks';
import { runCommand, webviewFrame } from './workbench-ui';

/** Dark Modern (the default) last, so the checks after these see the window as it was. */
const THEMES = [
  { name: 'Light Modern', slug: 'light' },
  { name: 'Light High Contrast', slug: 'hc-light' },
  { name: 'Dark High Contrast', slug: 'hc-dark' },
  { name: 'Dark Modern', slug: 'dark' },
];

export const A11Y_CHECKS: UiCheck[] = [
  {
    slug: 'a11y-axe',
    name: 'axe-core finds no critical or serious violation in the chat view and the trace panel, in the light, dark and both high-contrast themes (screenshots ui-a11y-*.png)',
    timeoutMs: 240_000,
    run: axeInWebviews,
  },
];

async function axeInWebviews(context: UiContext, timeoutMs: number): Promise<void> {
  const { page } = context;
  const failures: string[] = [];
  try {
    for (const theme of THEMES) {
      await pickTheme(page, theme.name, timeoutMs);
      // The webviews restyle from the theme's variables a moment later.
      await page.waitForTimeout(800);
      const chat = chatFrame(context);
      await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-a11y-${theme.slug}-chat.png`) });
      failures.push(...(await findings(chat, `the chat view in ${theme.name}`)));
      await runCommand(page, 'Crow: Show Trace of This Chat', timeoutMs);
      const trace = await webviewFrame(page, '#tree[role="tree"] .row[role="treeitem"]', timeoutMs);
      await trace.locator('.row[aria-selected="true"]').waitFor({ state: 'visible', timeout: timeoutMs });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(ARTIFACTS_DIR, `ui-a11y-${theme.slug}-trace.png`) });
      failures.push(...(await findings(trace, `the trace panel in ${theme.name}`)));
      await runCommand(page, 'View: Close All Editors', timeoutMs);
    }
  } finally {
    // Back on the default theme whatever happened, for the checks after this one.
    await pickTheme(page, 'Dark Modern', timeoutMs).catch(() => undefined);
  }
  if (failures.length === 0) return;
  // The runner prints only a failure's first lines: every finding goes to the log first.
  log(`axe-core's findings:\n${failures.join('\n')}`);
  throw new HarnessError(`axe-core found critical or serious violations in ${failures.map((failure) => failure.split(':\n')[0]).join('; ')} (listed above)`);
}

async function findings(frame: Frame, where: string): Promise<string[]> {
  const found = await seriousViolations(frame);
  return found.length === 0 ? [] : [`${where}:\n${describeFindings(found)}`];
}
