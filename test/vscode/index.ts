/**
 * The test index the extension host loads (`extensionTestsPath`): runs every
 * suite bundled next to it (dist/test/vscode/**\/*.test.js) with mocha's tdd
 * ui inside the real VS Code. The host reports the outcome to whoever
 * started it: resolving means passed, rejecting means failed. Output goes to
 * the console, which the extension host forwards (to codeAutomationLog in
 * code-server, to the terminal with a desktop VS Code).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';
import { GREP_VARIABLE, REPORT_MARKER } from './support/harness-contract';

/** Real UI and a real extension host: slower than unit tests, and the first activation loads the engine. */
const TEST_TIMEOUT_MS = 30_000;

export async function run(): Promise<void> {
  // Every reporter line goes through Base.consoleLog; marking it lets the harness tell it from workbench chatter.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(REPORT_MARKER + format(...args));
  try {
    await runSuites();
  } catch (error) {
    // A suite that fails to load, or no suites at all, would otherwise only show in the workbench's log.
    const text = error instanceof TestsFailed ? error.message : String((error as Error).stack ?? error);
    console.error(REPORT_MARKER + text);
    throw error;
  }
}

async function runSuites(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', reporter: 'spec', color: false, timeout: TEST_TIMEOUT_MS });
  // `npm run test:vscode -- --grep <pattern>` runs only the matching tests.
  const grep = process.env[GREP_VARIABLE];
  if (grep) mocha.grep(grep);
  const files = testFiles(__dirname);
  if (files.length === 0) throw new Error(`no *.test.js next to ${__filename}: run \`npm run build\` first`);
  for (const file of files) mocha.addFile(file);
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new TestsFailed(`${failures} VS Code test${failures === 1 ? '' : 's'} failed (messages above)`);
}

/** Failing tests, already reported one by one by mocha. */
class TestsFailed extends Error {}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
