import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GitSnapshotManager, type GitSnapshotOptions } from '../../../src/journal/git-snapshots';
import { RestoreError } from '../../../src/journal/snapshot-restore';
import { assertPromptly } from '../../support/promptly';

describe('GitSnapshotManager', () => {
  let base: string;
  let ws: string;
  let data: string;

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'crow-snap-'));
    ws = join(base, 'ws');
    data = join(base, 'data');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const manager = (options: Partial<GitSnapshotOptions> = {}): GitSnapshotManager =>
    new GitSnapshotManager({ workspace: ws, dataHome: data, ...options });
  const write = (path: string, content: string | Buffer): void => {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), content);
  };
  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');
  const exists = (path: string): boolean => existsSync(join(ws, path));
  /** The user's own git, isolated from the machine's configuration. */
  const userGit = (...args: string[]): string =>
    execFileSync('git', ['-C', ws, ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: base,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_OPTIONAL_LOCKS: '0',
        GIT_AUTHOR_NAME: 'u',
        GIT_AUTHOR_EMAIL: 'u@example.com',
        GIT_COMMITTER_NAME: 'u',
        GIT_COMMITTER_EMAIL: 'u@example.com',
      },
      encoding: 'utf8',
    });
  /** Path, content hash, mode and mtime of every file under `dir`: any write shows up. */
  const fingerprint = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .sort()
      .map((path) => {
        const stats = lstatSync(join(dir, path));
        const hash = stats.isFile() ? createHash('sha256').update(readFileSync(join(dir, path))).digest('hex') : 'dir';
        return `${path} ${hash} ${stats.mode} ${stats.mtimeMs}`;
      });

  it("records a file changed in the same second as the user's git add, the first snapshot starting from a copy of their index", async () => {
    // git compares file times in whole seconds, and re-reads a file whose size and times match its entry only when
    // the entry is as new as the index file ("racily clean"). The shadow's first index is a copy of the user's.
    const second = (): number => Math.floor(Date.now() / 1000);
    while (Date.now() % 1000 > 500) await new Promise((resolve) => setTimeout(resolve, 20));
    const start = second();
    write('src/a.js', 'a1\n');
    userGit('init', '--quiet');
    userGit('add', '-A');
    write('src/a.js', 'a2\n');
    assert.equal(second(), start, 'the add and the change fell in one second');
    // The copy is made in a later second.
    while (second() === start) await new Promise((resolve) => setTimeout(resolve, 20));
    const tree = await manager().track();
    const blob = execFileSync('git', ['--git-dir', manager().gitDir, 'cat-file', '-p', `${tree}:src/a.js`], { encoding: 'utf8' });
    assert.equal(blob, 'a2\n');
  });

  it('tracks, lists changes, diffs and restores a workspace that is not a git repository', async () => {
    write('src/a.ts', 'export const a = 1;\n');
    write('old.txt', 'old\n');
    const snapshots = manager();
    const before = await snapshots.track();
    assert.match(before, /^[0-9a-f]{40}$/);
    assert.equal(await snapshots.track(), before, 'an unchanged workspace gives the same id');
    assert.ok(snapshots.gitDir.startsWith(join(data, 'snapshots')));
    assert.equal(exists('.git'), false);

    write('src/a.ts', 'export const a = 2;\n');
    write('src/new.ts', 'new\n');
    unlinkSync(join(ws, 'old.txt'));
    assert.deepEqual(await snapshots.changes(before), [
      { path: 'old.txt', status: 'deleted' },
      { path: 'src/a.ts', status: 'modified' },
      { path: 'src/new.ts', status: 'added' },
    ]);
    const after = await snapshots.track();
    assert.deepEqual(await snapshots.changes(before, after), await snapshots.changes(before));
    const patch = await snapshots.diff(before, after);
    assert.match(patch, /^-export const a = 1;$/m);
    assert.match(patch, /^\+export const a = 2;$/m);
    assert.match(await snapshots.diff(before, undefined, ['src/a.ts']), /^diff --git a\/src\/a.ts b\/src\/a.ts$/m);
    assert.doesNotMatch(await snapshots.diff(before, undefined, ['src/a.ts']), /old\.txt/);
    assert.deepEqual(await snapshots.diffStat(before, after), [
      { path: 'old.txt', added: 0, removed: 1, binary: false },
      { path: 'src/a.ts', added: 1, removed: 1, binary: false },
      { path: 'src/new.ts', added: 1, removed: 0, binary: false },
    ]);

    assert.deepEqual(await snapshots.restore(before), [
      { path: 'src/new.ts', status: 'deleted' },
      { path: 'old.txt', status: 'added' },
      { path: 'src/a.ts', status: 'modified' },
    ]);
    assert.equal(read('src/a.ts'), 'export const a = 1;\n');
    assert.equal(read('old.txt'), 'old\n');
    assert.equal(exists('src/new.ts'), false);
    assert.deepEqual(await snapshots.changes(before), []);
    assert.deepEqual(await snapshots.restore(before), [], 'a second restore has nothing left to do');
  });

  it('compares two snapshots without reading the workspace\'s record (a prompt\'s count of changes costs no more on a huge tree)', async () => {
    write('src/a.ts', 'export const a = 1;\n');
    const snapshots = manager();
    const before = await snapshots.track();
    write('src/a.ts', 'export const a = 2;\n');
    const after = await snapshots.track();
    // The shadow's index is what grows with the tree (24 MB at 300k files): git must not read it to compare two trees.
    writeFileSync(join(snapshots.gitDir, 'index'), 'not an index');
    assert.deepEqual(await snapshots.changes(before, after), [{ path: 'src/a.ts', status: 'modified' }]);
    assert.deepEqual(await snapshots.diffStat(before, after), [{ path: 'src/a.ts', added: 1, removed: 1, binary: false }]);
    assert.match(await snapshots.diff(before, after), /^\+export const a = 2;$/m);
  });

  it('keeps an ignored build artefact and an untracked user file through an agent edit and a restore', async () => {
    userGit('init', '--quiet');
    write('.gitignore', 'build/\n');
    write('src/a.ts', 'original\n');
    userGit('add', '.');
    userGit('commit', '--quiet', '-m', 'initial');
    write('build/out.bin', randomBytes(4096));
    write('notes.txt', 'my own notes, never committed\n');
    const userStatus = userGit('status', '--porcelain', '--untracked-files=all', '--ignored');
    const userRepo = fingerprint(join(ws, '.git'));
    const artefact = fingerprint(join(ws, 'build'));
    const notes = statSync(join(ws, 'notes.txt'));

    const snapshots = manager();
    const before = await snapshots.track();
    write('src/a.ts', 'edited by the agent\n');
    write('src/new.ts', 'created by the agent\n');
    write('src/gen/deep/made.ts', 'generated\n');
    const restored = await snapshots.restore(before);

    assert.deepEqual(restored.map((change) => `${change.status} ${change.path}`).sort(), [
      'deleted src/gen/deep/made.ts',
      'deleted src/new.ts',
      'modified src/a.ts',
    ]);
    assert.equal(read('src/a.ts'), 'original\n');
    assert.equal(exists('src/new.ts'), false);
    assert.equal(exists('src/gen'), false, 'folders the agent created are gone');
    assert.deepEqual(fingerprint(join(ws, 'build')), artefact);
    assert.equal(read('notes.txt'), 'my own notes, never committed\n');
    assert.equal(statSync(join(ws, 'notes.txt')).mtimeMs, notes.mtimeMs);
    assert.equal(statSync(join(ws, 'notes.txt')).ino, notes.ino);
    assert.deepEqual(fingerprint(join(ws, '.git')), userRepo, "the user's .git is never written");
    assert.equal(userGit('status', '--porcelain', '--untracked-files=all', '--ignored'), userStatus);
  });

  it('restores only the paths it is given, files or folders', async () => {
    write('a.txt', 'a0');
    write('lib/b.txt', 'b0');
    write('lib/c.txt', 'c0');
    const snapshots = manager();
    const before = await snapshots.track();
    write('a.txt', 'a1');
    write('lib/b.txt', 'b1');
    write('lib/c.txt', 'c1');
    write('lib/d.txt', 'd1');

    assert.deepEqual(await snapshots.restore(before, ['a.txt']), [{ path: 'a.txt', status: 'modified' }]);
    assert.deepEqual([read('a.txt'), read('lib/b.txt')], ['a0', 'b1']);
    assert.deepEqual(await snapshots.restore(before, []), []);
    const fromFolder = await snapshots.restore(before, [join(ws, 'lib')]);
    assert.deepEqual(fromFolder.map((change) => change.path).sort(), ['lib/b.txt', 'lib/c.txt', 'lib/d.txt']);
    assert.deepEqual([read('lib/b.txt'), read('lib/c.txt'), exists('lib/d.txt')], ['b0', 'c0', false]);
    await assert.rejects(snapshots.restore(before, ['../elsewhere']), /outside the workspace/);
  });

  it('restores binary files and line endings byte for byte, whatever .gitattributes asks', async () => {
    const binary = Buffer.concat([randomBytes(70_000), Buffer.from('\r\n\0\r\n')]);
    const crlf = Buffer.from('one\r\ntwo\nthree\r\n');
    write('.gitattributes', '* text=auto eol=crlf\n*.txt ident\n');
    write('image.bin', binary);
    write('mixed.txt', crlf);
    const snapshots = manager();
    const before = await snapshots.track();
    write('image.bin', randomBytes(100));
    write('mixed.txt', 'clobbered\n');
    await snapshots.restore(before);
    assert.ok(readFileSync(join(ws, 'image.bin')).equals(binary));
    assert.ok(readFileSync(join(ws, 'mixed.txt')).equals(crlf));
  });

  it('puts back executable bits, symlinks and a file that a folder replaced', async () => {
    write('run.sh', '#!/bin/sh\necho hi\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    write('target.txt', 'target');
    symlinkSync('target.txt', join(ws, 'link'));
    write('x', 'a file');
    const snapshots = manager();
    const before = await snapshots.track();

    chmodSync(join(ws, 'run.sh'), 0o644);
    unlinkSync(join(ws, 'link'));
    write('link', 'now a regular file');
    unlinkSync(join(ws, 'x'));
    write('x/inside.txt', 'now a folder');
    await snapshots.restore(before);

    assert.equal(statSync(join(ws, 'run.sh')).mode & 0o111, 0o111);
    assert.equal(readlinkSync(join(ws, 'link')), 'target.txt');
    assert.equal(read('x'), 'a file');
  });

  it('neither records nor touches files over the size cap, but undoes a file that grew past it', async () => {
    write('small.txt', 'small');
    write('grows.txt', 'small for now');
    write('huge-before.bin', randomBytes(5000));
    const snapshots = manager({ maxFileBytes: 1000 });
    const before = await snapshots.track();
    const hugeBefore = fingerprint(ws).find((line) => line.startsWith('huge-before.bin'));
    write('huge-after.bin', randomBytes(5000));
    write('grows.txt', randomBytes(5000));
    write('small.txt', 'edited');

    assert.deepEqual(await snapshots.changes(before), [
      { path: 'grows.txt', status: 'modified' },
      { path: 'small.txt', status: 'modified' },
    ]);
    await snapshots.restore(before);
    assert.equal(read('small.txt'), 'small');
    assert.equal(read('grows.txt'), 'small for now');
    assert.equal(lstatSync(join(ws, 'huge-after.bin')).size, 5000);
    assert.equal(fingerprint(ws).find((line) => line.startsWith('huge-before.bin')), hugeBefore);
  });

  it('never writes through a folder that became a symlink to outside the workspace', async () => {
    write('lib/x.c', 'int x;');
    const before = await manager().track();
    const outside = join(base, 'outside');
    mkdirSync(outside);
    rmSync(join(ws, 'lib'), { recursive: true });
    symlinkSync(outside, join(ws, 'lib'));
    const failure = await manager({ ignore: ['/lib'] })
      .restore(before)
      .then(() => assert.fail('expected a RestoreError'), (err: unknown) => err);
    assert.ok(failure instanceof RestoreError);
    assert.match(failure.message, /lib\/x\.c \(its folder leads outside the workspace/);
    assert.deepEqual(readdirSync(outside), []);
  });

  it('leaves nested repositories and extra ignore patterns out', async () => {
    write('vendor/lib/x.c', 'int x;');
    execFileSync('git', ['init', '--quiet', join(ws, 'vendor/lib')], { env: { PATH: process.env.PATH, HOME: base } });
    write('cache/blob', 'cached');
    write('kept.txt', 'kept');
    const snapshots = manager({ ignore: ['cache/'] });
    const before = await snapshots.track();
    write('vendor/lib/new.c', 'int y;');
    write('cache/other', 'more');
    write('kept.txt', 'changed');
    assert.deepEqual(await snapshots.changes(before), [{ path: 'kept.txt', status: 'modified' }]);
    await snapshots.restore(before);
    assert.equal(read('vendor/lib/new.c'), 'int y;');
    assert.equal(read('cache/other'), 'more');
  });

  it('never records its own data folder when it lies inside the workspace', async () => {
    write('home-file.txt', 'in a home folder opened as a workspace');
    const snapshots = manager({ dataHome: join(ws, '.local', 'share [crow]') });
    const before = await snapshots.track();
    write('home-file.txt', 'changed');
    assert.deepEqual(await snapshots.changes(before), [{ path: 'home-file.txt', status: 'modified' }]);
    assert.ok(snapshots.gitDir.startsWith(ws));
  });

  it('serializes concurrent tracks of one workspace', async () => {
    for (let i = 0; i < 50; i++) write(`f${i}.txt`, `${i}`);
    const ids = await Promise.all([manager(), manager(), manager()].flatMap((m) => [m.track(), m.track()]));
    assert.equal(new Set(ids).size, 1);
  });

  it('rejects ids that are not snapshots', async () => {
    const snapshots = manager();
    await assert.rejects(snapshots.changes('--output=/tmp/x'), /not a snapshot id/);
    await assert.rejects(snapshots.restore('0'.repeat(40)), /git diff-tree failed/);
  });

  it('partly restores and says which files it could not put back', async () => {
    write('a.txt', 'a0');
    write('b.txt', 'b0');
    const snapshots = manager({ ignore: ['*.log'] });
    const before = await snapshots.track();
    write('a.txt', 'a1');
    unlinkSync(join(ws, 'b.txt'));
    write('b.txt/kept.log', 'an ignored file keeps a folder where b.txt was');
    const failure = await snapshots.restore(before).then(
      () => assert.fail('expected a RestoreError'),
      (err: unknown) => err,
    );
    assert.ok(failure instanceof RestoreError);
    assert.deepEqual(failure.applied, [{ path: 'a.txt', status: 'modified' }]);
    assert.equal(failure.failures[0]!.path, 'b.txt');
    assert.equal(read('a.txt'), 'a0');
    assert.equal(read('b.txt/kept.log'), 'an ignored file keeps a folder where b.txt was');
  });

  describe('when git misbehaves', () => {
    let bin: string;
    beforeEach(() => {
      bin = join(base, 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'git'), `#!/bin/sh\necho $$ > "${join(base, 'git.pid')}"\nexec sleep 30\n`, { mode: 0o755 });
    });

    it('kills git promptly on abort', async () => {
      const snapshots = manager({ env: { PATH: `${bin}:/usr/bin:/bin` } });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const started = Date.now();
      await assert.rejects(snapshots.track(controller.signal), { name: 'AbortError' });
      assertPromptly(started, 'rejected the aborted git');
      const pid = Number(readFileSync(join(base, 'git.pid'), 'utf8'));
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    });

    it('stops a git command that runs past the timeout', async () => {
      const snapshots = manager({ env: { PATH: `${bin}:/usr/bin:/bin` }, gitTimeoutMs: 200 });
      await assert.rejects(snapshots.track(), /took longer than 200 ms/);
    });

    it('names git when it is not installed', async () => {
      const snapshots = manager({ env: { PATH: join(base, 'nowhere') } });
      await assert.rejects(snapshots.track(), /git was not found on PATH/);
    });
  });
});
