import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { WorkspaceError } from '../../../src/tools/workspace';
import { tempDir } from './temp-workspace';

describe('NodeWorkspace confinement', () => {
  let root: string;
  let outside: string;
  let workspace: NodeWorkspace;
  let cleanups: Array<() => void>;

  beforeEach(() => {
    const inner = tempDir('crow-root-');
    const outer = tempDir('crow-outside-');
    cleanups = [inner.remove, outer.remove];
    root = inner.dir;
    outside = outer.dir;
    fs.writeFileSync(path.join(root, 'inside.txt'), 'inside');
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    workspace = new NodeWorkspace(root);
  });

  afterEach(() => cleanups.forEach((remove) => remove()));

  async function assertRefused(action: Promise<unknown>, target: string): Promise<void> {
    await assert.rejects(action, (err: unknown) => {
      assert.ok(err instanceof WorkspaceError, `expected a WorkspaceError, got ${String(err)}`);
      assert.match(err.message, new RegExp(`"${escape(target)}"`));
      assert.match(err.message, /must stay inside the workspace root/);
      assert.ok(err.message.includes(root), 'the message names the root');
      return true;
    });
  }

  it('resolves the root through realpath', () => {
    assert.equal(workspace.root, fs.realpathSync(root));
  });

  it('refuses .. escapes, also after a detour through a subfolder', async () => {
    await assertRefused(workspace.resolve('../secret.txt'), '../secret.txt');
    await assertRefused(workspace.resolve('sub/../../x'), 'sub/../../x');
    await assertRefused(workspace.readFile('..'), '..');
  });

  it('allows .. that stays inside', async () => {
    assert.equal(await workspace.resolve('sub/../inside.txt'), path.join(root, 'inside.txt'));
  });

  it('refuses absolute paths outside the root', async () => {
    const secret = path.join(outside, 'secret.txt');
    await assertRefused(workspace.readFile(secret), secret);
    await assertRefused(workspace.writeFile(path.join(outside, 'new.txt'), 'x'), path.join(outside, 'new.txt'));
    assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false);
  });

  it('accepts absolute paths inside the root', async () => {
    const file = path.join(root, 'inside.txt');
    assert.equal(Buffer.from(await workspace.readFile(file)).toString(), 'inside');
    assert.equal(workspace.relative(file), 'inside.txt');
  });

  it('refuses reading and writing through a symlinked file that points outside', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    await assertRefused(workspace.readFile('link.txt'), 'link.txt');
    await assertRefused(workspace.writeFile('link.txt', 'pwned'), 'link.txt');
    await assertRefused(workspace.writeFileParts('link.txt', [Buffer.from('pwned')]), 'link.txt');
    await assertRefused(workspace.stat('link.txt'), 'link.txt');
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  });

  it('refuses reading and writing under a symlinked folder that points outside', async () => {
    fs.symlinkSync(outside, path.join(root, 'linkdir'));
    await assertRefused(workspace.readFile('linkdir/secret.txt'), 'linkdir/secret.txt');
    await assertRefused(workspace.writeFile('linkdir/secret.txt', 'pwned'), 'linkdir/secret.txt');
    await assertRefused(workspace.readDirectory('linkdir'), 'linkdir');
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  });

  it('refuses creating new files under a symlinked outside folder, at any depth', async () => {
    fs.symlinkSync(outside, path.join(root, 'linkdir'));
    await assertRefused(workspace.writeFile('linkdir/new.txt', 'x'), 'linkdir/new.txt');
    await assertRefused(workspace.writeFile('linkdir/a/b/new.txt', 'x'), 'linkdir/a/b/new.txt');
    await assertRefused(workspace.writeFileParts('linkdir/c/new.txt', [Buffer.from('x')]), 'linkdir/c/new.txt');
    assert.deepEqual(fs.readdirSync(outside), ['secret.txt']);
  });

  it('refuses a dangling symlink whose target would be created outside', async () => {
    fs.symlinkSync(path.join(outside, 'planted.txt'), path.join(root, 'dangling.txt'));
    await assertRefused(workspace.writeFile('dangling.txt', 'x'), 'dangling.txt');
    await assertRefused(workspace.writeFileParts('dangling.txt', [Buffer.from('x')]), 'dangling.txt');
    assert.equal(fs.existsSync(path.join(outside, 'planted.txt')), false);
  });

  it('allows symlinks that stay inside the workspace', async () => {
    fs.symlinkSync(path.join(root, 'inside.txt'), path.join(root, 'alias.txt'));
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'subalias'));
    assert.equal(Buffer.from(await workspace.readFile('alias.txt')).toString(), 'inside');
    await workspace.writeFile('subalias/new.txt', 'hello');
    assert.equal(fs.readFileSync(path.join(root, 'sub', 'new.txt'), 'utf8'), 'hello');
  });

  it('refuses a working directory outside the workspace for exec', async () => {
    const signal = new AbortController().signal;
    await assertRefused(workspace.exec('pwd', { cwd: '..', timeoutMs: 5_000, signal }), '..');
  });

  it('creates parent folders, reports missing entries and lists folders sorted', async () => {
    await workspace.writeFile('deep/er/file.txt', 'x');
    assert.equal(fs.readFileSync(path.join(root, 'deep/er/file.txt'), 'utf8'), 'x');
    assert.equal(await workspace.stat('nope.txt'), undefined);
    assert.equal((await workspace.stat('deep'))?.type, 'directory');
    await workspace.writeFile('deep/b.txt', '');
    await workspace.writeFile('deep/a.txt', '');
    assert.deepEqual(await workspace.readDirectory('deep'), [
      { name: 'a.txt', type: 'file' },
      { name: 'b.txt', type: 'file' },
      { name: 'er', type: 'directory' },
    ]);
  });

  it('writes a file from parts as their joined bytes, replacing all of a longer file and creating folders', async () => {
    fs.writeFileSync(path.join(root, 'long.txt'), 'a much longer text than what replaces it\n'.repeat(1_000));
    const middle = Buffer.from('é, then more\n');
    await workspace.writeFileParts('long.txt', [Buffer.from('head: '), new Uint8Array(0), middle.subarray(0, 3), middle.subarray(3), Buffer.from('tail')]);
    assert.equal(fs.readFileSync(path.join(root, 'long.txt'), 'utf8'), 'head: é, then more\ntail');
    await workspace.writeFileParts('new/folder/empty.txt', []);
    assert.equal(fs.readFileSync(path.join(root, 'new/folder/empty.txt'), 'utf8'), '');
  });

  it('refuses a write whose folder a command swapped for a link out after the path was checked', async () => {
    fs.mkdirSync(path.join(root, 'cache'));
    // The swap lands between resolve() (the check) and the write, as a command running beside the tool could make it.
    class Racing extends NodeWorkspace {
      override async resolve(target: string): Promise<string> {
        const real = await super.resolve(target);
        fs.renameSync(path.join(root, 'cache'), path.join(root, 'cache-old'));
        fs.symlinkSync(outside, path.join(root, 'cache'));
        return real;
      }
    }
    await assert.rejects(new Racing(root).writeFile('cache/secret.txt', 'pwned'), (err: unknown) => {
      assert.ok(err instanceof WorkspaceError);
      assert.match(err.message, /Path "cache\/secret\.txt" leads outside the workspace \(cache is a link to .*\)\. Paths must stay inside the workspace root/);
      return true;
    });
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  });

  it('gives workspace-relative paths with forward slashes', () => {
    assert.equal(workspace.relative('.'), '.');
    assert.equal(workspace.relative(path.join(root, 'sub', 'x.ts')), 'sub/x.ts');
    assert.equal(workspace.relative('./sub//y.ts'), 'sub/y.ts');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
