/**
 * `npm run test:vscode`: the extension in a real VS Code (code-server on
 * Node 24, in headless Chromium), offline. Four phases, each in a fresh
 * code-server with its own temp home, user data and workspace copy:
 *
 *   1. tests:      test/vscode/ (mocha, tdd) inside the extension host;
 *   2. restricted: its Restricted Mode suite again, Workspace Trust on and
 *                  the folder untrusted, its settings trying to widen what
 *                  Crow does;
 *   3. ui:         Playwright drives the workbench and the chat view against a
 *                  fake LLM server, with screenshots in test/artifacts/vscode/;
 *   4. vsix:       the packed .vsix, installed with --install-extension and
 *                  nothing else loaded, runs grep and edit_file from its chat view.
 *
 * Exits 0 only when all pass. Options (after `--` with npm run):
 *   --only=tests|restricted|ui|vsix  run one phase;
 *   --grep=PATTERN        run only the extension tests whose title matches;
 *   --vsix=FILE           test this .vsix instead of packing the repository;
 *   --verbose             also show the workbench's own log lines;
 *   --keep-going          run every UI check even after one failed (each
 *                         failing one waits out its timeout: allow half an hour).
 * Needs `npm run build` first (the npm script does it).
 */
import { existsSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runExtensionTests } from './extension-tests';
import { HarnessError } from './harness-error';
import { ensureInstalled } from './install';
import { ARTIFACTS_DIR, EXTENSION_BUNDLE, REPO_ROOT, TESTS_INDEX } from './paths';
import { log, seconds, step } from './progress';
import { runUiPhase, type UiSummary } from './ui-phase';
import { runVsixPhase } from './vsix-phase';
import { launchBrowser } from './workbench';

/** Each phase takes a few minutes (the UI phase ten or more on a busy machine); this only stops a run that hangs outside every other timeout. */
const HARD_TIMEOUT_MS = 20 * 60_000;
/** With --keep-going every failing check waits out its own timeout (up to two minutes each). */
const KEEP_GOING_TIMEOUT_MS = 45 * 60_000;
const TESTS_TIMEOUT_MS = 5 * 60_000;

const PHASES = ['tests', 'restricted', 'ui', 'vsix'] as const;
type Phase = (typeof PHASES)[number];

interface Options {
  phases: Phase[];
  grep?: string;
  vsix?: string;
  verbose: boolean;
  /** Run every UI check even after one failed (to see which of them an older build fails). */
  keepGoing: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      grep: { type: 'string' },
      vsix: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      'keep-going': { type: 'boolean', default: false },
    },
  });
  const only = values.only;
  if (only !== undefined && !isPhase(only)) {
    throw new HarnessError(`--only takes ${PHASES.map((phase) => `"${phase}"`).join(', ')}, not "${only}"`);
  }
  const vsix = values.vsix === undefined ? undefined : resolve(values.vsix);
  if (vsix !== undefined && !existsSync(vsix)) throw new HarnessError(`--vsix: there is no ${vsix}`);
  return { phases: only ? [only] : [...PHASES], grep: values.grep, vsix, verbose: values.verbose ?? false, keepGoing: values['keep-going'] ?? false };
}

function isPhase(name: string): name is Phase {
  return (PHASES as readonly string[]).includes(name);
}

async function main(argv: string[]): Promise<number> {
  const started = Date.now();
  const options = parseOptions(argv);
  await ensureInstalled();
  // The vsix phase packs (or is given) its own build; the others load dist/ as the extension under development.
  const needed: string[] = [];
  if (options.phases.includes('tests') || options.phases.includes('restricted')) needed.push(TESTS_INDEX);
  if (options.phases.some((phase) => phase !== 'vsix')) needed.push(EXTENSION_BUNDLE);
  for (const file of needed) {
    if (!existsSync(file)) throw new HarnessError(`${relative(REPO_ROOT, file)} is missing: run \`npm run build\` first`);
  }
  rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
  const hardTimeoutMs = options.keepGoing ? KEEP_GOING_TIMEOUT_MS : HARD_TIMEOUT_MS;
  setTimeout(() => {
    log(`gave up: the run took longer than ${hardTimeoutMs / 60_000} minutes (a hang outside the phases' own timeouts)`);
    process.exit(1);
  }, hardTimeoutMs).unref();

  const browser = await step('starting headless Chromium', launchBrowser);
  const verdicts: string[] = [];
  let failed = false;
  try {
    if (options.phases.includes('tests')) {
      const code = await runExtensionTests(browser, { timeoutMs: TESTS_TIMEOUT_MS, grep: options.grep, verbose: options.verbose });
      failed ||= code !== 0;
      verdicts.push(`extension tests: ${code === 0 ? 'passed' : `failed (exit code ${code})`}`);
    }
    if (options.phases.includes('restricted')) {
      const code = await runExtensionTests(browser, { timeoutMs: TESTS_TIMEOUT_MS, verbose: options.verbose, restricted: true });
      failed ||= code !== 0;
      verdicts.push(`Restricted Mode: ${code === 0 ? 'passed' : `failed (exit code ${code})`}`);
    }
    if (options.phases.includes('ui')) {
      log('UI checks in the workbench:');
      const ui = await runUiPhase(browser, { keepGoing: options.keepGoing });
      failed ||= ui.failed > 0;
      verdicts.push(`UI checks: ${describe(ui)}`);
    }
    if (options.phases.includes('vsix')) {
      log('the packaged extension (.vsix) in the workbench:');
      const vsix = await runVsixPhase(browser, { vsix: options.vsix });
      failed ||= vsix.failed > 0;
      verdicts.push(`.vsix checks: ${describe(vsix)}`);
    }
  } finally {
    await browser.close();
  }
  for (const verdict of verdicts) log(verdict);
  log(`${failed ? 'FAILED' : 'passed'} in ${seconds(started)}; screenshots and logs in ${relative(REPO_ROOT, ARTIFACTS_DIR)}/`);
  return failed ? 1 : 0;
}

function describe(summary: UiSummary): string {
  return `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`;
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
