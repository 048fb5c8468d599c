// Mocha's spec reporter plus one closing line, "N passed, N failed, N skipped",
// which CI reads to count the tests that ran; when tests were skipped the line
// goes on with why, grouped: "… 40 skipped: 31 × no tmux (apt-get install -y tmux); 9 × …".
// Reasons come from test/support/skip-reasons.ts (on the test or a suite above it),
// gathered by run-facts.cjs.
// A failed hook stops the tests after it in its suite without a word from mocha:
// those are counted as "not run" on the same line, with the hook and their names
// (found by the root hook in run-facts.cjs, which every run must --require).
// Above it, one line names the slowest test files.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Mocha = require('mocha');

/** Tests named on the closing line for each failed hook; the rest are counted. */
const NAMED = 5;
/** Test files named as the slowest, above the closing line. */
const SLOWEST = 5;

/** What a failed hook left unrun: `"before each" hook for "b" in "suite" failed: b; c`. */
function notRunText({ hook, suite, tests }) {
  const names = tests.slice(0, NAMED);
  const more = tests.length > NAMED ? `; and ${tests.length - NAMED} more` : '';
  return `${hook} in "${suite}" failed: ${names.join('; ')}${more}`;
}

/** The facts run-facts.cjs appended for this run, then the file removed. */
function takeFacts(file) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
    fs.rmSync(file);
  } catch {
    // No file: nothing was skipped and no hook failed.
  }
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    // Skip reasons and the tests a failed hook kept from running are found where the tests were loaded (run-facts.cjs).
    const factsFile = path.join(os.tmpdir(), `crow-test-facts-${process.pid}.jsonl`);
    process.env.CROW_TEST_FACTS = factsFile;
    // Time per test file: its tests' and hooks' durations (a parallel run's events arrive after each file, so not by the clock).
    const files = new Map();
    const timed = (runnable) => {
      if (runnable.file && typeof runnable.duration === 'number') files.set(runnable.file, (files.get(runnable.file) ?? 0) + runnable.duration);
    };
    runner.on(Mocha.Runner.constants.EVENT_TEST_END, timed);
    runner.on(Mocha.Runner.constants.EVENT_HOOK_END, timed);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const facts = takeFacts(factsFile);
      const reasons = new Map();
      for (const { skipped } of facts) if (skipped) reasons.set(skipped.reason, (reasons.get(skipped.reason) ?? 0) + skipped.count);
      const told = [...reasons.values()].reduce((sum, count) => sum + count, 0);
      if (pending > told) reasons.set('no reason given', (reasons.get('no reason given') ?? 0) + pending - told);
      // Sorted, so a parallel run, whose files end in any order, says it in the same words.
      const why = [...reasons].sort(([a, m], [b, n]) => n - m || a.localeCompare(b)).map(([reason, count]) => `${count} × ${reason}`).join('; ');
      const unrun = facts.flatMap(({ notRun }) => (notRun ? [notRun] : [])).sort((a, b) => a.suite.localeCompare(b.suite));
      const notRunCount = unrun.reduce((sum, one) => sum + one.tests.length, 0);
      const slowest = [...files].map(([file, ms]) => ({ file: path.relative(process.cwd(), file), seconds: ms / 1000 }));
      slowest.sort((a, b) => b.seconds - a.seconds);
      // CROW_TEST_TIMES=FILE keeps every file's time, slowest first, as JSON.
      if (process.env.CROW_TEST_TIMES) fs.writeFileSync(process.env.CROW_TEST_TIMES, `${JSON.stringify(slowest, null, 1)}\n`);
      if (files.size > SLOWEST) {
        const total = slowest.reduce((sum, one) => sum + one.seconds, 0);
        const named = slowest.slice(0, SLOWEST).map((one) => `${one.file} ${one.seconds.toFixed(0)} s`).join(', ');
        process.stdout.write(`Slowest test files (of ${total.toFixed(0)} s in all): ${named}\n`);
      }
      const notRun = notRunCount > 0 ? `, ${notRunCount} not run (${unrun.map(notRunText).join('; then ')})` : '';
      process.stdout.write(`${passes} passed, ${failures} failed, ${pending} skipped${why ? `: ${why}` : ''}${notRun}\n`);
    });
  }
}

module.exports = SummaryReporter;
