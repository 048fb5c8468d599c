import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FindFilesOptions, GrepOptions } from '../../../src/tools/workspace';
import { tempDir, tempWorkspace } from './temp-workspace';
import { assertPromptly } from '../../support/promptly';

/** Every rg this process started that still runs. */
function runningRipgreps(): string[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return stat.includes('(rg)') && ppid === String(process.pid) && state !== 'Z';
      } catch {
        return false;
      }
    });
}

/**
 * The rg children still running once they had `ms` to go: a stopped search
 * settles without waiting for rg's exit (run-ripgrep.ts), so on a loaded
 * machine the killed rg may take a moment to be gone.
 */
async function ripgrepsLeft(ms = 2_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  while (runningRipgreps().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return runningRipgreps();
}

/**
 * An rg (CROW_RG_PATH) running `script` in sh, whatever its arguments;
 * like rg it writes NUL-ended paths relative to "." and its errors as
 * "rg: PATH: MESSAGE" lines, exiting 2 after any error.
 */
function fakeRipgrep(script: string): { running: () => boolean; stopsSoon: () => Promise<void>; restore: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-fake-rg-')));
  const pidFile = path.join(dir, 'pid');
  fs.writeFileSync(path.join(dir, 'rg'), `#!/bin/sh\necho $$ > '${pidFile}'\n${script}\n`, { mode: 0o755 });
  const before = process.env.CROW_RG_PATH;
  process.env.CROW_RG_PATH = path.join(dir, 'rg');
  return {
    running: () => {
      const pid = fs.readFileSync(pidFile, 'utf8').trim();
      try {
        return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    },
    /** The search answers as soon as it has stopped rg, not once rg has exited: rg must be gone a moment later. */
    async stopsSoon() {
      for (let waited = 0; this.running() && waited < 5_000; waited += 10) await new Promise((done) => setTimeout(done, 10));
      assert.equal(this.running(), false, 'rg was stopped');
    },
    restore: () => {
      if (before === undefined) delete process.env.CROW_RG_PATH;
      else process.env.CROW_RG_PATH = before;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const TREE = {
  '.gitignore': '*.log\n!keep.log\ndist/\n/build\n',
  'src/.gitignore': '*.tmp\n',
  'src/app.ts': 'export const needle = 1;\n',
  'src/app.tmp': 'needle\n',
  'src/build/made.ts': 'needle\n',
  'src/deep/er/util.ts': 'const Needle = 2;\n',
  'src/style.css': 'body {}\n',
  'debug.log': 'needle\n',
  'keep.log': 'needle\n',
  'dist/out.js': 'needle\n',
  'build/out.js': 'needle\n',
  'vendor/.ignore': 'generated.ts\n',
  'vendor/generated.ts': 'needle\n',
  'vendor/lib.ts': 'needle\n',
  '.github/ci.yml': 'needle: true\n',
  '.git/HEAD': 'needle\n',
};

describe('NodeWorkspace search (ripgrep)', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const signal = new AbortController().signal;
  const find = (options: Partial<FindFilesOptions> = {}) =>
    ws.workspace.findFiles({ limit: 100, sort: 'path', signal, ...options });
  const grep = (options: Partial<GrepOptions>) => ws.workspace.grep({ pattern: 'needle', maxMatches: 100, signal, ...options });

  beforeEach(() => {
    ws = tempWorkspace(TREE);
  });
  afterEach(() => ws.remove());

  describe('findFiles', () => {
    it('honours root, nested and .ignore files with negation and anchoring, keeps hidden files, skips .git', async () => {
      const { files, truncated, warnings } = await find();
      assert.deepEqual(files, [
        '.github/ci.yml',
        '.gitignore',
        'keep.log',
        'src/.gitignore',
        'src/app.ts',
        'src/build/made.ts',
        'src/deep/er/util.ts',
        'src/style.css',
        'vendor/.ignore',
        'vendor/lib.ts',
      ]);
      assert.equal(truncated, false);
      assert.deepEqual(warnings, []);
    });

    it('matches globs relative to the path, names without "/" at any depth', async () => {
      assert.deepEqual((await find({ globs: ['src/**/*.ts'] })).files, ['src/app.ts', 'src/build/made.ts', 'src/deep/er/util.ts']);
      assert.deepEqual((await find({ globs: ['*.{yml,css}'] })).files, ['.github/ci.yml', 'src/style.css']);
      assert.deepEqual((await find({ globs: ['*.ts'], path: 'src/deep' })).files, ['src/deep/er/util.ts']);
      assert.deepEqual((await find({ globs: ['/*.ts'], path: 'src' })).files, ['src/app.ts']);
      assert.deepEqual((await find({ globs: ['*.log'] })).files, ['keep.log'], 'a glob does not bring ignored files back');
    });

    it('sorts newest first by default; past the limit, the first found, by path', async () => {
      const newestFirst = ['src/style.css', 'vendor/lib.ts', 'src/app.ts', 'keep.log', 'src/deep/er/util.ts', 'src/build/made.ts'];
      newestFirst.forEach((file, index) => {
        const time = new Date(Date.now() - (index + 1) * 60_000);
        fs.utimesSync(path.join(ws.root, file), time, time);
      });
      const all = await ws.workspace.findFiles({ globs: ['*.{ts,css,log}'], limit: 10, signal });
      assert.deepEqual(all, { files: newestFirst, truncated: false, warnings: [] });
      assert.deepEqual(await ws.workspace.findFiles({ globs: ['*.{ts,css,log}'], limit: 6, signal }), all, 'exactly the limit is not truncated');
      const capped = await ws.workspace.findFiles({ globs: ['*.{ts,css,log}'], limit: 2, signal });
      assert.equal(capped.truncated, true);
      assert.equal(capped.files.length, 2);
      assert.ok(capped.files.every((file) => newestFirst.includes(file)) && capped.files[0]! < capped.files[1]!, capped.files.join(', '));
    });

    it('sorted by path, gives exactly the first files past the limit', async () => {
      const capped = await find({ globs: ['*.ts'], limit: 2 });
      assert.deepEqual(capped, { files: ['src/app.ts', 'src/build/made.ts'], truncated: true, warnings: [] });
    });

    it('reports a malformed glob and a missing folder', async () => {
      await assert.rejects(find({ globs: ['src/{a,b'] }), /Invalid glob "src\/\{a,b": a "\{" is never closed/);
      await assert.rejects(find({ path: 'nope' }), /Path not found: nope\./);
    });

    it('matches a file given as the path by its name', async () => {
      assert.deepEqual((await find({ globs: ['*.ts'], path: 'src/app.ts' })).files, ['src/app.ts']);
      assert.deepEqual((await find({ globs: ['*.css'], path: 'src/app.ts' })).files, []);
    });

    describe('with an rg that never stops listing', () => {
      let fake: ReturnType<typeof fakeRipgrep>;
      beforeEach(() => {
        for (let i = 1; i <= 10; i++) fs.writeFileSync(path.join(ws.root, `f${i}.ts`), '');
        // A walk as long as you like: a tree too big to list while the model waits.
        fake = fakeRipgrep('i=0; while :; do i=$((i+1)); printf "./f%s.ts\\0" "$i"; done');
      });
      afterEach(() => fake.restore());

      it('stops reading at the cap and stops rg, sorted either way', async () => {
        assert.deepEqual(await find({ globs: ['*.ts'], limit: 3 }), { files: ['f1.ts', 'f2.ts', 'f3.ts'], truncated: true, warnings: [] });
        await fake.stopsSoon();
        const newest = await ws.workspace.findFiles({ globs: ['f?.ts'], limit: 5, signal });
        // The newest is unknown (the walk stopped), so the files found are listed by path.
        assert.deepEqual(newest, { files: ['f1.ts', 'f2.ts', 'f3.ts', 'f4.ts', 'f5.ts'], truncated: true, warnings: [] });
        await fake.stopsSoon();
      });
    });

    it('answers at the cap without waiting for rg to wind down', async () => {
      const release = path.join(ws.root, 'release');
      // Told to stop, this rg waits for the test to release it (10 s at most) before it exits, as a big walk takes a while to end.
      const fake = fakeRipgrep(`trap 'n=0; while [ ! -e "${release}" ] && [ $n -lt 200 ]; do n=$((n+1)); sleep 0.05; done; exit 0' TERM\ni=0; while :; do i=$((i+1)); printf "./f%s.ts\\0" "$i"; done`);
      try {
        for (let i = 1; i <= 5; i++) fs.writeFileSync(path.join(ws.root, `f${i}.ts`), '');
        assert.deepEqual(await find({ globs: ['*.ts'], limit: 3 }), { files: ['f1.ts', 'f2.ts', 'f3.ts'], truncated: true, warnings: [] });
        assert.equal(fake.running(), true, 'the answer came before rg exited');
        fs.writeFileSync(release, '');
        await fake.stopsSoon();
      } finally {
        fs.writeFileSync(release, '');
        fake.restore();
      }
    });

    it('keeps what rg listed when some folders could not be read, with its words as warnings', async () => {
      const fake = fakeRipgrep('printf "./app.ts\\0"; echo "rg: ./locked: Permission denied (os error 13)" >&2; exit 2');
      try {
        const result = await find({ path: 'src' });
        assert.deepEqual(result, { files: ['src/app.ts'], truncated: false, warnings: ['src/locked: Permission denied (os error 13)'] });
      } finally {
        fake.restore();
      }
    });
  });

  describe('grep', () => {
    it('finds matching lines by path then line, honouring the same ignore rules', async () => {
      const result = await grep({});
      assert.deepEqual(
        result.matches.map((match) => `${match.path}:${match.line}`),
        ['.github/ci.yml:1', 'keep.log:1', 'src/app.ts:1', 'src/build/made.ts:1', 'vendor/lib.ts:1'],
      );
      assert.equal(result.matches.find((match) => match.path === 'src/app.ts')!.text, 'export const needle = 1;');
      assert.equal(result.truncated, false);
      assert.deepEqual(result.warnings, []);
    });

    it('narrows by path, file-name globs, case and literal text', async () => {
      const paths = async (options: Partial<GrepOptions>) => (await grep(options)).matches.map((match) => match.path);
      assert.deepEqual(await paths({ path: 'src', include: ['*.ts'] }), ['src/app.ts', 'src/build/made.ts']);
      assert.deepEqual(await paths({ path: 'src', ignoreCase: true, include: ['util.*'] }), ['src/deep/er/util.ts']);
      assert.deepEqual(await paths({ include: ['*.log'] }), ['keep.log'], 'include does not bring ignored files back');
      assert.deepEqual(await paths({ pattern: 'body {}', fixedStrings: true }), ['src/style.css']);
      assert.deepEqual(await paths({ pattern: '(?<=export const )needle' }), ['src/app.ts'], 'look-around works');
      await assert.rejects(grep({ include: ['src/*.ts'] }), /matches file names only; give the folder as the path/);
    });

    it('keeps context lines before and after, sharing them between nearby matches', async () => {
      fs.writeFileSync(path.join(ws.root, 'ctx.txt'), ['a', 'hit 1', 'b', 'c', 'hit 2', 'd', 'e', 'f', 'g', 'h', 'hit 3'].join('\n'));
      const { matches } = await grep({ path: 'ctx.txt', pattern: 'hit', context: 2 });
      const lines = (list: { line: number }[]) => list.map((line) => line.line);
      assert.deepEqual(
        matches.map((match) => [lines(match.before), match.line, lines(match.after)]),
        [
          [[1], 2, [3, 4]],
          [[3, 4], 5, [6, 7]],
          [[9, 10], 11, []],
        ],
      );
      assert.deepEqual(matches[0]!.before, [{ line: 1, text: 'a' }]);
    });

    it('cuts very long lines around the match', async () => {
      fs.writeFileSync(path.join(ws.root, 'min.js'), `${'x'.repeat(5000)}needle${'y'.repeat(5000)}`);
      const [match] = (await grep({ path: 'min.js' })).matches;
      assert.ok(match!.text.length < 500, `${match!.text.length} characters`);
      assert.match(match!.text, /^…x+needley+…$/);
    });

    it('leaves out a match on a line of more than 16 MiB, saying so, and keeps the other matches', async () => {
      fs.writeFileSync(path.join(ws.root, 'data.json'), `needle ${'z'.repeat(17 * 1024 * 1024)}\nneedle again\n`);
      const result = await grep({ path: 'data.json' });
      assert.deepEqual(
        result.matches.map((match) => [match.line, match.text]),
        [[2, 'needle again']],
      );
      assert.ok(result.warnings.some((warning) => /^a matching line longer than 16 MiB .*left out; narrow the path/.test(warning)), result.warnings.join('\n'));
    });

    it('stops at the cap, saying more exist, and leaves no rg running', async () => {
      fs.writeFileSync(path.join(ws.root, 'many.txt'), 'needle\n'.repeat(200_000));
      const result = await grep({ path: 'many.txt', maxMatches: 5 });
      assert.equal(result.matches.length, 5);
      assert.equal(result.truncated, true);
      assert.deepEqual(await ripgrepsLeft(), []);
      const exact = await grep({ path: 'src/app.ts', maxMatches: 1 });
      assert.equal(exact.truncated, false, 'exactly the cap is not truncated');
    });

    it('stops rg when aborted and rejects with the reason', async () => {
      fs.writeFileSync(path.join(ws.root, 'many.txt'), 'needle\n'.repeat(300_000));
      const controller = new AbortController();
      const started = performance.now();
      const search = ws.workspace.grep({ pattern: 'needle', maxMatches: 10_000_000, signal: controller.signal });
      setTimeout(() => controller.abort(new Error('stop now')), 30);
      await assert.rejects(search, /stop now/);
      assertPromptly(started, 'stopped rg', () => performance.now());
      assert.deepEqual(await ripgrepsLeft(), []);
    });

    it('explains an invalid regular expression', async () => {
      await assert.rejects(grep({ pattern: 'foo(' }), (err: Error) => {
        assert.equal(err.name, 'WorkspaceError');
        assert.match(err.message, /^Search failed: .*regex/s);
        assert.match(err.message, /unclosed group/);
        return true;
      });
    });
  });

  describe('confinement', () => {
    let outside: ReturnType<typeof tempDir>;
    beforeEach(() => {
      outside = tempDir('crow-outside-');
      fs.writeFileSync(path.join(outside.dir, 'secret.ts'), 'needle\n');
      fs.symlinkSync(outside.dir, path.join(ws.root, 'out-dir'));
      fs.symlinkSync(path.join(outside.dir, 'secret.ts'), path.join(ws.root, 'out-file.ts'));
    });
    afterEach(() => outside.remove());

    it('refuses a path outside the workspace, directly or through a symlink', async () => {
      await assert.rejects(grep({ path: '..' }), /must stay inside the workspace root/);
      await assert.rejects(find({ path: 'out-dir' }), /must stay inside the workspace root/);
      await assert.rejects(grep({ path: 'out-file.ts' }), /must stay inside the workspace root/);
    });

    it('does not follow symlinks out while walking', async () => {
      const files = (await find({ globs: ['*.ts'] })).files;
      assert.ok(!files.some((file) => file.startsWith('out-')), files.join(', '));
      const matches = (await grep({})).matches.map((match) => match.path);
      assert.ok(!matches.some((file) => file.startsWith('out-')), matches.join(', '));
    });
  });
});
