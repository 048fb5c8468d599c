/**
 * Who a task's container runs as (container-workspace.ts): never root,
 * and the run's folder given to that user only when Crow itself is root;
 * links in the folder are handed over as links, never followed out.
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTAINER_UID, containerUser, handOver } from '../../../src/eval/container-workspace';
import { NodeWorkspace } from '../../../src/tools/node-workspace';

describe("crow eval's container user", () => {
  it('maps a user who runs Crow to themselves (rootless podman keep-id, docker by numbers) and gives nothing away', () => {
    assert.deepEqual(containerUser('podman', { uid: 1000, gid: 1000 }), { flags: ['--userns', 'keep-id', '--env', 'HOME=/tmp'] });
    assert.deepEqual(containerUser('docker', { uid: 1001, gid: 100 }), { flags: ['--user', '1001:100', '--env', 'HOME=/tmp'] });
  });

  it('runs as a user that is not root when root runs Crow, who must own the run', () => {
    for (const engine of ['podman', 'docker'] as const) {
      assert.deepEqual(containerUser(engine, { uid: 0, gid: 0 }), { flags: ['--user', `${CONTAINER_UID}:${CONTAINER_UID}`, '--env', 'HOME=/tmp'], owner: { uid: CONTAINER_UID, gid: CONTAINER_UID } });
    }
    assert.notEqual(CONTAINER_UID, 0);
  });

  it('hands over the folder but its protected folders, and a link itself rather than what it leads to', function () {
    if (process.getuid?.() !== 0) this.skip();
    const root = mkdtempSync(join(tmpdir(), 'crow-handover-'));
    const outside = mkdtempSync(join(tmpdir(), 'crow-handover-outside-'));
    try {
      mkdirSync(join(root, 'src', 'deep'), { recursive: true });
      writeFileSync(join(root, 'src', 'deep', 'a.js'), '1');
      mkdirSync(join(root, '.git'));
      writeFileSync(join(root, '.git', 'config'), '');
      writeFileSync(join(outside, 'secret'), 'x');
      symlinkSync(join(outside, 'secret'), join(root, 'src', 'link'));
      symlinkSync(outside, join(root, 'out'));
      handOver(root, { uid: 4242, gid: 4243 });
      for (const path of ['', 'src', 'src/deep', 'src/deep/a.js', 'src/link', 'out']) {
        const stats = lstatSync(join(root, path));
        assert.deepEqual([stats.uid, stats.gid], [4242, 4243], path);
      }
      assert.equal(statSync(join(root, '.git', 'config')).uid, 0, 'protected folders stay as they are');
      assert.equal(statSync(join(root, '.git')).uid, 0);
      assert.equal(statSync(join(outside, 'secret')).uid, 0, 'what a link leads to is untouched');
      assert.equal(statSync(outside).uid, 0);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("gives what Crow's file tools make (files and the folders on the way) to the workspace's owner", async function () {
    if (process.getuid?.() !== 0) this.skip();
    const root = mkdtempSync(join(tmpdir(), 'crow-owner-'));
    try {
      writeFileSync(join(root, 'old.txt'), 'x');
      const workspace = new NodeWorkspace(root, { owner: { uid: 4242, gid: 4243 } });
      await workspace.writeFile('a/b/new.txt', 'hello');
      await workspace.writeFile('old.txt', 'changed');
      for (const path of ['a', 'a/b', 'a/b/new.txt', 'old.txt']) assert.equal(lstatSync(join(root, path)).uid, 4242, path);
      await new NodeWorkspace(root).writeFile('c/d.txt', 'mine');
      assert.equal(lstatSync(join(root, 'c', 'd.txt')).uid, 0, 'without an owner, Crow keeps what it makes');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
