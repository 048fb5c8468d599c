/**
 * The VS Code workbench in headless Chromium. The URL's `payload` loads this
 * repository as the extension under development and, optionally, a test
 * index for the extension host to run (code-server honours it only with the
 * smoke-test driver enabled); without either, the workbench runs only the
 * extensions installed in code-server's extensions dir, as a user's does. The workbench reports through two window
 * functions the page exposes: codeAutomationLog(level, message) and, when the
 * test index settles, codeAutomationExit(code, logs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { format } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ARTIFACTS_DIR, CHROMIUM } from './paths';
import { log } from './progress';

/** Without the networking flags Chromium keeps calling home, which this offline machine refuses. */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface WorkbenchTarget {
  /** code-server's http://127.0.0.1:PORT */
  serverUrl: string;
  folder: string;
  /** Loads this folder as the extension under development; without it only installed extensions run. */
  extensionDevelopmentPath?: string;
  /** A module exporting `run(): Promise<void>`; without it no tests run and the workbench stays open. */
  extensionTestsPath?: string;
}

/** A log file the workbench hands over on exit (the extension host's log among them). */
export interface WorkbenchLog {
  relativePath: string;
  contents: string;
}

export interface WorkbenchEvents {
  /** `message` is the console call's arguments formatted as console.log would. */
  log?(level: string, message: string): void;
  exit?(code: number, logs: WorkbenchLog[]): void;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

export function workbenchUrl(target: WorkbenchTarget): string {
  const authority = new URL(target.serverUrl).host;
  const remote = (path: string): string => `vscode-remote://${authority}${path}`;
  const payload: [string, string][] = [];
  if (target.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(target.extensionDevelopmentPath)]);
  if (target.extensionTestsPath) payload.push(['extensionTestsPath', remote(target.extensionTestsPath)]);
  const query = new URLSearchParams({ folder: target.folder });
  if (payload.length > 0) query.set('payload', JSON.stringify(payload));
  return `${target.serverUrl}/?${query.toString()}`;
}

/** Opens the workbench in a fresh browser context (no state shared between workbenches). */
export async function openWorkbench(browser: Browser, target: WorkbenchTarget, events: WorkbenchEvents = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.exposeFunction('codeAutomationLog', (level: unknown, args: unknown) => {
    events.log?.(String(level), Array.isArray(args) ? format(...args) : String(args));
  });
  await page.exposeFunction('codeAutomationExit', (code: unknown, logs: unknown) => {
    events.exit?.(Number(code), Array.isArray(logs) ? (logs as WorkbenchLog[]) : []);
  });
  await page.goto(workbenchUrl(target));
  return page;
}

/** Saves a screenshot into the artifacts folder; returns its path, or undefined when the page could not be captured. */
export async function screenshot(page: Page, name: string): Promise<string | undefined> {
  const file = join(ARTIFACTS_DIR, `${name}.png`);
  try {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: file, timeout: 10_000 });
    return file;
  } catch (error) {
    log(`could not save screenshot ${file}: ${(error as Error).message}`);
    return undefined;
  }
}

/** Writes the logs the workbench handed over into `folder` under the artifacts folder. */
export function saveWorkbenchLogs(logs: WorkbenchLog[], folder: string): string {
  const root = join(ARTIFACTS_DIR, folder);
  for (const entry of logs) {
    // The paths come from the page: keep them inside `root`.
    const file = join(root, normalize(`/${entry.relativePath}`));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, entry.contents);
  }
  return root;
}
