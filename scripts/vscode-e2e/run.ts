/**
 * `npm run test:vscode`: the extension in a real VS Code (code-server on
 * Node 24, in headless Chromium), offline. Two phases, each in a fresh
 * code-server with its own temp home, user data and workspace copy:
 *
 *   1. tests: test/vscode/ (mocha, tdd) inside the extension host;
 *   2. ui:    Playwright drives the workbench and the chat view against a
 *             fake LLM server, with screenshots in test/artifacts/vscode/.
 *
 * Exits 0 only when both pass. Options (after `--` with npm run):
 *   --only=tests|ui     run one phase;
 *   --grep=PATTERN      run only the extension tests whose title matches;
 *   --verbose           also show the workbench's own log lines.
 * Needs `npm run build` first (the npm script does it).
 */
import { existsSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { runExtensionTests } from './extension-tests';
import { HarnessError } from './harness-error';
import { ensureInstalled } from './install';
import { ARTIFACTS_DIR, EXTENSION_BUNDLE, REPO_ROOT, TESTS_INDEX } from './paths';
import { log, seconds, step } from './progress';
import { runUiPhase } from './ui-phase';
import { launchBrowser } from './workbench';

/** Both phases take well under a minute each; this only stops a run that hangs outside every other timeout. */
const HARD_TIMEOUT_MS = 10 * 60_000;
const TESTS_TIMEOUT_MS = 5 * 60_000;

type Phase = 'tests' | 'ui';

interface Options {
  phases: Phase[];
  grep?: string;
  verbose: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: { only: { type: 'string' }, grep: { type: 'string' }, verbose: { type: 'boolean', default: false } },
  });
  if (values.only !== undefined && values.only !== 'tests' && values.only !== 'ui') {
    throw new HarnessError(`--only takes "tests" or "ui", not "${values.only}"`);
  }
  return { phases: values.only ? [values.only] : ['tests', 'ui'], grep: values.grep, verbose: values.verbose ?? false };
}

async function main(argv: string[]): Promise<number> {
  const started = Date.now();
  const options = parseOptions(argv);
  await ensureInstalled();
  for (const file of [EXTENSION_BUNDLE, TESTS_INDEX]) {
    if (!existsSync(file)) throw new HarnessError(`${relative(REPO_ROOT, file)} is missing: run \`npm run build\` first`);
  }
  rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
  setTimeout(() => {
    log(`gave up: the run took longer than ${HARD_TIMEOUT_MS / 60_000} minutes (a hang outside the phases' own timeouts)`);
    process.exit(1);
  }, HARD_TIMEOUT_MS).unref();

  const browser = await step('starting headless Chromium', launchBrowser);
  const verdicts: string[] = [];
  let failed = false;
  try {
    if (options.phases.includes('tests')) {
      const code = await runExtensionTests(browser, { timeoutMs: TESTS_TIMEOUT_MS, grep: options.grep, verbose: options.verbose });
      failed ||= code !== 0;
      verdicts.push(`extension tests: ${code === 0 ? 'passed' : `failed (exit code ${code})`}`);
    }
    if (options.phases.includes('ui')) {
      log('UI checks in the workbench:');
      const ui = await runUiPhase(browser);
      failed ||= ui.failed > 0;
      verdicts.push(`UI checks: ${ui.passed} passed, ${ui.failed} failed, ${ui.skipped} skipped`);
    }
  } finally {
    await browser.close();
  }
  for (const verdict of verdicts) log(verdict);
  log(`${failed ? 'FAILED' : 'passed'} in ${seconds(started)}; screenshots and logs in ${relative(REPO_ROOT, ARTIFACTS_DIR)}/`);
  return failed ? 1 : 0;
}

// Exiting runs the cleanups registered on 'exit': code-server process groups are killed, temp folders removed.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof HarnessError) log(`error: ${error.message}`);
    else console.error(error);
    process.exit(1);
  },
);
