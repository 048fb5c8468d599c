import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const MOCHA = join(ROOT, 'node_modules/mocha/bin/mocha.js');

describe('the test summary line', () => {
  it('counts and names the tests a failed hook kept from running', () => {
    const run = spawnSync(
      process.execPath,
      [MOCHA, '--no-config', '--reporter', join(ROOT, 'test/support/summary-reporter.cjs'), join(ROOT, 'test/fixtures/reporter/hook-fails.cjs')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(run.status, 1, run.stderr);
    const last = run.stdout.trimEnd().split('\n').at(-1)!;
    assert.equal(
      last,
      '2 passed, 1 failed, 1 skipped: 1 × no reason given, ' +
        '2 not run ("before each" hook for "never starts" in "a suite with a broken hook" failed: never starts; never starts either)',
    );
  });
});
