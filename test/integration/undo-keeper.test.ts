/**
 * The folder's keeper, through the real binary: a `crow run` whose undo
 * record was slow leaves a keeper watching the folder, the next run (a new
 * process) records through it instead of scanning, `crow undo` still puts
 * back exactly what the agent changed around the person's own edit made
 * between runs, and the keeper goes by itself once it is idle or its
 * folder is gone. "Slow" is set to 0 ms here, so every run counts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { alive, keeperPids, stopKeepers } from '../support/keepers';

describe('the folder keeper (crow run through the binary)', function () {
  this.timeout(60_000);
  const suite = binarySuite('keeper');

  beforeEach(() => {
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', ...args], { cwd: suite.root, encoding: 'utf8' });
    for (const name of ['a', 'b', 'c']) writeFileSync(join(suite.root, `${name}.txt`), `${name}1\n`);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
  });
  afterEach(() => stopKeepers(suite.base));

  const keepers = (): string => join(suite.home, 'data', 'crow-agent', 'keepers');
  const sockets = (): string[] => (existsSync(keepers()) ? readdirSync(keepers()).filter((name) => name.endsWith('.sock')) : []);

  async function crow(extra: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stderr: string; pid: number }> {
    const env = isolatedEnv(suite.home, {
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl,
      CROW_SANDBOX: 'off',
      CROW_KEEPER: undefined,
      CROW_KEEPER_SLOW_MS: '0',
      ...extra,
    });
    const run = startCrow([...args, '--cwd', suite.root], env, suite.root);
    run.child.stdin.end();
    const { code } = await run.exited;
    return { code, stderr: run.stderr(), pid: run.child.pid! };
  }

  const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });
  const done = { blocks: [{ type: 'text' as const, text: 'Done.' }] };
  const run = (extra: Record<string, string> = {}) => crow(extra, 'run', 'Change a.txt', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all');

  it('a second run records through the keeper the first one left, and undo keeps the person\'s edit made in between', async () => {
    suite.llm.enqueue('anthropic', bash('echo a2 > a.txt'), done);
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    await until(() => sockets().length === 1 && keeperPids(suite.base).length === 1, 'the keeper to listen');
    const [keeper] = keeperPids(suite.base);
    assert.notEqual(keeper, first.pid);

    // The person edits a file between runs; the keeper's watcher sees it.
    writeFileSync(join(suite.root, 'b.txt'), 'b edited by the person\n');

    // Who records shows in the sync files the recording watcher writes in .git (crow-undo-sync-<pid>-…).
    const syncs: string[] = [];
    const gitWatch = watch(join(suite.root, '.git'), (_event, name) => {
      if (typeof name === 'string' && name.startsWith('crow-undo-sync-')) syncs.push(name);
    });
    suite.llm.enqueue('anthropic', bash('echo a3 > a.txt && echo new > d.txt'), done);
    const second = await run();
    gitWatch.close();
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /Recording the workspace for undo/);
    const recorders = new Set(syncs.map((name) => Number(name.split('-')[3])));
    assert.deepEqual([...recorders], [keeper], `the sync files were written by ${[...recorders].join(', ')}`);

    const undo = await crow({}, 'undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(suite.root, 'a.txt'), 'utf8'), 'a2\n');
    assert.equal(existsSync(join(suite.root, 'd.txt')), false);
    assert.equal(readFileSync(join(suite.root, 'b.txt'), 'utf8'), 'b edited by the person\n');
    assert.deepEqual(readdirSync(join(suite.root, '.git')).filter((name) => name.includes('crow')), []);
  });

  it('goes by itself once idle, and once its folder is removed', async () => {
    suite.llm.enqueue('anthropic', bash('echo a2 > a.txt'), done);
    assert.equal((await run({ CROW_KEEPER_IDLE_MS: '1500' })).code, 0);
    await until(() => keeperPids(suite.base).length === 1, 'the keeper to start');
    const [idle] = keeperPids(suite.base);
    await until(() => !alive(idle!), 'the idle keeper to stop', 15_000);
    assert.deepEqual(sockets(), [], 'the idle keeper removed its socket');

    suite.llm.enqueue('anthropic', bash('echo a3 > a.txt'), done);
    assert.equal((await run()).code, 0);
    await until(() => keeperPids(suite.base).length === 1, 'the next keeper to start');
    const [orphaned] = keeperPids(suite.base);
    rmSync(suite.root, { recursive: true, force: true });
    await until(() => !alive(orphaned!), 'the keeper of a removed folder to stop', 15_000);
  });

  it('is not started with CROW_KEEPER=off, and the run still records for undo', async () => {
    suite.llm.enqueue('anthropic', bash('echo a2 > a.txt'), done);
    assert.equal((await run({ CROW_KEEPER: 'off' })).code, 0);
    await new Promise((wait) => setTimeout(wait, 500));
    assert.deepEqual(keeperPids(suite.base), []);
    const undo = await crow({ CROW_KEEPER: 'off' }, 'undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(suite.root, 'a.txt'), 'utf8'), 'a1\n');
  });
});
