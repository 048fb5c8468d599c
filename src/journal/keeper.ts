/**
 * A folder's keeper: a process that outlives `crow run` and keeps the
 * workspace watched between runs, as Watchman or git's fsmonitor daemon do
 * for `git status`. Each `crow run` is a new process, so without it the
 * first record of every run stats the whole tree (half a second at 100,000
 * files, two at 300,000) while the person's first command waits. The keeper
 * holds the folder's watched snapshot manager (git-snapshots.ts), and a run
 * asks it over its socket (keeper-socket.ts) for the tree as it is now: the
 * keeper edits its last tree at what the watcher saw change, in about 10 ms.
 *
 * A keeper is started by a run whose own record was slow (keeper-client.ts),
 * runs at the niceness of undo's git, writes nothing but what the run's own
 * record would (the shadow repository, sync files in `.git`), and stops by
 * itself: after IDLE_MS without a request, or as soon as its socket or its
 * workspace is gone or replaced (a test's temporary folder, a deleted
 * checkout). Its environment is the run's undo environment, with no
 * credential in it.
 */
import { chmod, lstat, rename, rm } from 'node:fs/promises';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { getPriority, setPriority } from 'node:os';
import { privateFolderProblem } from '../config/private-files';
import { realWorkspace } from '../vocabulary/workspace-key';
import { GitSnapshotManager } from './git-snapshots';
import { GIT_NICENESS } from './git-runner';
import { type KeeperIdentity, keeperSocket, keepersFolder, LineReader, parseRequest } from './keeper-socket';

/** How long a keeper nobody asks keeps watching. */
export const IDLE_MS = 15 * 60_000;
/** How often a keeper checks that its socket and workspace are still there. */
const CHECK_MS = 5_000;
/** How long a connection may take to say what it wants. */
const REQUEST_TIMEOUT_MS = 5_000;

export interface KeeperOptions {
  workspace: string;
  dataHome: string;
  /** What git runs with (the run's undo environment). */
  env: NodeJS.ProcessEnv;
  idleMs?: number;
  checkMs?: number;
}

/** Why a keeper stopped, or why it did not start. */
export type KeeperEnd = 'idle' | 'socket gone' | 'workspace gone' | 'signal' | 'another keeper answers';

/** Serves the folder until the keeper stops; resolves with why. Throws when it cannot listen (a data folder that is not private, a path too long). */
export async function serveKeeper(options: KeeperOptions, stopSignal?: AbortSignal): Promise<KeeperEnd> {
  const identity: KeeperIdentity = { workspace: realWorkspace(options.workspace), dataHome: options.dataHome };
  const socketPath = keeperSocket(identity);
  if (!socketPath) throw new Error(`the data folder ${options.dataHome} is too deep for a socket path: no keeper`);
  const problem = privateFolderProblem(keepersFolder(options.dataHome), { create: true });
  if (problem) throw new Error(problem);
  if (await answers(socketPath)) return 'another keeper answers';
  await removeStale(socketPath);
  const workspaceIno = (await lstat(identity.workspace)).ino;
  const manager = new GitSnapshotManager({ workspace: identity.workspace, dataHome: identity.dataHome, env: options.env, watch: true });
  yieldCpu();
  const server = createServer({ allowHalfOpen: true });
  const socketIno = await listenAs(server, socketPath);
  // Records under way: the keeper stops only once git has finished writing (a half-written shadow index helps nobody).
  const work = new Set<Promise<unknown>>();
  const hold = (task: Promise<unknown>): void => {
    const settled = task.catch(() => undefined).finally(() => work.delete(settled));
    work.add(settled);
  };
  // The watch and the first record start now, so the run that started the keeper finds it warm next time.
  hold(manager.track());

  return new Promise<KeeperEnd>((resolve) => {
    let idle: NodeJS.Timeout;
    let stopped = false;
    const stop = (why: KeeperEnd): void => {
      // Once: a check, the idle timer and a signal may all come.
      if (stopped) return;
      stopped = true;
      clearTimeout(idle);
      clearInterval(check);
      stopSignal?.removeEventListener('abort', onAbort);
      void shutDown(server, manager, socketPath, socketIno, work).then(() => resolve(why));
    };
    const rest = (): void => {
      clearTimeout(idle);
      // A request that ends after the keeper stopped must not wind the idle timer up again (it would hold the process for IDLE_MS).
      if (!stopped) idle = setTimeout(() => stop('idle'), options.idleMs ?? IDLE_MS);
    };
    const check = setInterval(() => {
      void stillThere(socketPath, socketIno, identity.workspace, workspaceIno).then((gone) => gone && stop(gone));
    }, options.checkMs ?? CHECK_MS);
    const onAbort = (): void => stop('signal');
    stopSignal?.addEventListener('abort', onAbort, { once: true });
    rest();
    server.on('connection', (socket) => {
      rest();
      const served = serveOne(socket, identity, manager).finally(rest);
      hold(served);
    });
  });
}

/**
 * Listens on a fresh name beside `socketPath`, made private, then renamed
 * to it: the socket appears under its name only once the keeper knows it
 * (its inode, for stillThere) and can answer. Returns that inode.
 */
async function listenAs(server: Server, socketPath: string): Promise<number> {
  const fresh = `${socketPath}.${process.pid}`;
  await rm(fresh, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(fresh, () => resolve());
  });
  // The keepers folder is private already; the socket is too, should the folder ever be opened up.
  await chmod(fresh, 0o600);
  const { ino } = await lstat(fresh);
  await rename(fresh, socketPath);
  return ino;
}

/** Reads one request and answers it. */
async function serveOne(socket: Socket, identity: KeeperIdentity, manager: GitSnapshotManager): Promise<void> {
  const line = await readLine(socket);
  if (line === undefined) {
    socket.destroy();
    return;
  }
  const request = parseRequest(line);
  if ('refused' in request) return answer(socket, { error: `refused: ${request.refused}` });
  if (request.workspace !== identity.workspace || request.dataHome !== identity.dataHome) {
    return answer(socket, { error: `this keeper serves ${identity.workspace} with the data in ${identity.dataHome}` });
  }
  try {
    answer(socket, { tree: await manager.track() });
  } catch (err) {
    answer(socket, { error: (err as Error).message });
  }
}

/** The first line the connection sends; undefined when it sends too much, too slowly, or closes first. */
function readLine(socket: Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    const reader = new LineReader();
    const done = (line: string | undefined): void => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      resolve(line);
    };
    const timer = setTimeout(() => done(undefined), REQUEST_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      const line = reader.push(chunk);
      if (line !== undefined) done(line === 'overlong' ? undefined : line);
    });
    socket.on('error', () => done(undefined));
    socket.on('end', () => done(undefined));
  });
}

function answer(socket: Socket, value: { tree: string } | { error: string }): void {
  if (socket.destroyed) return;
  socket.end(`${JSON.stringify(value)}\n`);
}

/** Whether a keeper listens on the socket already. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (alive: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(false), 1_000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Removes a socket no keeper listens on any more; refuses to remove anything else. */
async function removeStale(socketPath: string): Promise<void> {
  const stats = await lstat(socketPath).catch(() => undefined);
  if (!stats) return;
  if (!stats.isSocket()) throw new Error(`${socketPath} is in the way and is not a socket: remove it`);
  await rm(socketPath, { force: true });
}

/** Why the keeper should stop: its socket or workspace was removed or replaced; undefined while both are as it found them. */
async function stillThere(socketPath: string, socketIno: number, workspace: string, workspaceIno: number): Promise<KeeperEnd | undefined> {
  const socket = await lstat(socketPath).catch(() => undefined);
  if (socket?.ino !== socketIno) return 'socket gone';
  const root = await lstat(workspace).catch(() => undefined);
  if (!root?.isDirectory() || root.ino !== workspaceIno) return 'workspace gone';
  return undefined;
}

async function shutDown(server: Server, manager: GitSnapshotManager, socketPath: string, socketIno: number, work: Set<Promise<unknown>>): Promise<void> {
  server.close();
  await Promise.all([...work]);
  await manager.close();
  // Only its own socket: a keeper started after this one may have taken the name.
  if ((await lstat(socketPath).catch(() => undefined))?.ino === socketIno) await rm(socketPath, { force: true });
}

/** The keeper yields the CPU like undo's git: it works beside what the person waits for. */
function yieldCpu(): void {
  try {
    setPriority(Math.max(getPriority(), GIT_NICENESS));
  } catch {
    // Not allowed here: it runs at the normal priority.
  }
}
