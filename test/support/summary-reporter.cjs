// Mocha's spec reporter plus one closing line, "N passed, N failed, N skipped",
// which CI reads to count the tests that ran; when tests were skipped the line
// goes on with why, grouped: "… 40 skipped: 31 × no tmux (apt-get install -y tmux); 9 × …".
// Reasons come from test/support/skip-reasons.ts (on the test or a suite above it).
const Mocha = require('mocha');

const SKIP_REASON = 'crowSkipReason';

function reasonOf(test) {
  for (let runnable = test; runnable; runnable = runnable.parent) {
    if (typeof runnable[SKIP_REASON] === 'string') return runnable[SKIP_REASON];
  }
  return 'no reason given';
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const reasons = new Map();
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => {
      const reason = reasonOf(test);
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const why = [...reasons].map(([reason, count]) => `${count} × ${reason}`).join('; ');
      process.stdout.write(`${passes} passed, ${failures} failed, ${pending} skipped${why ? `: ${why}` : ''}\n`);
    });
  }
}

module.exports = SummaryReporter;
