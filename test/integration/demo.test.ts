/**
 * `npm run demo` (scripts/demo.ts on the built binary): each run works in a
 * folder of its own, so two at once (two people on one machine, or one
 * person twice) do not collide, and a later run tidies up the ended ones.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');

/** One demo run with TMPDIR at `tmp`: its exit code and what it printed. */
function demo(tmp: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], { cwd: REPO, env: { PATH: process.env.PATH, HOME: tmp, TMPDIR: tmp } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, output })));
}

const folderOf = (output: string): string => /The demo's folder is kept until a later demo: (\S+)/.exec(output)?.[1] ?? '';

describe('npm run demo', function () {
  this.timeout(120_000);
  let tmp: string;
  beforeEach(() => (tmp = realpathSync(mkdtempSync(join(tmpdir(), 'crow-demo-test-')))));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('two demos at once each fix the bug in a folder of their own; a later demo removes the ended ones', async () => {
    const [first, second] = await Promise.all([demo(tmp), demo(tmp)]);
    for (const run of [first, second]) {
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /crow exited with code 0; 4 model requests; calc\.js fixed: true; test: all calc tests passed/);
      assert.doesNotMatch(run.output, /warning|error/i, 'a newcomer\'s first run shows no warning');
    }
    const folders = [folderOf(first.output), folderOf(second.output)];
    assert.notEqual(folders[0], folders[1]);
    for (const folder of folders) assert.ok(folder.startsWith(join(tmp, 'crow-demo-')) && existsSync(join(folder, 'workspace', 'calc.js')), folder);

    const third = await demo(tmp);
    assert.equal(third.code, 0, third.output);
    assert.deepEqual(readdirSync(tmp).filter((name) => name.startsWith('crow-demo-')), [folderOf(third.output).slice(tmp.length + 1)]);
  });
});
