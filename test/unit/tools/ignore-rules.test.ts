import assert from 'node:assert/strict';
import { globToRegExp, pathGlob } from '../../../src/tools/glob-pattern';
import { IgnoreRules } from '../../../src/tools/ignore-rules';

describe('glob patterns', () => {
  const matches = (glob: string, path: string) => globToRegExp(glob).test(path);

  it('keeps * and ? within a folder and lets ** span folders', () => {
    assert.equal(matches('src/*.ts', 'src/a.ts'), true);
    assert.equal(matches('src/*.ts', 'src/x/a.ts'), false);
    assert.equal(matches('src/**/*.ts', 'src/a.ts'), true);
    assert.equal(matches('src/**/*.ts', 'src/x/y/a.ts'), true);
    assert.equal(matches('**/test', 'a/b/test'), true);
    assert.equal(matches('lib/**', 'lib/a/b'), true);
    assert.equal(matches('lib/**', 'lib'), false);
    assert.equal(matches('a?c', 'abc'), true);
    assert.equal(matches('a?c', 'a/c'), false);
    assert.equal(matches('a**b', 'axxb'), true, '** inside a name is a plain *');
  });

  it('supports classes, alternatives and escapes', () => {
    assert.equal(matches('*.[jt]s', 'a.ts'), true);
    assert.equal(matches('*.[!jt]s', 'a.ts'), false);
    assert.equal(matches('*.[!jt]s', 'a.cs'), true);
    assert.equal(matches('*.{ts,tsx}', 'a.tsx'), true);
    assert.equal(matches('*.{ts,tsx}', 'a.js'), false);
    assert.equal(matches('\\*.md', '*.md'), true);
    assert.equal(matches('\\*.md', 'a.md'), false);
    assert.equal(matches('a.b', 'axb'), false, 'regex characters are literal');
  });

  it('places globs the way .gitignore does', () => {
    assert.equal(pathGlob('*.ts')('a/b/c.ts'), true, 'no "/": the name, at any depth');
    assert.equal(pathGlob('/*.ts')('a/c.ts'), false, 'a leading "/" anchors');
    assert.equal(pathGlob('/*.ts')('c.ts'), true);
    assert.equal(pathGlob('./src/*.ts')('src/c.ts'), true);
    assert.equal(pathGlob('src/*.ts')('lib/src/c.ts'), false, 'a "/" inside anchors');
  });

  it('names the glob when it is malformed', () => {
    assert.throws(() => globToRegExp('{a,b'), /Invalid glob "\{a,b": a "\{" is never closed/);
    assert.throws(() => globToRegExp('[z-a]'), /Invalid glob "\[z-a\]"/);
  });
});

describe('IgnoreRules', () => {
  const rules = IgnoreRules.none
    .extend('.', '# build output\n*.log\n!keep.log\ndist/\n/build\ndocs/generated\n\n\\#literal\n')
    .extend('pkg', '*.tmp\n!important.log\n');

  it('ignores by name at any depth, folders only with a trailing "/"', () => {
    assert.equal(rules.ignores('debug.log', false), true);
    assert.equal(rules.ignores('a/b/debug.log', false), true);
    assert.equal(rules.ignores('dist', true), true);
    assert.equal(rules.ignores('a/dist', true), true);
    assert.equal(rules.ignores('dist', false), false, 'dist/ matches folders only');
    assert.equal(rules.ignores('src/app.ts', false), false);
    assert.equal(rules.ignores('#literal', false), true);
  });

  it('re-includes with "!" and lets the last matching rule win', () => {
    assert.equal(rules.ignores('keep.log', false), false);
    assert.equal(rules.ignores('a/keep.log', false), false);
  });

  it('anchors patterns with a "/" to their folder', () => {
    assert.equal(rules.ignores('build', true), true);
    assert.equal(rules.ignores('src/build', true), false);
    assert.equal(rules.ignores('docs/generated', true), true);
    assert.equal(rules.ignores('x/docs/generated', true), false);
  });

  it('applies a nested file below its folder only, overriding the root', () => {
    assert.equal(rules.ignores('pkg/a.tmp', false), true);
    assert.equal(rules.ignores('a.tmp', false), false);
    assert.equal(rules.ignores('pkg/important.log', false), false);
    assert.equal(rules.ignores('pkg/other.log', false), true);
  });
});
