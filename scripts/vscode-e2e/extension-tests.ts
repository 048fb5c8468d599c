/**
 * Phase 1: the mocha suites of test/vscode/ run inside the extension host of
 * a real VS Code (code-server), loaded through the workbench URL's payload.
 * The test index settles, the workbench calls codeAutomationExit with mocha's
 * verdict, and that is this phase's exit code.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { GREP_VARIABLE, REPORT_MARKER } from '../../test/vscode/support/harness-contract';
import { startCodeServer, type CodeServer } from './code-server';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR, REPO_ROOT, TESTS_INDEX } from './paths';
import { log, seconds, step } from './progress';
import { createSandbox, installLmFixture } from './sandbox';
import { openWorkbench, saveWorkbenchLogs, screenshot, type WorkbenchLog } from './workbench';

export interface ExtensionTestsOptions {
  timeoutMs: number;
  /** Runs only the tests whose full title matches (mocha's grep). */
  grep?: string;
  /** Also print the workbench's own log lines (noisy; the test output is always printed). */
  verbose: boolean;
  /**
   * Opens the folder untrusted, Workspace Trust on, its .vscode/settings.json
   * trying to widen what Crow does, and runs only the Restricted Mode suite.
   */
  restricted?: boolean;
}

/** What an untrusted folder's settings try: every restricted setting widened, and one harmless setting. */
const WIDENING_WORKSPACE_SETTINGS = {
  'crow.sandbox': 'off',
  'crow.autoApprove.maxCommands': 1000,
  'crow.autoApprove.maxWrites': 1000,
  'crow.permissions.execute': 'allow',
  'crow.maxIterations': 7,
};

/** The workbench, the extension host and mocha are up well within this when the setup is right. */
const START_TIMEOUT_MS = 120_000;

/** Returns the exit code the workbench reported: 0 when every test passed. */
export async function runExtensionTests(browser: Browser, options: ExtensionTestsOptions): Promise<number> {
  const name = options.restricted ? 'restricted' : 'tests';
  const sandbox = options.restricted ? createSandbox(name, WIDENING_WORKSPACE_SETTINGS, { 'security.workspace.trust.startupPrompt': 'never' }) : createSandbox(name);
  const grep = options.restricted ? 'Restricted Mode' : options.grep;
  if (grep) sandbox.env[GREP_VARIABLE] = grep;
  installLmFixture(sandbox.extensionsDir);
  const logs = workbenchLogRelay(options.verbose);
  let server: CodeServer | undefined;
  let page: Page | undefined;
  try {
    server = await step(`starting code-server for the extension tests${options.restricted ? ' (Workspace Trust on, the folder untrusted)' : ''}`, () =>
      startCodeServer(sandbox, name, { workspaceTrust: options.restricted === true }),
    );
    const started = Date.now();
    let settle!: (outcome: WorkbenchExit) => void;
    const exited = new Promise<WorkbenchExit>((resolve) => (settle = resolve));
    log('running test/vscode/ in the extension host (test report follows)');
    page = await openWorkbench(
      browser,
      { serverUrl: server.url, folder: sandbox.workspace, extensionDevelopmentPath: REPO_ROOT, extensionTestsPath: TESTS_INDEX },
      { log: logs.relay, exit: (code, files) => settle({ code, files }) },
    );
    // `return await`: the screenshot must be taken before `finally` closes the page.
    if (!(await Promise.race([logs.reported, exited.then(() => true), timeout(START_TIMEOUT_MS)]))) {
      return await fail(page, server, logs.file, `the extension host did not start the tests within ${START_TIMEOUT_MS / 1000} s`);
    }
    const outcome = await Promise.race([exited, timeout(options.timeoutMs)]);
    if (!outcome) {
      const reason =
        `the extension tests did not finish within ${options.timeoutMs / 1000} s: a test waiting for something that ` +
        'never happens, or a run() that never settles. The report above shows the last test that started';
      return await fail(page, server, logs.file, reason);
    }
    logs.close();
    log(`extension tests: exit code ${outcome.code} after ${seconds(started)}`);
    if (outcome.code !== 0) {
      const shot = await screenshot(page, 'extension-tests-failed');
      const saved = saveWorkbenchLogs(outcome.files, 'extension-tests-logs');
      log(`for more: screenshot ${shot ?? '(none)'}; workbench log ${logs.file}; VS Code logs in ${saved}`);
    }
    return outcome.code;
  } finally {
    logs.close();
    await page?.context().close().catch(() => undefined);
    await server?.stop();
    sandbox.dispose();
  }
}

async function fail(page: Page, server: CodeServer, workbenchLog: string, reason: string): Promise<never> {
  const shot = await screenshot(page, 'extension-tests-timeout');
  throw new HarnessError(`${reason}. Screenshot: ${shot ?? 'none'}; workbench log: ${workbenchLog}; code-server log: ${server.logFile}.`);
}

interface WorkbenchExit {
  code: number;
  files: WorkbenchLog[];
}

/**
 * Shows the test report (lines the index marks) and keeps everything else
 * the workbench logs (its own chatter about the offline marketplace,
 * telemetry, GitHub sign-in; tests' own console output) in a log file,
 * unless asked to show it all.
 */
function workbenchLogRelay(verbose: boolean): {
  relay(level: string, message: string): void;
  /** Resolves with true at the first line of the test report. */
  reported: Promise<true>;
  close(): void;
  file: string;
} {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = join(ARTIFACTS_DIR, 'extension-tests-workbench.log');
  const stream = createWriteStream(file);
  let open = true;
  let markReported!: (value: true) => void;
  const reported = new Promise<true>((resolve) => (markReported = resolve));
  return {
    file,
    reported,
    relay(level, message) {
      if (!open) return;
      stream.write(`[${level}] ${message}\n`);
      if (message.startsWith(REPORT_MARKER)) {
        markReported(true);
        process.stdout.write(`${message.slice(REPORT_MARKER.length)}\n`);
      } else if (verbose) {
        process.stdout.write(`  [workbench ${level}] ${message}\n`);
      }
    },
    close() {
      if (!open) return;
      open = false;
      stream.end();
    },
  };
}

function timeout(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
