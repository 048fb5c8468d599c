import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcnemarExact, median, pairedBootstrap, passAtK, passHatK, wilson } from '../../../src/eval/eval-stats';
import { shardOf } from '../../../src/eval/eval-runner';
import { loadSuite, loadTasks, matcher } from '../../../src/eval/eval-task';

describe('eval statistics', () => {
  it('gives the 95% Wilson interval, which stays inside [0, 1] and is wide for few runs', () => {
    const half = wilson(2, 4);
    assert.ok(Math.abs(half.low - 0.15) < 0.005 && Math.abs(half.high - 0.85) < 0.005, JSON.stringify(half));
    const all = wilson(10, 10);
    assert.ok(all.low > 0.69 && all.low < 0.73 && all.high > 0.999);
    assert.deepEqual(wilson(0, 0), { low: 0, high: 1 });
    const none = wilson(0, 20);
    assert.ok(none.low < 1e-9 && none.high > 0.15 && none.high < 0.18);
  });

  it('estimates pass@k and pass^k without bias, and tests pairs exactly', () => {
    assert.equal(passAtK(4, 2, 2), 1 - 1 / 6);
    assert.equal(passHatK(4, 2, 2), 1 / 6);
    assert.equal(passAtK(3, 0, 2), 0);
    assert.equal(passHatK(3, 3, 2), 1);
    assert.equal(mcnemarExact(2, 0), 0.5);
    assert.equal(mcnemarExact(0, 0), 1);
    assert.ok(Math.abs(mcnemarExact(10, 1) - 0.01172) < 1e-4);
    assert.deepEqual(pairedBootstrap([0.5, 0.5, 0.5], 7), { low: 0.5, high: 0.5 });
    assert.deepEqual(pairedBootstrap([1, 0, -1, 1], 3), pairedBootstrap([1, 0, -1, 1], 3), 'seeded: the same numbers each time');
  });

  it('cuts the plan into shards that cover it exactly once, the same way every time', () => {
    const runs = ['a', 'b', 'c', 'd', 'e'].flatMap((task) => ['x', 'y'].map((agent) => ({ task: { name: task } as never, agent, repeat: 1 })));
    const shards = [0, 1, 2].map((index) => shardOf(runs, { index, count: 3 }, 1));
    assert.deepEqual(shards.flat().length, 10);
    assert.equal(new Set(shards.flat()).size, 10);
    assert.deepEqual(shardOf(runs, { index: 1, count: 3 }, 1), shards[1]);
    assert.notDeepEqual(shardOf(runs, { index: 1, count: 3 }, 2), shards[1], 'the seed orders them');
  });

  it('takes medians of odd and even counts', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([]), 0);
  });
});

describe('eval tasks', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-eval-tasks-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const task = (name: string, toml: string, files = true): void => {
    mkdirSync(join(root, name, files ? 'files' : 'other'), { recursive: true });
    writeFileSync(join(root, name, 'task.toml'), toml);
  };
  const valid = 'prompt = "Fix it"\ncategory = "bug-fix"\ndifficulty = "easy"\nlanguage = "javascript"\ncheck = "node test.js"\n';

  it('matches names by comma-separated globs', () => {
    const match = matcher('js-*, py-median,a?c');
    assert.deepEqual(['js-clamp', 'py-median', 'py-rename', 'abc', 'abbc'].filter(match), ['js-clamp', 'py-median', 'abc']);
  });

  it('says what is wrong with a task file, naming the file and the field', () => {
    task('good', valid);
    task('bad', valid.replace('bug-fix', 'bugfix'));
    assert.throws(() => loadTasks(root), /bad\/task\.toml: category: Invalid (enum value|option)/);
    assert.deepEqual(loadSuite(root).tasks.map((t) => t.name), ['good'], 'the valid tasks still load');
    assert.equal(loadTasks(root, 'good')[0]!.checkTimeoutMs, 60_000);
    task('nofiles', valid, false);
    assert.throws(() => loadTasks(root, 'nofiles'), /has no files\/ folder/);
    assert.throws(() => loadTasks(root, 'zzz'), /No task matches "zzz".*Tasks: bad, good, nofiles/);
    assert.throws(() => loadTasks(join(root, 'missing')), /No task folder/);
  });
});
