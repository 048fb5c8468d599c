import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathGlob } from '../../../src/tools/glob-pattern';
import { walkNarrowingArgs } from '../../../src/tools/glob-walk';
import { ripgrepPath } from '../../../src/tools/run-ripgrep';
import { tempDir, tempWorkspace } from './temp-workspace';

const TYPE = 'crowfindfiles';
const typed = (...globs: string[]) => [...globs.map((glob) => `--type-add=${TYPE}:${glob}`), `--type=${TYPE}`];

describe('glob walk narrowing', () => {
  describe('the flags', () => {
    it('narrows names by a file type, widening every wildcard and odd character to *', () => {
      assert.deepEqual(walkNarrowingArgs(['*.md']), typed('*.md'));
      assert.deepEqual(walkNarrowingArgs(['**/*.md']), typed('*.md'), 'a leading **/ is any depth, like a bare name');
      assert.deepEqual(walkNarrowingArgs(['*.{ts,tsx}']), typed('*.{ts,tsx}'));
      assert.deepEqual(walkNarrowingArgs(['[A-Z]?x*.tsx']), typed('*x*.tsx'));
      assert.deepEqual(walkNarrowingArgs(['a}.md']), typed('a*.md'), 'a stray "}" is ours to read as a literal, an error to rg');
      assert.deepEqual(walkNarrowingArgs(['x:y\\*.md']), typed('x*y*.md'), 'no ":" (a type definition) nor escapes reach rg');
      assert.deepEqual(walkNarrowingArgs(['#x.ts']), typed('#x.ts'), 'a type glob is no .gitignore line: "#" is no comment');
    });

    it('adds no type when any name could match', () => {
      for (const glob of ['*', '**', '?', '[ab]', '{*,?}']) assert.deepEqual(walkNarrowingArgs([glob]), [], glob);
    });

    it('limits the depth of a glob without a ** segment', () => {
      assert.deepEqual(walkNarrowingArgs(['/*.ts']), [...typed('*.ts'), '--max-depth=1']);
      assert.deepEqual(walkNarrowingArgs(['*/*/package.json']), [...typed('package.json'), '--max-depth=3']);
      assert.deepEqual(walkNarrowingArgs(['{src,lib}/*.ts']), [...typed('*.ts'), '--max-depth=2']);
      assert.deepEqual(walkNarrowingArgs(['a**b/*.ts']), [...typed('*.ts'), '--max-depth=2'], '** inside a name is a plain *');
    });

    it('walks down literal leading folders only, by excluding every entry beside them', () => {
      assert.deepEqual(walkNarrowingArgs(['ab/x']), [
        ...typed('x'),
        '--max-depth=2',
        '--glob=!/[!a]*',
        '--glob=!/a[!b]*',
        '--glob=!/a',
        '--glob=!/ab?*',
      ]);
      assert.deepEqual(walkNarrowingArgs(['./a/**/b/c.ts']), [...typed('c.ts'), '--glob=!/[!a]*', '--glob=!/a?*']);
      assert.deepEqual(walkNarrowingArgs(['a/b/*']), ['--max-depth=3', '--glob=!/[!a]*', '--glob=!/a?*', '--glob=!/a/[!b]*', '--glob=!/a/b?*']);
    });

    it('keeps the walk whole where a segment cannot be told or named plainly', () => {
      assert.deepEqual(walkNarrowingArgs(['{a/b,c}.ts']), [], 'a "/" inside alternatives');
      assert.deepEqual(walkNarrowingArgs(['a[/]b/c.ts']), [], 'a "/" inside a class');
      assert.deepEqual(walkNarrowingArgs(['a b/c.ts']), [...typed('c.ts'), '--max-depth=2'], 'a space is trimmed from a --glob');
      assert.deepEqual(walkNarrowingArgs(['../a/c.ts']), [...typed('c.ts'), '--max-depth=3']);
    });

    it('narrows several globs only as far as all of them allow', () => {
      assert.deepEqual(walkNarrowingArgs(['src/*.ts', '/*.md']), [...typed('*.ts', '*.md'), '--max-depth=2']);
      assert.deepEqual(walkNarrowingArgs(['*.ts', '**']), []);
      assert.deepEqual(walkNarrowingArgs([]), []);
    });
  });

  describe('against the whole walk', () => {
    let ws: ReturnType<typeof tempWorkspace>;
    let outside: ReturnType<typeof tempDir>;
    const signal = new AbortController().signal;

    before(() => {
      ws = tempWorkspace({
        '.gitignore': 'dist/\n*.log\n/build\nsrc/gen/\n',
        'debug.log': '',
        'keep.md': '',
        'UPPER.MD': '',
        'dist/a.js': '',
        'build/b.js': '',
        'src/build/c.js': '',
        'src/gen/d.ts': '',
        'src/a.ts': '',
        'src/app/c.ts': '',
        'src/app-x/b.ts': '',
        'src/ap/d.ts': '',
        'src/apps/e.ts': '',
        'srcx/f.ts': '',
        'sr/g.ts': '',
        'lib/src/h.ts': '',
        '#x.ts': '',
        '!y.ts': '',
        'sp.ts ': '',
        'a}.md': '',
        '[id].ts': '',
        'x,y.md': '',
        'x:y.md': '',
        'e\\*.md': '',
        '.hidden/i.md': '',
        'deep/er/est/j.md': '',
        'ünï.md': '',
        '😀.md': '',
        '-dash/k.ts': '',
        '.dot.d/l.ts': '',
        'a b/m.ts': '',
      });
      outside = tempDir('crow-outside-');
      fs.writeFileSync(path.join(outside.dir, 'secret.ts'), '');
      fs.symlinkSync(outside.dir, path.join(ws.root, 'out-dir'));
      fs.symlinkSync('src', path.join(ws.root, 'link'));
    });
    after(() => {
      ws.remove();
      outside.remove();
    });

    const listings = new Map<string, string[]>();
    /** Everything rg lists under `folder` (relative to it) with the search's selection and no narrowing. */
    const listing = (folder: string) => {
      const cwd = path.join(ws.root, folder);
      const listed = execFileSync(ripgrepPath(), ['--files', '--null', '--hidden', '--glob=!.git', '--no-require-git', '--', '.'], { cwd, encoding: 'utf8' });
      return listed
        .split('\0')
        .filter((record) => record !== '')
        .map((record) => record.slice(2));
    };
    /** What the globs match among everything the whole walk lists, sorted. */
    const wholeWalk = (globs: string[], folder = '.') => {
      if (!listings.has(folder)) listings.set(folder, listing(folder));
      const tests = globs.map(pathGlob);
      return listings
        .get(folder)!
        .filter((relative) => tests.some((test) => test(relative)))
        .map((relative) => path.posix.join(folder, relative))
        .sort();
    };
    const found = async (globs: string[], folder?: string) =>
      (await ws.workspace.findFiles({ globs, path: folder, sort: 'path', limit: 1_000, signal })).files.sort();

    const GLOBS = [
      '*.md', '**/*.md', '*.MD', '*.log', '*', '**', '**/*', 'src/**', 'src/*.ts', 'src/**/*.ts', 'src/app/*.ts',
      'src/ap*/*.ts', 'src/gen/*.ts', 'dist/*.js', 'build/*.js', '/build/*.js', 'src/build/*.js', '#x.ts', '!y.ts',
      'sp.ts ', 'a}.md', '\\[id].ts', '[[]id].ts', 'x,y.md', 'x:y.md', 'e\\\\\\*.md', '*.{md,ts}', '*.{t{s,x},m{d,D}}',
      '{src,lib}/**/*.ts', '{sr,src}/*.ts', '{a/b,src/a}.ts', '?.ts', '??.md', 'deep/*/est/*.md', '*/*/*/*.md',
      './src/*.ts', '/src/a.ts', '-dash/*.ts', '.dot.d/*.ts', '.hidden/**', 'ünï.md', 'sr/*.ts', 'srcx/*.ts', 'src/',
      'src/../src/a.ts', 'link/*.ts', 'out-dir/*.ts', 'nope/*.ts', 'a b/*.ts', '*.ts',
      '{**/*.md,src/**/*.ts}', '{deep/**,**/k.ts}', '{a,**}/*.ts',
    ];

    it('reads a ** that fills an alternative as any folders, as brace expansion would', () => {
      assert.ok(pathGlob('{**/*.js,x}')('a/b/c.js'));
      assert.ok(pathGlob('{**/*.js,**/*.md}')('c.md'), 'at the top too');
      assert.ok(pathGlob('{docs/**,x}')('docs/a/b.md'));
      assert.ok(pathGlob('{a,**}/b.ts')('x/y/b.ts'));
      assert.ok(!pathGlob('{a**,x}/b.ts')('x/y/b.ts'), '** inside a name stays a plain *');
      assert.ok(!pathGlob('{**/*.js,x}')('a/b/c.ts'));
    });

    it('finds exactly what the globs match in a walk of everything', async () => {
      for (const glob of GLOBS) assert.deepEqual(await found([glob]), wholeWalk([glob]), glob);
    });

    it('does so in a subfolder and for several globs at once', async () => {
      for (const glob of ['*.ts', 'app/*.ts', '/a.ts', 'ap*/**', 'gen/*.ts', 'build/*']) {
        assert.deepEqual(await found([glob], 'src'), wholeWalk([glob], 'src'), `${glob} in src`);
      }
      assert.deepEqual(await found(['src/*.ts', '*.md', 'dist/*']), wholeWalk(['src/*.ts', '*.md', 'dist/*']));
    });

    it('never brings back what ignore files leave out, nor follows a link', async () => {
      assert.deepEqual(await found(['*.log']), []);
      assert.deepEqual(await found(['dist/*.js', 'src/gen/*.ts', '/build/*.js']), []);
      assert.deepEqual(await found(['link/*.ts', 'out-dir/*.ts']), []);
      assert.deepEqual(await found(['#x.ts']), ['#x.ts'], 'not read as a comment that selects everything');
      assert.deepEqual(await found(['!y.ts']), ['!y.ts'], 'not read as an exclusion');
      assert.deepEqual(await found(['sp.ts ']), ['sp.ts '], 'the trailing space kept');
    });
  });
});
