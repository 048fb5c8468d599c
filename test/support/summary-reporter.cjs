// Mocha's spec reporter plus one closing line, "N passed, N failed, N skipped",
// which CI reads to count the tests that ran; when tests were skipped the line
// goes on with why, grouped: "… 40 skipped: 31 × no tmux (apt-get install -y tmux); 9 × …".
// Reasons come from test/support/skip-reasons.ts (on the test or a suite above it).
// A failed hook stops the tests after it in its suite without a word from mocha:
// those are counted as "not run" on the same line, with the hook and their names.
// Above it, one line names the slowest test files.
const path = require('node:path');
const Mocha = require('mocha');

const SKIP_REASON = 'crowSkipReason';
/** Tests named on the closing line for each failed hook; the rest are counted. */
const NAMED = 5;
/** Test files named as the slowest, above the closing line. */
const SLOWEST = 5;

function reasonOf(test) {
  for (let runnable = test; runnable; runnable = runnable.parent) {
    if (typeof runnable[SKIP_REASON] === 'string') return runnable[SKIP_REASON];
  }
  return 'no reason given';
}

/** Every test of `suite` and the suites below it. */
function testsOf(suite) {
  return [...suite.tests, ...suite.suites.flatMap(testsOf)];
}

/** A test mocha never started: not passed, failed or pending. */
function neverRan(test) {
  return test.state === undefined && !test.isPending();
}

/** What a failed hook left unrun: `"before each" hook for "b" in "suite" failed: b; c`. */
function notRunText(hook, tests) {
  const names = tests.slice(0, NAMED).map((test) => test.title);
  const more = tests.length > NAMED ? `; and ${tests.length - NAMED} more` : '';
  return `${hook.title} in "${hook.parent.fullTitle()}" failed: ${names.join('; ')}${more}`;
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const reasons = new Map();
    const failedHooks = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => {
      const reason = reasonOf(test);
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (runnable) => {
      if (runnable.type === 'hook') failedHooks.push(runnable);
    });
    // Time per test file, hooks included: from its first suite's start to its last suite's end.
    const files = new Map();
    runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.file || files.has(suite.file)) return;
      files.set(suite.file, { start: Date.now(), end: Date.now() });
    });
    runner.on(Mocha.Runner.constants.EVENT_SUITE_END, (suite) => {
      const file = suite.file && files.get(suite.file);
      if (file) file.end = Date.now();
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const why = [...reasons].map(([reason, count]) => `${count} × ${reason}`).join('; ');
      const counted = new Set();
      const unrun = [];
      for (const hook of failedHooks) {
        const left = testsOf(hook.parent).filter((test) => neverRan(test) && !counted.has(test));
        for (const test of left) counted.add(test);
        if (left.length > 0) unrun.push(notRunText(hook, left));
      }
      if (files.size > SLOWEST) {
        const slowest = [...files].map(([file, { start, end }]) => ({ file: path.relative(process.cwd(), file), seconds: (end - start) / 1000 }));
        slowest.sort((a, b) => b.seconds - a.seconds);
        const total = slowest.reduce((sum, one) => sum + one.seconds, 0);
        const named = slowest.slice(0, SLOWEST).map((one) => `${one.file} ${one.seconds.toFixed(0)} s`).join(', ');
        process.stdout.write(`Slowest test files (of ${total.toFixed(0)} s in all): ${named}\n`);
      }
      const notRun = counted.size > 0 ? `, ${counted.size} not run (${unrun.join('; then ')})` : '';
      process.stdout.write(`${passes} passed, ${failures} failed, ${pending} skipped${why ? `: ${why}` : ''}${notRun}\n`);
    });
  }
}

module.exports = SummaryReporter;
