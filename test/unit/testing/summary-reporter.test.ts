import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const MOCHA = join(ROOT, 'node_modules/mocha/bin/mocha.js');
const FIXTURES = ['hook-fails.cjs', 'after-each-fails.cjs'].map((name) => join(ROOT, 'test/fixtures/reporter', name));

/** The closing line of a mocha run of the fixtures through the summary reporter, as `npm test` runs it. */
function closingLine(...flags: string[]): string {
  const env = { ...process.env };
  delete env.CROW_TEST_FACTS;
  const run = spawnSync(
    process.execPath,
    [MOCHA, '--no-config', '--require', join(ROOT, 'test/support/run-facts.cjs'), '--reporter', join(ROOT, 'test/support/summary-reporter.cjs'), ...flags, ...FIXTURES],
    { cwd: ROOT, encoding: 'utf8', env },
  );
  assert.equal(run.status, 2, run.stderr);
  return run.stdout.trimEnd().split('\n').at(-1)!;
}

describe('the test summary line', function () {
  this.timeout(60_000);
  const expected =
    '3 passed, 2 failed, 2 skipped: 1 × no reason given; 1 × no tool (apt-get install -y tool), ' +
    '3 not run ("after each" hook for "runs before the tear-down" in "a suite that cannot clean up" failed: is left behind; ' +
    'then "before each" hook for "never starts" in "a suite with a broken hook" failed: never starts; never starts either)';

  it('counts and names the tests a failed hook kept from running, and why tests were skipped', () => {
    assert.equal(closingLine(), expected);
  });

  it('says the same when the files run in parallel workers', () => {
    assert.equal(closingLine('--parallel', '--jobs', '2'), expected);
  });
});
