/**
 * Crow's own writes into the workspace never follow a link out of it,
 * through the real binary: a command (or a checked-out repository) plants
 * links under the names Crow is about to write, and the files they point
 * at, outside, stay as they were. The agent's own writes are the other
 * side of the same rule (restore-links.test.ts, workspace-confinement).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

describe('Crow\'s own writes never follow a link out of the workspace (through the binary)', function () {
  this.timeout(60_000);
  const suite = binarySuite('own-writes');
  let outside: string;

  beforeEach(() => {
    outside = join(suite.base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
  });

  const env = (): NodeJS.ProcessEnv => isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
  const outsideIntact = (): void => {
    assert.deepEqual(readdirSync(outside), ['precious.txt']);
    assert.equal(readFileSync(join(outside, 'precious.txt'), 'utf8'), 'keep me\n');
  };

  it('crow config set --project does not write through a .crow that is a link out', async () => {
    symlinkSync(outside, join(suite.root, '.crow'));
    const run = await runCrow(['config', 'set', 'model', 'claude-test', '--project', '--cwd', suite.root], env(), suite.root);
    assert.notEqual(run.code, 0, run.stdout);
    assert.match(run.stderr, /\.crow is a link to .*outside.*nothing was changed through it/);
    outsideIntact();
  });

  it('crow config set --project does not write through a config.toml that is a link out', async () => {
    // Valid TOML outside, so a write through the link would go ahead and replace it.
    writeFileSync(join(outside, 'settings.toml'), 'model = "the person\'s own"\n');
    mkdirSync(join(suite.root, '.crow'));
    symlinkSync(join(outside, 'settings.toml'), join(suite.root, '.crow', 'config.toml'));
    const run = await runCrow(['config', 'set', 'model', 'claude-test', '--project', '--cwd', suite.root], env(), suite.root);
    assert.notEqual(run.code, 0, run.stdout);
    assert.match(run.stderr, /config\.toml is a link to .*outside.*nothing was changed through it/);
    assert.equal(readFileSync(join(outside, 'settings.toml'), 'utf8'), 'model = "the person\'s own"\n');
  });

  it('crow sessions export into the workspace does not write through links planted under the names it uses', async () => {
    execFileSync('git', ['init', '-q'], { cwd: suite.root });
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const run = await runCrow(['run', 'Say hello', '--provider', 'anthropic', '--model', 'claude-test', '--json'], env(), suite.root);
    assert.equal(run.code, 0, run.stderr);
    const listed = JSON.parse((await runCrow(['sessions', 'list', '--json', '--cwd', suite.root], env(), suite.root)).stdout) as { id: string; createdAt: number }[];
    const id = listed[0]!.id;
    // The export folder is named by date and title: a link of that name waits for it.
    const folder = `${new Date(listed[0]!.createdAt).toISOString().slice(0, 10)}-say-hello`;
    symlinkSync(outside, join(suite.root, folder));
    const exported = await runCrow(['sessions', 'export', id, '--out', suite.root], env(), suite.root);
    assert.notEqual(exported.code, 0, exported.stdout);
    assert.match(exported.stderr, /is a link .*nothing was changed through it/);
    outsideIntact();
  });
});
