import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type FolderRef, WorkspaceFolders } from '../../../../src/adapters/vscode/workspace/workspace-folders';
import { WorkspaceError } from '../../../../src/tools/workspace';
import { tempDir } from '../../tools/temp-workspace';

describe('WorkspaceFolders (multi-root confinement of the VS Code workspace)', () => {
  let cleanups: Array<() => void>;
  let root: string;
  let api: string;
  let outside: string;
  let folders: FolderRef[];

  function made(prefix: string, files: Record<string, string>): string {
    const { dir, remove } = tempDir(prefix);
    cleanups.push(remove);
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), content);
    }
    return dir;
  }

  beforeEach(() => {
    cleanups = [];
    root = made('crow-web-', { 'index.ts': 'web', 'shared/util.ts': 'root shared' });
    api = made('crow-api-', { 'server.ts': 'api' });
    outside = made('crow-outside-', { 'secret.txt': 'secret' });
    folders = [
      { name: 'web', path: root },
      { name: 'api', path: api },
    ];
  });
  afterEach(() => cleanups.forEach((remove) => remove()));

  const workspace = () => new WorkspaceFolders(root, () => folders);

  async function refused(action: Promise<unknown>, pattern: RegExp): Promise<void> {
    await assert.rejects(action, (err: unknown) => {
      assert.ok(err instanceof WorkspaceError, `expected a WorkspaceError, got ${String(err)}`);
      assert.match(err.message, pattern);
      return true;
    });
  }

  it('resolves relative paths against the session root first', async () => {
    assert.equal(await workspace().resolve('index.ts'), path.join(root, 'index.ts'));
    assert.equal(workspace().relative(path.join(root, 'shared/util.ts')), 'shared/util.ts');
  });

  it('lists its folders as they are now, the root first and a folder gone from disk left out (the roots MCP servers get)', () => {
    const confined = workspace();
    assert.deepEqual(confined.paths(), [root, api]);
    const added = made('crow-docs-', {});
    folders.push({ name: 'docs', path: added }, { name: 'gone', path: path.join(outside, 'no-such-folder') });
    assert.deepEqual(confined.paths(), [root, api, added]);
  });

  it('reaches another workspace folder by its name, and shows its files that way', async () => {
    const folders = workspace();
    const located = await folders.locate('api/server.ts');
    assert.equal(located.absolute, path.join(api, 'server.ts'));
    assert.equal(located.folder.root, api, 'the file is guarded by its own folder');
    assert.equal(folders.relative(path.join(api, 'server.ts')), 'api/server.ts');
    assert.equal(folders.relative(api), 'api');
  });

  it('reaches another workspace folder by absolute path', async () => {
    assert.equal(await workspace().resolve(path.join(api, 'server.ts')), path.join(api, 'server.ts'));
  });

  it("lets the root's own entry win over a folder of the same name, and then shows the other folder's files absolute", async () => {
    fs.mkdirSync(path.join(root, 'api'));
    fs.writeFileSync(path.join(root, 'api/local.ts'), 'local');
    const folders = workspace();
    assert.equal(await folders.resolve('api/local.ts'), path.join(root, 'api/local.ts'));
    assert.equal(folders.relative(path.join(api, 'server.ts')), path.join(api, 'server.ts'));
  });

  it('refuses a folder name shared by two folders, asking for an absolute path', async () => {
    const twin = made('crow-twin-', {});
    folders.push({ name: 'api', path: twin });
    await refused(workspace().resolve('api/server.ts'), /Several workspace folders are named "api".*absolute path/);
    assert.equal(workspace().relative(path.join(api, 'server.ts')), path.join(api, 'server.ts'));
  });

  it('refuses paths outside every folder: .., absolute, and symlinks out', async () => {
    const folders = workspace();
    fs.symlinkSync(outside, path.join(root, 'out'));
    await refused(folders.resolve('../../secret.txt'), /outside the workspace.*workspace folders/);
    await refused(folders.resolve(path.join(outside, 'secret.txt')), /outside the workspace/);
    await refused(folders.resolve('out/secret.txt'), /outside the workspace/);
    await refused(folders.resolve('api/../../secret.txt'), /outside the workspace/);
  });

  it('accepts a symlink from the root into another workspace folder', async () => {
    fs.symlinkSync(api, path.join(root, 'to-api'));
    const located = await workspace().locate('to-api/server.ts');
    assert.equal(located.absolute, path.join(api, 'server.ts'));
    assert.equal(located.folder.root, api);
  });

  it('with a single folder, refuses exactly as the Node backend does', async () => {
    folders = [{ name: 'web', path: root }];
    await refused(workspace().resolve('../x'), /Path "\.\.\/x" resolves to .*must stay inside the workspace root/);
  });

  it('follows folders added to the window after it was made', async () => {
    folders = [{ name: 'web', path: root }];
    const folders_ = workspace();
    await refused(folders_.resolve(path.join(api, 'server.ts')), /outside the workspace/);
    folders.push({ name: 'api', path: api });
    assert.equal(await folders_.resolve('api/server.ts'), path.join(api, 'server.ts'));
  });
});
