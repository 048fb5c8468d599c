import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NestedRepositories } from '../../../src/tools/nested-repositories';
import { tempDir } from './temp-workspace';

/** touch(1): sets times to the nanosecond, which Node's utimes cannot. */
const touch = (...args: string[]): void => void execFileSync('touch', args);

/** How long a folder must stand unchanged before its listing is kept, here (2 s by default, for coarse clocks). */
const STILL_MS = 100;
/** Longer than that. */
const SETTLED_MS = 150;

describe('NestedRepositories: the repositories inside a workspace that a sandboxed command must not change', () => {
  let root: string;
  let remove: () => void;
  /** Folders read with readdir since the last reset, relative to the root. */
  let read: string[];
  const realReaddir = fs.promises.readdir;

  beforeEach(() => {
    ({ dir: root, remove } = tempDir('crow-nested-'));
    read = [];
    fs.promises.readdir = (async (folder: fs.PathLike, options?: unknown) => {
      read.push(path.relative(root, String(folder)) || '.');
      return realReaddir(folder, options as { withFileTypes: true });
    }) as typeof fs.promises.readdir;
  });
  afterEach(() => {
    fs.promises.readdir = realReaddir;
    remove();
  });

  const make = (...paths: string[]): void => {
    for (const entry of paths) {
      if (entry.endsWith('/')) fs.mkdirSync(path.join(root, entry), { recursive: true });
      else {
        fs.mkdirSync(path.dirname(path.join(root, entry)), { recursive: true });
        fs.writeFileSync(path.join(root, entry), 'gitdir: elsewhere\n');
      }
    }
  };
  const found = async (nested: NestedRepositories): Promise<string[]> => (await nested.find()).map((entry) => path.relative(root, entry)).sort();

  it('finds .git folders and .git files one and two levels down, not the root\'s own, not deeper, not in node_modules or hidden folders', async () => {
    make('.git/', 'vendor/.git/', 'libs/core/.git/', 'libs/worktree/.git', 'a/b/c/.git/', 'node_modules/pkg/.git/', '.cache/x/.git/', 'plain/file.txt');
    assert.deepEqual(await found(new NestedRepositories(root, STILL_MS)), ['libs/core/.git', 'libs/worktree/.git', 'vendor/.git']);
  });

  it('reads at most 400 folders however many there are', async () => {
    for (let i = 0; i < 450; i++) make(`f${String(i).padStart(3, '0')}/`);
    await new NestedRepositories(root, STILL_MS).find();
    assert.equal(read.length, 400);
  });

  it('looks into at most 10,000 subfolders however many one folder holds', async () => {
    for (let i = 0; i < 10_050; i++) fs.mkdirSync(path.join(root, 'wide', `d${i}`, '.git'), { recursive: true });
    const nested = await found(new NestedRepositories(root, STILL_MS));
    assert.ok(nested.length >= 9_990 && nested.length < 10_000, `past the bound, repositories stay writable: ${nested.length} of 10,050 found`);
  });

  it('finds a repository made after a look, and forgets one removed, whether or not the folders had stood still', async () => {
    make('libs/', 'src/');
    const nested = new NestedRepositories(root, STILL_MS);
    assert.deepEqual(await found(nested), []);
    make('libs/fresh/.git/');
    assert.deepEqual(await found(nested), ['libs/fresh/.git'], 'made in a folder changed just now');
    await sleep(SETTLED_MS);
    assert.deepEqual(await found(nested), ['libs/fresh/.git']);
    make('src/late/.git/', 'top/.git/');
    fs.rmSync(path.join(root, 'libs/fresh'), { recursive: true });
    assert.deepEqual(await found(nested), ['src/late/.git', 'top/.git'], 'made and removed in folders whose listings were kept');
  });

  it('reads again only the folders that changed since their listing was kept', async () => {
    make('a/', 'b/', 'c/x/');
    await sleep(SETTLED_MS);
    const nested = new NestedRepositories(root, STILL_MS);
    await nested.find();
    assert.deepEqual(read.sort(), ['.', 'a', 'b', 'c']);
    read = [];
    await nested.find();
    assert.deepEqual(read, [], 'nothing changed: nothing read');
    make('b/repo/.git/');
    assert.deepEqual(await found(nested), ['b/repo/.git']);
    assert.deepEqual(read, ['b'], 'only the folder that changed');
  });

  it('is not fooled by a folder whose modification time was set back after a repository was made in it', async () => {
    make('vendor/');
    await sleep(SETTLED_MS);
    const nested = new NestedRepositories(root, STILL_MS);
    assert.deepEqual(await found(nested), []);
    const vendor = path.join(root, 'vendor');
    const saved = path.join(path.dirname(root), `${path.basename(root)}-times`);
    touch('-r', vendor, saved);
    const before = fs.statSync(vendor, { bigint: true }).mtimeNs;
    make('vendor/lib/.git/');
    // Its times put back to the nanosecond, as a command could; only the kernel moves a folder's ctime.
    touch('-r', saved, vendor);
    fs.rmSync(saved);
    assert.equal(fs.statSync(vendor, { bigint: true }).mtimeNs, before, 'its modification time is what it was');
    assert.deepEqual(await found(nested), ['vendor/lib/.git']);
  });

  it('a look readied ahead is what the command\'s own look builds on: nothing read twice', async () => {
    make('a/', 'b/');
    await sleep(SETTLED_MS);
    const nested = new NestedRepositories(root, STILL_MS);
    nested.prepare();
    nested.prepare();
    assert.deepEqual(await found(nested), []);
    assert.deepEqual(read.sort(), ['.', 'a', 'b'], 'each folder read once, by the look readied ahead');
  });
});
