import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitEnvironment, readRepositoryGit, readRepositoryGitSync, repositoryGitOf, safeGitArgs } from '../../../src/tools/repository-git';
import { ProtectedPaths } from '../../../src/tools/protected-paths';

describe('Crow\'s git in a repository it does not control', () => {
  let root: string;
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: join(root, '.cfg') });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, env: env(), encoding: 'utf8' });

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-repo-git-')));
    git('init', '-q');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('turns off every driver and hook the config names, and knows the paths it runs or reads', async () => {
    git('config', 'core.hooksPath', '.husky');
    git('config', 'filter.Evil.clean', './scripts/clean.sh --fast');
    git('config', 'diff.pics.textconv', 'exiftool');
    git('config', 'merge.ours.driver', '"tools/merge driver.sh" %O %A');
    git('config', 'hook.lint.command', './lint.sh');
    git('config', 'include.path', '../shared.gitconfig');
    writeFileSync(join(root, 'shared.gitconfig'), '[core]\n\tfsmonitor = .tools/fsmon\n');
    const repository = await readRepositoryGit(root, env());
    assert.deepEqual(readRepositoryGitSync(root, env()), repository, 'both ways read the same');
    for (const setting of ['filter.Evil.clean=', 'filter.Evil.smudge=', 'filter.Evil.process=', 'filter.Evil.required=false', 'diff.pics.textconv=cat', 'merge.ours.driver=', 'hook.lint.enabled=false', 'hook.lint.event=']) {
      assert.ok(repository.overrides.includes(setting), `${setting} in ${repository.overrides.join(' ')}`);
    }
    for (const path of ['.husky', 'scripts/clean.sh', 'tools/merge driver.sh', 'lint.sh', 'shared.gitconfig', '.tools/fsmon', '.git/config']) {
      assert.ok(repository.codePaths.includes(join(root, path)), `${path} in ${repository.codePaths.join(' ')}`);
    }
    assert.ok(!repository.codePaths.some((path) => path.endsWith('exiftool')), 'a program found on PATH is no path of the repository');
  });

  it('runs nothing the repository names: hooks, fsmonitor and filters stay off', async () => {
    git('config', 'user.email', 'a@b.c');
    git('config', 'user.name', 'A');
    writeFileSync(join(root, 'a.txt'), 'one\n');
    writeFileSync(join(root, '.gitattributes'), 'a.txt filter=evil\n');
    git('add', '.');
    git('commit', '-qm', 'one');
    mkdirSync(join(root, '.husky'));
    for (const hook of ['post-checkout', 'reference-transaction']) {
      writeFileSync(join(root, '.husky', hook), `#!/bin/sh\ntouch '${join(root, `ran-${hook}`)}'\n`);
      chmodSync(join(root, '.husky', hook), 0o755);
    }
    git('config', 'core.hooksPath', '.husky');
    git('config', 'core.fsmonitor', `touch '${join(root, 'ran-fsmonitor')}'; false`);
    git('config', 'filter.evil.clean', `touch '${join(root, 'ran-clean')}'; cat`);
    git('config', 'filter.evil.required', 'true');
    writeFileSync(join(root, 'a.txt'), 'two\n');
    const repository = await readRepositoryGit(root, env());
    const safe = (...args: string[]) => execFileSync('git', safeGitArgs(repository, args), { cwd: root, env: gitEnvironment(env()), encoding: 'utf8' });
    safe('switch', '-q', '-c', 'feature');
    safe('status', '--porcelain');
    safe('diff', '--stat');
    assert.deepEqual(['post-checkout', 'reference-transaction', 'fsmonitor', 'clean'].filter((name) => existsSync(join(root, `ran-${name}`))), []);
  });

  it('refuses a driver name no override can spell, saying what to do', () => {
    const listing = `file:.git/config\0filter.a=b.clean\n./x\0`;
    assert.match(repositoryGitOf(listing, root, env()).problem ?? '', /names a filter "a=b" that Crow cannot turn off .*rename it, or remove it/);
  });

  it('gives git no credential and no GIT_* variable, and never a prompt', () => {
    const scrubbed = gitEnvironment({ PATH: '/bin', OPENAI_API_KEY: 'k', GH_TOKEN: 't', GIT_DIR: '/elsewhere', GIT_EXTERNAL_DIFF: 'x', CORP: 'c' }, ['CORP']);
    assert.deepEqual(scrubbed, { PATH: '/bin', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: ':' });
  });

  it('protects what git runs or reads like .git', () => {
    const paths = new ProtectedPaths({ root, guarded: [join(root, '.husky'), join(root, 'shared.gitconfig')] });
    assert.deepEqual(paths.find([{ path: '.husky/pre-commit' }, { path: 'shared.gitconfig' }, { path: 'src/a.ts' }]), ['.husky/pre-commit', 'shared.gitconfig']);
  });
});
