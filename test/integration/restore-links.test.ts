/**
 * A restore never leaves the workspace, through the real binary: the agent
 * writes a file, a command then swaps the folder it is in for a link to a
 * folder outside (after hiding it in .gitignore), and `crow undo` in every
 * form says so and stops, where it used to delete the outside file through
 * the link. The same for a file replaced by a folder and the reverse, and
 * for a swap made while the person reads the plan.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

describe('restores never follow a link out of the workspace (crow undo through the binary)', function () {
  this.timeout(60_000);
  const suite = binarySuite('links');
  let outside: string;

  beforeEach(() => {
    execFileSync('git', ['init', '-q'], { cwd: suite.root });
    writeFileSync(join(suite.root, 'README.md'), 'hello\n');
    outside = join(suite.base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'notes.txt'), 'the person\'s own notes, outside the workspace\n');
  });

  const env = (): NodeJS.ProcessEnv => isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
  const outsideIntact = (): void => {
    assert.deepEqual(readdirSync(outside), ['notes.txt']);
    assert.equal(readFileSync(join(outside, 'notes.txt'), 'utf8'), 'the person\'s own notes, outside the workspace\n');
  };

  async function crow(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const run = startCrow([...args, '--cwd', suite.root], env(), suite.root);
    run.child.stdin.end();
    const { code } = await run.exited;
    return { code, stdout: run.stdout(), stderr: run.stderr() };
  }

  const write = (path: string, content: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'write_file', arguments: { path, content } }] });
  const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });
  const done = { blocks: [{ type: 'text' as const, text: 'Done.' }] };

  /** The agent writes cache/notes.txt; a command hides cache and swaps it for a link to the outside folder. */
  async function agentSwapsCacheForALink(): Promise<void> {
    suite.llm.enqueue(
      'anthropic',
      write('cache/notes.txt', 'agent notes\n'),
      bash(`echo cache >> .gitignore && mv cache cache-moved && ln -s ${outside} cache && echo swapped`),
      done,
    );
    const run = await crow('run', 'Take notes', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all');
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(join(suite.root, 'cache/notes.txt')), 'the link is in place');
  }

  for (const args of [[], ['--to', '1'], ['--to', '1', '--files-only']]) {
    it(`crow undo ${args.join(' ')} says the folder is now a link and stops, and the outside file stays`, async () => {
      await agentSwapsCacheForALink();
      const undo = await crow('undo', '--yes', ...args);
      assert.equal(undo.code, 1, `${undo.stdout}\n${undo.stderr}`);
      assert.match(undo.stderr, new RegExp(`cache/notes\\.txt \\(its folder leads outside the workspace: cache is now a link to ${outside}, where a folder was recorded\\); 0 other file\\(s\\) were restored`));
      assert.match(undo.stderr, /A restore never follows a link: remove the link \(or put the folder back\), then try again/);
      assert.doesNotMatch(undo.stdout, /Restored/);
      outsideIntact();
    });
  }

  it('restores once the person removes the link, as the message says', async () => {
    await agentSwapsCacheForALink();
    assert.equal((await crow('undo', '--yes')).code, 1);
    execFileSync('rm', [join(suite.root, 'cache')]);
    execFileSync('mv', [join(suite.root, 'cache-moved'), join(suite.root, 'cache')]);
    const undo = await crow('undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(existsSync(join(suite.root, 'cache/notes.txt')), false, 'the file the agent made is gone again');
    outsideIntact();
  });

  it('stops when the folder is swapped for a link while the person reads the plan', async () => {
    suite.llm.enqueue('anthropic', write('cache/notes.txt', 'agent notes\n'), done);
    assert.equal((await crow('run', 'Take notes', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all')).code, 0);
    const undo = startCrow(['undo', '--cwd', suite.root], env(), suite.root);
    await until(() => /Restore these files\?/.test(undo.stderr()), 'the question');
    assert.match(undo.stdout(), /delete\s+cache\/notes\.txt/);
    // Between the plan and the answer: the folder becomes a link to the outside folder.
    execFileSync('mv', [join(suite.root, 'cache'), join(suite.root, 'cache-moved')]);
    execFileSync('ln', ['-s', outside, join(suite.root, 'cache')]);
    undo.child.stdin.end('y\n');
    const { code } = await undo.exited;
    assert.equal(code, 1, undo.stderr());
    assert.match(undo.stderr(), /its folder leads outside the workspace: cache is now a link to .*outside, where a folder was recorded/);
    outsideIntact();
  });

  it('a file the agent changed that a command replaced by a folder holding a link out: put back as the file, the link removed, not followed', async () => {
    writeFileSync(join(suite.root, 'notes.txt'), 'v1\n');
    suite.llm.enqueue(
      'anthropic',
      write('notes.txt', 'v2\n'),
      bash(`rm notes.txt && mkdir notes.txt && ln -s ${outside}/notes.txt notes.txt/inner && echo done`),
      done,
    );
    assert.equal((await crow('run', 'Edit', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all')).code, 0);
    const undo = await crow('undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(suite.root, 'notes.txt'), 'utf8'), 'v1\n');
    outsideIntact();
  });

  it('a folder the agent wrote in that a command replaced by a file: both undone, nothing outside touched', async () => {
    suite.llm.enqueue('anthropic', write('gen/made.txt', 'made\n'), bash(`rm -r gen && ln -s ${outside} gen-link && echo plain > gen && echo done`), done);
    assert.equal((await crow('run', 'Generate', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'all')).code, 0);
    const undo = await crow('undo', '--yes');
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(existsSync(join(suite.root, 'gen')), false);
    assert.equal(existsSync(join(suite.root, 'gen-link')), false, 'the link the command made is removed, as a link');
    outsideIntact();
  });
});
