import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfinedFolder, LinkRefusedError, OutsideFolderError } from '../../../src/tools/confined-folder';
import { tempDir } from './temp-workspace';

describe('ConfinedFolder: Crow\'s own changes never leave the folder', () => {
  let root: string;
  let outside: string;
  let cleanups: Array<() => void>;

  beforeEach(() => {
    const inner = tempDir('crow-confined-');
    const outer = tempDir('crow-outside-');
    cleanups = [inner.remove, outer.remove];
    root = inner.dir;
    outside = outer.dir;
    fs.writeFileSync(path.join(outside, 'notes.txt'), 'the person\'s own notes');
  });
  afterEach(() => cleanups.forEach((remove) => remove()));

  const at = (rel: string): string => path.join(root, rel);
  const outsideIntact = (): void => assert.equal(fs.readFileSync(path.join(outside, 'notes.txt'), 'utf8'), 'the person\'s own notes');

  function refusedThrough(link: string, outsideToo = true) {
    return (err: unknown): boolean => {
      assert.ok(err instanceof LinkRefusedError, `expected a LinkRefusedError, got ${String(err)}`);
      assert.equal(err.link, link);
      assert.equal(err.outside, outsideToo);
      assert.match(err.message, /nothing was changed through it/);
      return true;
    };
  }

  it('writes a file, making the folders on the way, with the mode asked for a new file', async () => {
    const folder = new ConfinedFolder(root);
    await folder.writeFile('a/b/c.txt', 'hello', { mode: 0o600 });
    assert.equal(fs.readFileSync(at('a/b/c.txt'), 'utf8'), 'hello');
    assert.equal(fs.statSync(at('a/b/c.txt')).mode & 0o777, 0o600);
    await folder.writeFile(at('a/b/c.txt'), 'again');
    assert.equal(fs.readFileSync(at('a/b/c.txt'), 'utf8'), 'again', 'an absolute path inside works too');
  });

  it('does not delete a file through a folder that became a link out of the workspace (the undo break B1)', async () => {
    fs.symlinkSync(outside, at('cache'));
    const folder = new ConfinedFolder(root, 'never');
    await assert.rejects(folder.remove('cache/notes.txt'), refusedThrough('cache'));
    await assert.rejects(new ConfinedFolder(root, 'inside').remove('cache/notes.txt'), refusedThrough('cache'));
    outsideIntact();
  });

  it('refuses every kind of change through a link out, and leaves the outside as it was', async () => {
    fs.symlinkSync(outside, at('cache'));
    const modeBefore = fs.statSync(path.join(outside, 'notes.txt')).mode;
    const folder = new ConfinedFolder(root);
    await assert.rejects(folder.writeFile('cache/notes.txt', 'pwned'), refusedThrough('cache'));
    await assert.rejects(folder.writeFile('cache/new/deep.txt', 'pwned'), refusedThrough('cache'));
    await assert.rejects(folder.makeFolders('cache/made'), refusedThrough('cache'));
    await assert.rejects(folder.symlink('cache/link', '/etc/passwd'), refusedThrough('cache'));
    await assert.rejects(folder.setMode('cache/notes.txt', 0o777), refusedThrough('cache'));
    await assert.rejects(folder.removeEmptyFolder('cache/x'), refusedThrough('cache'));
    fs.writeFileSync(at('mine.txt'), 'mine');
    await assert.rejects(folder.rename('mine.txt', 'cache/stolen.txt'), refusedThrough('cache'));
    await assert.rejects(folder.rename('cache/notes.txt', 'here.txt'), refusedThrough('cache'));
    outsideIntact();
    assert.deepEqual(fs.readdirSync(outside), ['notes.txt']);
    assert.equal(fs.statSync(path.join(outside, 'notes.txt')).mode, modeBefore);
  });

  it('refuses a link out as the last component too: writing through it, and its mode; removing it removes only the link', async () => {
    fs.symlinkSync(path.join(outside, 'notes.txt'), at('notes.txt'));
    const folder = new ConfinedFolder(root);
    await assert.rejects(folder.writeFile('notes.txt', 'pwned'), refusedThrough('notes.txt'));
    await assert.rejects(folder.setMode('notes.txt', 0o777), { code: 'ELOOP' });
    assert.equal(await folder.remove('notes.txt'), true);
    assert.equal(fs.existsSync(at('notes.txt')), false);
    outsideIntact();
  });

  it('follows a link that stays inside when links may be followed, and refuses it when they may not', async () => {
    fs.mkdirSync(at('real'));
    fs.symlinkSync('real', at('alias'));
    await new ConfinedFolder(root, 'inside').writeFile('alias/x.txt', 'through the alias');
    assert.equal(fs.readFileSync(at('real/x.txt'), 'utf8'), 'through the alias');
    await assert.rejects(new ConfinedFolder(root, 'never').writeFile('alias/y.txt', 'no'), refusedThrough('alias', false));
    assert.equal(fs.existsSync(at('real/y.txt')), false);
  });

  it('follows a chain of links inside, but not one whose last hop leaves', async () => {
    fs.mkdirSync(at('deep/real'), { recursive: true });
    fs.symlinkSync('deep', at('one'));
    fs.symlinkSync('../one/real', at('deep/two'));
    const folder = new ConfinedFolder(root);
    await folder.writeFile('deep/two/f.txt', 'ok');
    assert.equal(fs.readFileSync(at('deep/real/f.txt'), 'utf8'), 'ok');
    fs.symlinkSync(outside, at('deep/three'));
    fs.symlinkSync('deep/three', at('four'));
    await assert.rejects(folder.writeFile('four/notes.txt', 'pwned'), refusedThrough('deep/three'));
    outsideIntact();
  });

  it('refuses a path outside as written: absolute elsewhere, or .. past the root', async () => {
    const folder = new ConfinedFolder(root);
    await assert.rejects(folder.writeFile(path.join(outside, 'x.txt'), 'x'), OutsideFolderError);
    await assert.rejects(folder.remove('../notes.txt'), OutsideFolderError);
    await assert.rejects(folder.remove('a/../../notes.txt'), OutsideFolderError);
    outsideIntact();
  });

  it('removes files and links, and empty folders only; says false when nothing was there', async () => {
    const folder = new ConfinedFolder(root);
    fs.mkdirSync(at('d/e'), { recursive: true });
    fs.writeFileSync(at('d/e/f'), 'x');
    assert.equal(await folder.removeEmptyFolder('d/e'), false, 'not empty');
    assert.equal(await folder.remove('d/e/f'), true);
    assert.equal(await folder.remove('d/e/f'), false);
    assert.equal(await folder.remove('missing/f'), false);
    assert.equal(await folder.removeEmptyFolder('d/e'), true);
    assert.equal(fs.existsSync(at('d/e')), false);
  });

  it('tells what stands at a path without following it, and finds the first link on the way', async () => {
    fs.mkdirSync(at('dir'));
    fs.writeFileSync(at('dir/file'), '');
    fs.symlinkSync(outside, at('dir/out'));
    const folder = new ConfinedFolder(root, 'never');
    assert.equal(await folder.kind('dir'), 'folder');
    assert.equal(await folder.kind('dir/file'), 'file');
    assert.equal(await folder.kind('dir/out'), 'link');
    assert.equal(await folder.kind('dir/missing'), 'absent');
    assert.equal(await folder.kind('dir/file/below'), 'absent');
    assert.deepEqual(await folder.linkOnTheWay('dir/out/notes.txt'), { link: 'dir/out', target: outside });
    assert.equal(await folder.linkOnTheWay('dir/out'), undefined, 'the path itself is no way through');
    assert.equal(await folder.linkOnTheWay('dir/file'), undefined);
  });

  it('makes a file where a file was a folder, and the other way round, only as asked', async () => {
    const folder = new ConfinedFolder(root, 'never');
    fs.writeFileSync(at('x'), 'a file');
    await assert.rejects(folder.writeFile('x/y.txt', 'under a file'), { code: 'ENOTDIR' });
    assert.equal(fs.readFileSync(at('x'), 'utf8'), 'a file');
    fs.mkdirSync(at('z'));
    await assert.rejects(folder.writeFile('z', 'over a folder'), { code: 'EISDIR' });
    assert.ok(fs.statSync(at('z')).isDirectory());
  });

  it('keeps working in the folder it opened even when the path is swapped for a link meanwhile', async () => {
    fs.mkdirSync(at('cache'));
    const folder = new ConfinedFolder(root, 'never');
    // Renaming inside the folder: the destination folder is reached and held while the source is reached.
    fs.writeFileSync(at('cache/mine.txt'), 'mine');
    await folder.rename('cache/mine.txt', 'kept.txt');
    assert.equal(fs.readFileSync(at('kept.txt'), 'utf8'), 'mine');
    fs.renameSync(at('cache'), at('cache-old'));
    fs.symlinkSync(outside, at('cache'));
    await assert.rejects(folder.writeFile('cache/notes.txt', 'pwned'), refusedThrough('cache'));
    outsideIntact();
  });
});
