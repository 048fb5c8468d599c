/**
 * Which file an Apply (a code block of an answer written to a file the
 * person names) may write: inside the workspace, as written and once links
 * are followed. The same rules with Windows' paths are in
 * test/unit/tools/path-guards-win32.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { insideWorkspace } from '../../../src/host/apply-code';
import { tempDir } from '../tools/temp-workspace';

describe('the file an Apply writes', () => {
  let folder: { dir: string; remove: () => void };
  let root: string;
  beforeEach(() => {
    folder = tempDir('crow-apply-');
    root = path.join(folder.dir, 'ws');
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    fs.writeFileSync(path.join(folder.dir, 'outside.ts'), 'x');
  });
  afterEach(() => folder.remove());

  it('names a file inside the workspace relative to it, with forward slashes, however it was written', async () => {
    assert.equal(await insideWorkspace(root, 'src/app.ts'), 'src/app.ts');
    assert.equal(await insideWorkspace(root, ` ${path.join(root, 'src', 'new', 'file.ts')} `), 'src/new/file.ts');
    assert.equal(await insideWorkspace(root, 'src/../docs/a.md'), 'docs/a.md');
    assert.equal(await insideWorkspace(root, '..notes.md'), '..notes.md', 'a name starting with two dots is a file, not a way out');
  });

  it('refuses the root itself, a path past it and an absolute path elsewhere, saying what to name', async () => {
    for (const target of ['.', '../outside.ts', path.join(folder.dir, 'outside.ts'), '/etc/passwd']) {
      await assert.rejects(insideWorkspace(root, target), /is outside the workspace\. Apply only writes files inside .*; name a path relative to it/, target);
    }
    await assert.rejects(insideWorkspace(root, '  '), /Apply needs a file: name one in the code fence/);
  });

  it('refuses a path that leads out through a link, and a dangling link it cannot check', async () => {
    fs.symlinkSync(folder.dir, path.join(root, 'up'));
    await assert.rejects(insideWorkspace(root, 'up/outside.ts'), /leads outside the workspace through a symlink/);
    fs.symlinkSync(path.join(folder.dir, 'missing.ts'), path.join(root, 'dangling.ts'));
    await assert.rejects(insideWorkspace(root, 'dangling.ts'), /is a symlink to a missing file; Apply does not follow it/);
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'alias'));
    assert.equal(await insideWorkspace(root, 'alias/app.ts'), 'alias/app.ts', 'a link that stays inside is fine');
  });
});
