import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateFolderProblem, readPrivateFile, writePrivateFile } from '../../../src/config/private-files';
import { skipBecause } from '../../support/skip-reasons';

/** A user id that is not ours (nobody's), for files "another user" made: chown needs root. */
const OTHER_UID = 65534;
const AS_ROOT = process.getuid?.() === 0 ? undefined : 'needs root to give files to another user (chown); CI runs as root';

describe('private files: what crow trusts from disk is its own', () => {
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'crow-private-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const mode = (path: string): number => lstatSync(path).mode & 0o7777;
  /** A folder under `base` with the given mode (set after creation, so the umask does not narrow it). */
  const folder = (name: string, folderMode: number): string => {
    const path = join(base, name);
    mkdirSync(path, { recursive: true });
    chmodSync(path, folderMode);
    return path;
  };

  describe('folders', () => {
    it('makes a missing folder, with its missing parents, for this user only', () => {
      const wanted = join(base, 'cache', 'crow-agent', 'compile-cache');
      assert.equal(privateFolderProblem(wanted, { create: true }), undefined);
      assert.equal(mode(wanted), 0o700);
      assert.equal(mode(join(base, 'cache')), 0o700);
    });

    it('passes a missing folder it is not asked to make, and does not make it', () => {
      assert.equal(privateFolderProblem(join(base, 'not-yet')), undefined);
      assert.equal(existsSync(join(base, 'not-yet')), false);
    });

    it('makes a folder of this user that others may only read private again', () => {
      const wanted = folder('sessions', 0o755);
      assert.equal(privateFolderProblem(wanted), undefined);
      assert.equal(mode(wanted), 0o700);
    });

    it('refuses a folder of this user that others may write in, unless it is a cache, which is emptied', () => {
      const wanted = folder('shared', 0o777);
      writeFileSync(join(wanted, 'planted'), 'theirs');
      assert.match(privateFolderProblem(wanted) ?? '', /can be written by other users \(mode 777\)/);
      assert.ok(existsSync(join(wanted, 'planted')), 'a data folder is refused, never emptied');
      assert.equal(privateFolderProblem(wanted, { disposable: true }), undefined);
      assert.equal(mode(wanted), 0o700);
      assert.equal(existsSync(join(wanted, 'planted')), false);
    });

    it('refuses a folder of another user, and one inside a folder of another user', function () {
      if (AS_ROOT) skipBecause(this, AS_ROOT);
      const theirs = folder('theirs', 0o700);
      chownSync(theirs, OTHER_UID, OTHER_UID);
      assert.match(privateFolderProblem(theirs) ?? '', new RegExp(`belongs to user ${OTHER_UID}, not to you`));
      const above = folder('their-home/.cache', 0o755);
      chownSync(join(base, 'their-home'), OTHER_UID, OTHER_UID);
      assert.match(privateFolderProblem(join(above, 'crow-agent'), { create: true }) ?? '', /their-home belongs to user 65534, who could replace what Crow keeps inside it/);
      assert.equal(existsSync(join(above, 'crow-agent')), false, 'nothing is made below it');
    });

    it('refuses a folder below one others may write in, unless that one is sticky (/tmp) or its group is only this user\'s own', () => {
      const open = folder('open', 0o777);
      assert.match(privateFolderProblem(join(open, 'crow-agent'), { create: true }) ?? '', /open can be written by other users \(mode 777\)/);
      assert.equal(existsSync(join(open, 'crow-agent')), false);
      const sticky = folder('sticky', 0o1777);
      assert.equal(privateFolderProblem(join(sticky, 'crow-agent'), { create: true }), undefined);
      const ownGroup = folder('own-group', 0o775);
      chownSync(ownGroup, process.getuid!(), process.getgid!());
      assert.equal(privateFolderProblem(join(ownGroup, 'crow-agent'), { create: true }), undefined);
    });

    it('refuses a folder below one a group of other users may write in', function () {
      if (AS_ROOT) skipBecause(this, AS_ROOT);
      const grouped = folder('grouped', 0o775);
      chownSync(grouped, process.getuid!(), OTHER_UID);
      assert.match(privateFolderProblem(join(grouped, 'crow-agent'), { create: true }) ?? '', /grouped can be written by other users \(mode 775\)/);
    });

    it('follows a link only this user could have made, and checks where it leads', function () {
      const real = folder('real/crow-agent', 0o700);
      symlinkSync(join(base, 'real'), join(base, 'linked'));
      assert.equal(privateFolderProblem(join(base, 'linked', 'crow-agent')), undefined, 'a link in a safe folder, to a safe folder');
      const open = folder('open', 0o777);
      symlinkSync(join(base, 'real'), join(open, 'planted'));
      assert.match(privateFolderProblem(join(open, 'planted', 'crow-agent')) ?? '', /open can be written by other users/, 'a link others could have made');
      const unsafe = folder('open/target/crow-agent', 0o700);
      chmodSync(join(base, 'open'), 0o777);
      symlinkSync(join(base, 'open', 'target'), join(base, 'to-open'));
      assert.match(privateFolderProblem(join(base, 'to-open', 'crow-agent')) ?? '', /open can be written by other users/, 'a link to a folder others can change');
      assert.ok(statSync(real).isDirectory() && statSync(unsafe).isDirectory());
    });

    it('refuses a file where a folder should be', () => {
      writeFileSync(join(base, 'file'), '');
      assert.match(privateFolderProblem(join(base, 'file')) ?? '', /is not a folder/);
    });
  });

  describe('files', () => {
    it("reads this user's own 0600 file, and says when there is none", () => {
      writePrivateFile(join(base, 'cache'), 'kept');
      assert.equal(mode(join(base, 'cache')), 0o600);
      const read = readPrivateFile(join(base, 'cache'));
      assert.ok('bytes' in read);
      assert.equal(read.bytes.toString(), 'kept');
      assert.deepEqual(readPrivateFile(join(base, 'none')), { missing: true });
    });

    it('refuses a file others may read or write, a link, a FIFO and a folder', () => {
      writeFileSync(join(base, 'loose'), 'planted');
      chmodSync(join(base, 'loose'), 0o644);
      assert.match(problemOf(join(base, 'loose')), /can be used by other users \(mode 644\)/);
      writeFileSync(join(base, 'target'), 'planted', { mode: 0o600 });
      symlinkSync(join(base, 'target'), join(base, 'link'));
      assert.match(problemOf(join(base, 'link')), /is a link/);
      execFileSync('mkfifo', [join(base, 'fifo')]);
      chmodSync(join(base, 'fifo'), 0o600);
      assert.match(problemOf(join(base, 'fifo')), /is not a regular file/, 'opened without waiting for a writer');
      mkdirSync(join(base, 'folder'), { mode: 0o700 });
      assert.match(problemOf(join(base, 'folder')), /is not a regular file/);
    });

    it('refuses a file of another user', function () {
      if (AS_ROOT) skipBecause(this, AS_ROOT);
      writeFileSync(join(base, 'theirs'), 'planted', { mode: 0o600 });
      chownSync(join(base, 'theirs'), OTHER_UID, OTHER_UID);
      assert.match(problemOf(join(base, 'theirs')), /belongs to user 65534, not to you/);
    });

    it('writes a new file in place of a link, never through it', () => {
      writeFileSync(join(base, 'elsewhere'), 'untouched');
      symlinkSync(join(base, 'elsewhere'), join(base, 'cache'));
      writePrivateFile(join(base, 'cache'), 'ours');
      assert.equal(readFileSync(join(base, 'elsewhere'), 'utf8'), 'untouched');
      assert.ok(lstatSync(join(base, 'cache')).isFile());
      assert.equal(readFileSync(join(base, 'cache'), 'utf8'), 'ours');
      assert.equal(mode(join(base, 'cache')), 0o600);
    });
  });
});

function problemOf(file: string): string {
  const read = readPrivateFile(file);
  assert.ok('problem' in read, `${file} was taken: ${JSON.stringify(read)}`);
  return read.problem;
}
