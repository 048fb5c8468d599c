// A root hook for every mocha process of a run (the one process, or each worker
// of `--parallel`, where it runs after each file). After the last test it walks
// the tests as they were loaded and appends, as JSON lines, to the file the
// summary reporter named in CROW_TEST_FACTS:
// - the tests a failed hook kept from running, which mocha neither counts nor names;
// - why tests were skipped (skip-reasons.ts marks the test or a suite above it).
// It must run where the tests were loaded: a parallel run's reporter only sees
// copies of them, without their suites' tests or the marks on them.

const fs = require('node:fs');

const SKIP_REASON = 'crowSkipReason';

/** Every test of `suite` and the suites below it. */
function testsOf(suite) {
  return [...suite.tests, ...suite.suites.flatMap(testsOf)];
}

/** Every suite from `suite` down. */
function suitesOf(suite) {
  return [suite, ...suite.suites.flatMap(suitesOf)];
}

/** A test mocha never started: not passed, failed or pending. */
function neverRan(test) {
  return test.state === undefined && !test.isPending();
}

function failedHooks(suite) {
  return [...suite._beforeAll, ...suite._beforeEach, ...suite._afterEach, ...suite._afterAll].filter((hook) => hook.state === 'failed');
}

function reasonOf(test) {
  for (let runnable = test; runnable; runnable = runnable.parent) {
    if (typeof runnable[SKIP_REASON] === 'string') return runnable[SKIP_REASON];
  }
  return 'no reason given';
}

/** `{ notRun: { hook, suite, tests } }` for each failed hook that kept tests from running. */
function notRunFacts(root) {
  const counted = new Set();
  const facts = [];
  for (const suite of suitesOf(root)) {
    for (const hook of failedHooks(suite)) {
      const left = testsOf(suite).filter((test) => neverRan(test) && !counted.has(test));
      for (const test of left) counted.add(test);
      if (left.length > 0) facts.push({ notRun: { hook: hook.title, suite: suite.fullTitle(), tests: left.map((test) => test.title) } });
    }
  }
  return facts;
}

/** `{ skipped: { reason, count } }` for each reason the skipped tests give. */
function skippedFacts(root) {
  const reasons = new Map();
  for (const test of testsOf(root)) {
    if (!test.isPending()) continue;
    const reason = reasonOf(test);
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return [...reasons].map(([reason, count]) => ({ skipped: { reason, count } }));
}

exports.mochaHooks = {
  afterAll() {
    const out = process.env.CROW_TEST_FACTS;
    if (!out) return;
    let root = this.test.parent;
    while (root.parent) root = root.parent;
    const facts = [...notRunFacts(root), ...skippedFacts(root)];
    if (facts.length > 0) fs.appendFileSync(out, `${facts.map((fact) => JSON.stringify(fact)).join('\n')}\n`);
  },
};
