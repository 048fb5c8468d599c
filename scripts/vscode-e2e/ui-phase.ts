/**
 * Phase 2: Playwright drives the real workbench with only the extension
 * under development loaded (no test index), its workspace settings pointing
 * Crow at a fake LLM server this process starts and scripts. Each check
 * leaves a screenshot in test/artifacts/vscode/ (ui-<n>-<slug>.png, or
 * ...-failed.png), kept by CI as the visible record of the real UI.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { startCodeServer, type CodeServer } from './code-server';
import { ARTIFACTS_DIR, REPO_ROOT } from './paths';
import { log, seconds, step } from './progress';
import { createSandbox, installLmFixture, type Sandbox } from './sandbox';
import { UI_CHECKS, type UiCheck, type UiContext } from './ui-checks';
import { RUN_CHECKS } from './ui-checks-runs';
import { CHECKPOINT_CHECKS } from './ui-checks-checkpoints';
import { CHAT_CHECKS } from './ui-checks-chat';
import { APPLY_CHECKS } from './ui-checks-apply';
import { ATTEMPTS_CHECKS } from './ui-checks-attempts';
import { BACKGROUND_CHECKS } from './ui-checks-background';
import { TRACE_CHECKS } from './ui-checks-trace';
import { RELOAD_CHECKS } from './ui-checks-reload';
import { STATUS_CHECKS } from './ui-checks-status';
import { NARROW_CHECKS } from './ui-checks-narrow';
import { VSCODE_MODEL_CHECKS } from './ui-checks-vscode-models';
import { STORY_CHECKS } from './ui-checks-story';
import { A11Y_CHECKS } from './ui-checks-a11y';
import { SETUP_CHECKS } from './ui-checks-setup';
import { CLICK_CHECKS } from './ui-checks-clicks';
import { EDIT_CHANGE_CHECKS } from './ui-checks-edit-change';
import { CHANGES_CHECKS, HUNK_CHECKS } from './ui-checks-changes';
import { EDITOR_HUNK_CHECKS } from './ui-checks-editor-hunks';
import { SESSION_CHECKS } from './ui-checks-sessions';
import { MCP_CHECKS } from './ui-checks-mcp';
import { WALKTHROUGH_CHECKS } from './ui-checks-walkthrough';
import { openWorkbench, screenshot } from './workbench';

export interface UiSummary {
  passed: number;
  failed: number;
  skipped: number;
}

/** Crow on the fake server: the "build" agent (one primary, no reviewer), edits asked for, reads allowed. */
function workbenchSettings(fake: FakeLlmServer): Record<string, unknown> {
  return {
    'crow.provider': 'openai',
    'crow.model': 'fake-model',
    'crow.baseUrls': { openai: fake.openaiBaseUrl },
    'crow.defaultAgent': 'build',
    'crow.permissions.read': 'allow',
    'crow.permissions.write': 'ask',
  };
}

/** One workbench phase: its name (sandbox, screenshots, logs), its checks, and how Crow gets into VS Code. */
export interface WorkbenchPhase {
  name: 'ui' | 'vsix';
  checks: UiCheck[];
  /** What the code-server start step says it does. */
  startTitle: string;
  /** Run every check even after one failed; by default the rest are skipped, as each builds on the ones before. */
  keepGoing?: boolean;
  /** Also installs test/vscode-lm-fixture, whose models (vendor "crow-test") checks can run Crow's agents on. */
  lmFixture?: boolean;
  /** Makes Crow available in the sandbox (before code-server starts); the extension under development when absent. */
  install?(sandbox: Sandbox): Promise<{ version: string }>;
}

/**
 * Runs a phase's checks in a workbench of its own: a fake LLM server, a
 * sandbox whose workspace settings point Crow at it, code-server, a page;
 * every one of them closed afterwards, VS Code's logs kept on a failure.
 */
export async function runWorkbenchPhase(browser: Browser, phase: WorkbenchPhase): Promise<UiSummary> {
  const fake = await FakeLlmServer.start();
  let sandbox: Sandbox | undefined;
  let server: CodeServer | undefined;
  let page: Page | undefined;
  try {
    const box = (sandbox = createSandbox(phase.name, workbenchSettings(fake)));
    const installed = phase.install ? await phase.install(box) : undefined;
    if (phase.lmFixture) installLmFixture(box.extensionsDir);
    server = await step(phase.startTitle, () => startCodeServer(box, phase.name));
    // Without an extension under development Crow can only come from the sandbox's extensions dir.
    const development = installed ? {} : { extensionDevelopmentPath: REPO_ROOT };
    page = await openWorkbench(browser, { serverUrl: server.url, folder: box.workspace, ...development });
    const context: UiContext = {
      page,
      fake,
      workspace: box.workspace,
      logsDir: join(box.userDataDir, 'logs'),
      version: installed?.version ?? extensionVersion(),
    };
    const summary = await runChecks(phase.checks, context, phase.name, phase.keepGoing ?? false);
    if (summary.failed > 0) log(`VS Code's logs (the extension host's among them): ${saveServerLogs(box, `${phase.name}-logs`)}`);
    return summary;
  } finally {
    await page?.context().close().catch(() => undefined);
    await server?.stop();
    await fake.close();
    sandbox?.dispose();
  }
}

export function runUiPhase(browser: Browser, options: { keepGoing?: boolean } = {}): Promise<UiSummary> {
  const all = [...UI_CHECKS, ...RUN_CHECKS, ...CHECKPOINT_CHECKS, ...CHAT_CHECKS, ...APPLY_CHECKS, ...ATTEMPTS_CHECKS, ...BACKGROUND_CHECKS, ...CLICK_CHECKS, ...EDIT_CHANGE_CHECKS, ...CHANGES_CHECKS, ...HUNK_CHECKS, ...EDITOR_HUNK_CHECKS, ...SESSION_CHECKS, ...MCP_CHECKS, ...STATUS_CHECKS, ...TRACE_CHECKS, ...NARROW_CHECKS, ...RELOAD_CHECKS, ...STORY_CHECKS, ...A11Y_CHECKS, ...SETUP_CHECKS, ...WALKTHROUGH_CHECKS, ...VSCODE_MODEL_CHECKS];
  return runWorkbenchPhase(browser, { name: 'ui', ...options, checks: onlyChecks(all), lmFixture: true, startTitle: 'starting code-server for the UI checks' });
}

/**
 * CROW_UI_CHECKS=slug,slug runs only those checks (after the two that load
 * the extension and open the chat view), to try a group alone; all by default.
 */
function onlyChecks(checks: UiCheck[]): UiCheck[] {
  const wanted = process.env['CROW_UI_CHECKS']?.split(',').map((slug) => slug.trim()).filter(Boolean);
  if (!wanted?.length) return checks;
  return checks.filter((check) => ['extension-loaded', 'chat-view', ...wanted].includes(check.slug));
}

/**
 * Runs the checks in order; after the first failure the rest are skipped
 * (each builds on the ones before) unless `keepGoing`. Screenshots are
 * `<prefix>-<n>-<slug>.png`.
 */
async function runChecks(checks: UiCheck[], context: UiContext, prefix: string, keepGoing: boolean): Promise<UiSummary> {
  const summary: UiSummary = { passed: 0, failed: 0, skipped: 0 };
  for (const [index, check] of checks.entries()) {
    const label = `${prefix}-${index + 1}-${check.slug}`;
    if (summary.failed > 0 && !keepGoing) {
      summary.skipped++;
      log(`  - skipped: ${check.name}`);
      continue;
    }
    const started = Date.now();
    const requestsBefore = context.fake.requestsFor('openai').length;
    try {
      await withDeadline(check.run(context, check.timeoutMs), check.timeoutMs + 5_000, check.name);
      await screenshot(context.page, label);
      summary.passed++;
      log(`  ✔ ${check.name} (${seconds(started)}, ${context.fake.requestsFor('openai').length - requestsBefore} model requests)`);
    } catch (error) {
      summary.failed++;
      const shot = await screenshot(context.page, `${label}-failed`);
      log(`  ✘ ${check.name} (${seconds(started)})`);
      log(`    ${firstLines((error as Error).message)}`);
      log(`    fake LLM server: ${describeFake(context.fake, requestsBefore)}; screenshot: ${shot ?? '(none)'}`);
      log(`    the chat view showed, at its end: ${await chatTail(context)}`);
    }
  }
  return summary;
}

/** A check whose own waits all have timeouts should never hang; this is the net under a wait that forgot one. */
function withDeadline<T>(work: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`"${name}" did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function describeFake(fake: FakeLlmServer, before: number): string {
  const received = fake.requestsFor('openai').length;
  const unused = fake.pending('openai');
  return `${received} requests received (${received - before} in this check), ${unused} scripted repl${unused === 1 ? 'y' : 'ies'} unused`;
}

/** The last words of the chat view's transcript and whether it was busy: where a failed check stood, for a run whose screenshots are out of reach (CI). */
async function chatTail(context: UiContext): Promise<string> {
  const chat = context.chat;
  if (!chat || chat.isDetached()) return '(the chat view is not open)';
  try {
    const busy = await chat.locator('body').getAttribute('data-busy', { timeout: 2_000 });
    const text = await chat.locator('main.transcript').innerText({ timeout: 2_000 });
    return `busy=${busy ?? '?'}; ${JSON.stringify(text.replace(/\s+/g, ' ').slice(-600))}`;
  } catch (error) {
    return `(could not read it: ${firstLines((error as Error).message)})`;
  }
}

/** Playwright errors carry a long call log after the message; the first lines say what failed. */
function firstLines(message: string): string {
  return message.split('\n').slice(0, 4).join('\n    ');
}

/** code-server writes the extension host's log under its user data dir, which is about to be removed. */
function saveServerLogs(sandbox: Sandbox, folder: string): string {
  const target = join(ARTIFACTS_DIR, folder);
  cpSync(join(sandbox.userDataDir, 'logs'), target, { recursive: true });
  return target;
}

function extensionVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}
