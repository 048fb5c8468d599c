/**
 * Skipping a test or suite with the reason a person needs (what is missing,
 * how to get it). The summary reporter (summary-reporter.cjs) groups the
 * skipped tests by these reasons on its closing line.
 */

/** Where the reporter looks for a reason: on the skipped test, or on a suite above it. */
export const SKIP_REASON = 'crowSkipReason';

/**
 * Skips the running test, or, from a `before` hook, the tests of its suite,
 * recording `reason` for the summary and printing it under the suite.
 */
export function skipBecause(context: Mocha.Context, reason: string): never {
  const runnable = context.test;
  const isHook = (runnable as { type?: string } | undefined)?.type === 'hook';
  const owner: object | undefined = isHook ? runnable?.parent : runnable;
  if (owner) Object.assign(owner, { [SKIP_REASON]: reason });
  console.warn(`    skipped: ${reason}`);
  context.skip();
}

/** `describe`, or, when `reason` is given, the suite skipped with that reason (in its title and in the summary). */
export function describeUnless(reason: string | undefined, title: string, body: (this: Mocha.Suite) => void): void {
  if (reason === undefined) {
    describe(title, body);
    return;
  }
  const suite = describe.skip(`${title} [skipped: ${reason}]`, body);
  if (suite) Object.assign(suite, { [SKIP_REASON]: reason });
}
