/**
 * The shipped eval tasks mean what they say: each fails as shipped, passes
 * with its solution, and its trap's wrong fix fails the hidden check (or,
 * for a protected-file task, changes the protected file).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadTasks, type EvalTask } from '../../src/eval/eval-task';
import { skipBecause } from '../support/skip-reasons';

const TASKS = loadTasks(resolve(__dirname, '../../eval/tasks'));

/** The hidden check's exit code on the task's files with `overlay` copied over them. */
function check(task: EvalTask, overlay?: string): number | null {
  const root = mkdtempSync(join(tmpdir(), `crow-suite-${task.name}-`));
  try {
    cpSync(join(task.dir, 'files'), root, { recursive: true });
    if (overlay) cpSync(join(task.dir, overlay), root, { recursive: true });
    if (existsSync(join(task.dir, 'hidden'))) cpSync(join(task.dir, 'hidden'), root, { recursive: true });
    return spawnSync('bash', ['-c', task.check], { cwd: root, stdio: 'ignore', timeout: 30_000 }).status;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const missing = (task: EvalTask): string[] => task.requires.filter((program) => spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0);

describe('the shipped eval tasks', function () {
  this.timeout(120_000);
  for (const task of TASKS) {
    it(`${task.name} (${task.category}): fails as shipped, passes when solved, and its wrong fix does not pass`, function () {
      const absent = missing(task);
      if (absent.length > 0) skipBecause(this, `an eval task needs ${absent.join(', ')}, not installed here`);
      assert.notEqual(check(task), 0, 'the task starts broken');
      assert.equal(check(task, 'solution'), 0, 'the solution passes');
      for (const path of task.protected) {
        assert.equal(existsSync(join(task.dir, 'solution', path)), false, `the solution leaves ${path} alone`);
      }
      if (!existsSync(join(task.dir, 'wrong'))) return;
      const changesProtected = task.protected.some((path) => existsSync(join(task.dir, 'wrong', path)) && readFileSync(join(task.dir, 'wrong', path), 'utf8') !== readFileSync(join(task.dir, 'files', path), 'utf8'));
      assert.ok(changesProtected || check(task, 'wrong') !== 0, 'the wrong fix is caught');
    });
  }
});
