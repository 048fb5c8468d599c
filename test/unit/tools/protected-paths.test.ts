import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProtectedPaths } from '../../../src/tools/protected-paths';
import { tempDir } from './temp-workspace';

describe('protected paths', () => {
  let folder: { dir: string; remove: () => void };
  let root: string;
  let home: string;
  beforeEach(() => {
    folder = tempDir('crow-protected-');
    root = path.join(folder.dir, 'project');
    home = path.join(folder.dir, 'home');
    fs.mkdirSync(path.join(root, '.git'), { recursive: true });
    fs.mkdirSync(home);
  });
  afterEach(() => folder.remove());
  const found = (paths: ProtectedPaths, ...targets: string[]) => paths.find(targets.map((target) => ({ path: target })));

  it('protects .git, .crow and .vscode at any depth, however the path is spelled', () => {
    const paths = new ProtectedPaths({ root, home });
    const targets = ['.git/config', '.git', 'vendor/lib/.git/hooks/pre-commit', '.crow/config.toml', 'a/../.vscode/tasks.json', '.GIT/config', '.git./config', path.join(root, '.crow/agents/x.md')];
    assert.deepEqual(found(paths, ...targets), targets);
    assert.deepEqual(found(paths, 'src/git.ts', '.github/workflows/ci.yml', '.gitignore', 'docs/.crowd/x'), []);
  });

  it("asks for git's code paths at the first check, once, and protects them from then on", () => {
    let asked = 0;
    const paths = new ProtectedPaths({ root, home, guarded: () => (asked++, [path.join(root, '.husky')]) });
    assert.equal(asked, 0, 'nothing is read before a path is checked');
    assert.deepEqual(found(paths, '.husky/pre-commit', 'src/index.ts'), ['.husky/pre-commit']);
    assert.ok(paths.isProtected(path.join(root, '.husky')));
    assert.equal(asked, 1);
  });

  it('looks through symlinks and resolves relative to the folders a command works in', () => {
    fs.symlinkSync(path.join(root, '.git'), path.join(root, 'link'));
    const paths = new ProtectedPaths({ root, home });
    assert.deepEqual(found(paths, 'link/config'), ['link/config']);
    assert.deepEqual(paths.find([{ path: 'config' }], [{ path: '.' }, { path: '.git' }]), ['config']);
    assert.deepEqual(paths.find([{ path: 'config' }], [{ path: 'src' }]), []);
  });

  it("protects the user's config folder wherever it is, with ~ expanded only where the shell would", () => {
    const configHome = path.join(home, '.config', 'crow-agent');
    const paths = new ProtectedPaths({ root, home, configHome });
    assert.deepEqual(paths.find([{ path: '~/.config/crow-agent/config.toml', tilde: true }]), ['~/.config/crow-agent/config.toml']);
    assert.deepEqual(paths.find([{ path: '~/.config/crow-agent/config.toml', tilde: false }]), [], 'a quoted ~ is a folder named ~');
    const inside = new ProtectedPaths({ root, home, configHome: path.join(root, 'settings') });
    assert.deepEqual(found(inside, 'settings/config.toml'), ['settings/config.toml']);
  });

  it('judges only the part below the workspace root, so a workspace inside a .vscode folder still works', () => {
    const nested = path.join(folder.dir, '.vscode', 'extensions', 'mine');
    fs.mkdirSync(nested, { recursive: true });
    const paths = new ProtectedPaths({ root: nested, home });
    assert.deepEqual(found(paths, 'src/extension.ts'), []);
    assert.deepEqual(found(paths, '.vscode/launch.json'), ['.vscode/launch.json']);
  });

  it('protects where a .crow, .git or .vscode link at the root leads, even where it leads nowhere yet', () => {
    fs.mkdirSync(path.join(root, 'cfg'));
    fs.symlinkSync('cfg', path.join(root, '.crow'));
    fs.symlinkSync('missing/vsc', path.join(root, '.vscode'));
    const paths = new ProtectedPaths({ root, home });
    assert.deepEqual(found(paths, 'cfg/config.toml', 'missing/vsc/tasks.json', 'missing/other.txt', 'src/a.ts'), ['cfg/config.toml', 'missing/vsc/tasks.json']);
  });

  it("protects the home's dotfiles and config folders when the workspace holds the home, and nothing else of it", () => {
    const paths = new ProtectedPaths({ root: folder.dir, home });
    assert.deepEqual(found(paths, 'home/.bashrc', 'home/.ssh/authorized_keys', 'home/.config/x', 'home/project/a.ts', 'home/notes.txt'), ['home/.bashrc', 'home/.ssh/authorized_keys', 'home/.config/x']);
    assert.deepEqual(paths.find([{ path: '~/.gitconfig', tilde: true }]), ['~/.gitconfig']);
    assert.deepEqual(found(new ProtectedPaths({ root, home }), path.join(home, '.bashrc')), [], 'a workspace beside the home leaves it to the sandbox and the workspace bounds');
  });
});
