/**
 * The CI workflow kept for Linux, Windows and macOS runners
 * (.github/workflows/ci.yml): its matrix, and that it runs what the README
 * tells a newcomer to run and installs what .ci/run installs, so the two
 * cannot drift apart unnoticed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Step {
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

const workflow = parse(read('.github/workflows/ci.yml')) as {
  on: Record<string, unknown>;
  jobs: Record<string, { 'runs-on': string; strategy: { 'fail-fast': boolean; matrix: { os: string[]; node: number[] } }; steps: Step[] }>;
};
const job = workflow.jobs.test!;
const runs = job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));

/** The commands of the README's "Start here" block, without their comments. */
function readmeStartCommands(): string[] {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('## Start here'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line !== '');
}

describe('the CI workflow', () => {
  it('runs on pushes and pull requests, on Linux, Windows and macOS with Node 20 and 22, every cell to the end', () => {
    assert.ok('push' in workflow.on && 'pull_request' in workflow.on);
    assert.deepEqual(job.strategy.matrix.os.map((os) => os.split('-')[0]).sort(), ['macos', 'ubuntu', 'windows']);
    assert.deepEqual([...job.strategy.matrix.node].sort(), [20, 22]);
    assert.equal(job.strategy['fail-fast'], false);
    assert.equal(job['runs-on'], '${{ matrix.os }}');
    const setup = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    assert.equal(setup?.with?.['node-version'], '${{ matrix.node }}');
  });

  it("installs from the lock file, then runs the README's test command", () => {
    const test = readmeStartCommands().find((command) => command.includes('test'));
    assert.equal(test, 'npm test');
    assert.ok(runs.some((run) => run.startsWith('npm ci')), runs.join('\n'));
    assert.equal(runs.at(-1), test, 'the last step is the test command');
    assert.ok(runs.findIndex((run) => run.startsWith('npm ci')) < runs.indexOf(test!));
  });

  it('installs what .ci/run installs where it applies: tmux and bubblewrap on Linux; acpx comes with npm test, as everywhere', () => {
    const ciRun = read('.ci/run');
    // npm test's preflight adds acpx (scripts/preflight.mjs), so neither .ci/run nor the workflow installs it itself.
    assert.match(JSON.parse(read('package.json')).scripts.test, /^node scripts\/preflight\.mjs --system && /);
    assert.ok(!runs.some((run) => /acpx@/.test(run)) && !/acpx@/.test(ciRun));
    const linux = job.steps.find((step) => step.if === "runner.os == 'Linux'" && step.run?.includes('apt-get install'));
    assert.ok(linux, 'a Linux-only apt step');
    for (const pkg of ['tmux', 'bubblewrap']) {
      assert.match(ciRun, new RegExp(`missing\\+=\\(${pkg}\\)`), `.ci/run installs ${pkg}`);
      assert.match(linux.run!, new RegExp(`\\b${pkg}\\b`));
    }
  });
});
