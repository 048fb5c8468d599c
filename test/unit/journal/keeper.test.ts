/**
 * The folder keeper's socket, attacked from both ends: a keeper answers
 * only a well-formed request for its own folder and outlives every bad
 * one; a run takes nothing from a keeper but a well-formed snapshot id,
 * and uses no socket outside Crow's private keepers folder. Either way,
 * the tree a run records is the tree of the workspace.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../../../src/journal/git-snapshots';
import { serveKeeper, type KeeperEnd } from '../../../src/journal/keeper';
import { KeeperLink } from '../../../src/journal/keeper-client';
import { keeperSocket, keepersFolder } from '../../../src/journal/keeper-socket';

/** Sends raw bytes to a socket; what comes back before it closes. */
function exchange(socket: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let answer = '';
    connection.on('connect', () => connection.write(bytes));
    connection.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    connection.on('close', () => resolve(answer));
    connection.on('error', reject);
  });
}

/** A launch that never starts anything: these tests start their keepers in-process. */
const NO_LAUNCH = { command: '/nonexistent/crow', args: [], slowRecordMs: Number.MAX_SAFE_INTEGER };

describe('the folder keeper socket', function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  let data: string;
  let socket: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-keeper-unit-')));
    workspace = join(base, 'ws');
    data = join(base, 'data');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    socket = keeperSocket({ workspace, dataHome: data })!;
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  /** A keeper served in this process, and how to stop it and learn why it stopped. */
  function startKeeper(checkMs = 100): { stop(): Promise<KeeperEnd>; ended: Promise<KeeperEnd> } {
    const controller = new AbortController();
    const ended = serveKeeper({ workspace, dataHome: data, env: process.env, checkMs }, controller.signal);
    return {
      ended,
      stop: () => {
        controller.abort();
        return ended;
      },
    };
  }

  /** The socket appears under its name only once the keeper listens on it (keeper.ts). */
  async function listening(): Promise<void> {
    for (let i = 0; i < 500 && !existsSync(socket); i++) await new Promise((wait) => setTimeout(wait, 20));
    if (!existsSync(socket)) throw new Error('the keeper never listened');
  }

  const ownTree = (): Promise<string> => new GitSnapshotManager({ workspace, dataHome: join(base, 'own') }).track();

  it('answers a track with the tree of the workspace, and outlives garbage, an overlong line and a request for another folder', async () => {
    const keeper = startKeeper();
    await listening();
    const request = (what: object): string => `${JSON.stringify(what)}\n`;
    assert.match(await exchange(socket, 'not json\n'), /"error":"refused: not a JSON object"/);
    assert.match(await exchange(socket, request({ op: 'delete', workspace, dataHome: data })), /refused: unknown op/);
    assert.equal(await exchange(socket, `${'x'.repeat(20_000)}`), '', 'an overlong line is closed unanswered');
    assert.match(await exchange(socket, request({ op: 'track', workspace: '/etc', dataHome: data })), /this keeper serves/);
    const answer = JSON.parse(await exchange(socket, request({ op: 'track', workspace, dataHome: data }))) as { tree: string };
    assert.equal(answer.tree, await ownTree());
    writeFileSync(join(workspace, 'b.txt'), 'b\n');
    const after = JSON.parse(await exchange(socket, request({ op: 'track', workspace, dataHome: data }))) as { tree: string };
    assert.equal(after.tree, await ownTree(), 'a file made since is in the next tree');
    assert.equal(await keeper.stop(), 'signal');
  });

  it('leaves a folder to the keeper already serving it, and refuses to remove what is not a socket', async () => {
    const first = startKeeper();
    await listening();
    assert.equal(await serveKeeper({ workspace, dataHome: data, env: process.env }), 'another keeper answers');
    await first.stop();
    writeFileSync(socket, 'a file in the way');
    await assert.rejects(serveKeeper({ workspace, dataHome: data, env: process.env }), /is in the way and is not a socket/);
  });

  it('stops once its socket is removed or its workspace is gone', async () => {
    const bySocket = startKeeper();
    await listening();
    rmSync(socket);
    assert.equal(await bySocket.ended, 'socket gone');
    const byWorkspace = startKeeper();
    await listening();
    rmSync(workspace, { recursive: true });
    assert.equal(await byWorkspace.ended, 'workspace gone');
  });

  it('a run records by itself when the keeper says anything but a snapshot id', async () => {
    mkdirSync(keepersFolder(data), { recursive: true, mode: 0o700 });
    for (const reply of ['{"tree":"../../etc/passwd"}\n', '{"tree":"zz"}\n', `${'{'.repeat(10_000)}\n`, '']) {
      // resume(): a connection nobody reads never sees the asker hang up, and close() would wait for it.
      const liar: Server = createServer((connection) => connection.resume().end(reply));
      await new Promise<void>((resolve) => liar.listen(socket, resolve));
      try {
        const manager = new GitSnapshotManager({ workspace, dataHome: data, keeper: new KeeperLink({ workspace, dataHome: data }, process.env, NO_LAUNCH) });
        assert.equal(await manager.track(), await ownTree(), `after the reply ${JSON.stringify(reply.slice(0, 40))}`);
      } finally {
        await new Promise((resolve) => liar.close(resolve));
      }
    }
  });

  it('a run uses no keeper socket in a keepers folder others can write, nor anything there that is not a socket', async () => {
    mkdirSync(keepersFolder(data), { recursive: true, mode: 0o700 });
    const tree = await ownTree();
    let connections = 0;
    const keeper: Server = createServer((connection) => {
      connections++;
      connection.resume().end(`${JSON.stringify({ tree })}\n`);
    });
    await new Promise<void>((resolve) => keeper.listen(socket, resolve));
    const link = (): KeeperLink => new KeeperLink({ workspace, dataHome: data }, process.env, NO_LAUNCH);
    try {
      assert.equal(await link().track(), tree, 'a keeper in the private folder is asked');
      assert.equal(connections, 1);
      chmodSync(keepersFolder(data), 0o777);
      assert.equal(await link().track(), undefined);
      assert.equal(connections, 1, 'no request went to a socket others could have put there');
    } finally {
      await new Promise((resolve) => keeper.close(resolve));
      chmodSync(keepersFolder(data), 0o700);
    }
    writeFileSync(socket, '{"tree":"0000000000000000000000000000000000000000"}\n');
    assert.equal(await link().track(), undefined, 'a regular file is no keeper');
  });
});
