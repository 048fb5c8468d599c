/**
 * A run's side of the folder's keeper (keeper.ts): ask the keeper for the
 * tree as it is now, and start one, as this process exits, when it had to
 * record the tree by itself and that was slow, so the next run does not.
 *
 * A process settles on one way at its first record: the keeper's, when one
 * answers, or its own (with its own watcher) for the rest of its life, so
 * two watchers never take turns at one process's records. A keeper that
 * stops answering later sends the process back to its own record. Nothing
 * the keeper says is taken on trust beyond a well-formed snapshot id, and
 * its socket is used only in the data folder's private `keepers/` folder.
 */
import { spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { privateFolderProblem } from '../config/private-files';
import { withoutSecrets } from '../config/secret-variables';
import { type KeeperIdentity, keeperSocket, keepersFolder, LineReader, parseAnswer } from './keeper-socket';

/** A local record slower than this starts a keeper, unless the launch says otherwise. */
const SLOW_RECORD_MS = 250;
/** How long connecting to a keeper may take (it is on this machine: a live one answers at once). */
const CONNECT_TIMEOUT_MS = 1_000;
/** How long a keeper may take to answer: its first record after starting is a whole scan. */
const ANSWER_TIMEOUT_MS = 30_000;

/** How to start a keeper: the program and its arguments (`crow __keeper`), the workspace and data folder appended. */
export interface KeeperLaunch {
  command: string;
  args: readonly string[];
  /** A local record at least this slow starts a keeper (default 250 ms; 0 always starts one). */
  slowRecordMs?: number;
}

/** The part of the keeper a snapshot manager uses. */
export interface RemoteRecorder {
  /** The tree recorded by the keeper now, or undefined: this process records by itself. */
  track(signal?: AbortSignal): Promise<string | undefined>;
  /** This process recorded by itself, taking `ms`: slow enough, and a keeper starts as the process exits. */
  recordedLocally(ms: number): void;
}

export class KeeperLink implements RemoteRecorder {
  private way: 'ask' | 'keeper' | 'local' = 'ask';
  private started = false;
  private readonly socket: string | undefined;

  constructor(
    private readonly identity: KeeperIdentity,
    private readonly env: NodeJS.ProcessEnv,
    private readonly launch: KeeperLaunch,
  ) {
    this.socket = keeperSocket(identity);
  }

  async track(signal?: AbortSignal): Promise<string | undefined> {
    if (this.way === 'local' || !this.socket || !this.usable(this.socket)) return this.settle('local');
    const answer = await ask(this.socket, { op: 'track', ...this.identity }, signal).catch((err: unknown) => {
      if (signal?.aborted) throw err;
      return undefined;
    });
    if (answer && 'tree' in answer) {
      this.way = 'keeper';
      return answer.tree;
    }
    return this.settle('local');
  }

  recordedLocally(ms: number): void {
    if (this.started || !this.socket || ms < (this.launch.slowRecordMs ?? SLOW_RECORD_MS)) return;
    this.started = true;
    // A keeper watches only the top of a git work tree (tree-watcher.ts needs its .git folder): elsewhere it would scan like the run.
    if (!isFolder(join(this.identity.workspace, '.git'))) return;
    // Started as this process ends, not now: its first scan would take the CPU, and the shadow index, from this run.
    process.once('exit', () => this.start());
  }

  /** Starts the folder's keeper, detached (spawn is synchronous enough for an exit handler). */
  private start(): void {
    // The keeper's folder is made (private) here: the keeper starts in it.
    if (privateFolderProblem(keepersFolder(this.identity.dataHome), { create: true }) !== undefined) return;
    try {
      const child = spawn(this.launch.command, [...this.launch.args, this.identity.workspace, this.identity.dataHome], {
        detached: true,
        stdio: 'ignore',
        // It runs git only: no credential goes with it, whatever the caller's environment held.
        env: withoutSecrets(this.env),
        // Not the workspace: a keeper must not hold the folder the person may want to remove or unmount.
        cwd: keepersFolder(this.identity.dataHome),
      });
      child.on('error', () => undefined);
      child.unref();
    } catch {
      // No keeper: the next run records by itself, as this one did.
    }
  }

  private settle(way: 'local'): undefined {
    this.way = way;
    return undefined;
  }

  /** The socket is a socket of this user's in Crow's private keepers folder. */
  private usable(socket: string): boolean {
    const stats = (() => {
      try {
        return lstatSync(socket);
      } catch {
        return undefined;
      }
    })();
    if (!stats?.isSocket()) return false;
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) return false;
    return privateFolderProblem(keepersFolder(this.identity.dataHome)) === undefined;
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** One request to the keeper on `socket`, and its answer (undefined when it said nothing usable). */
function ask(socket: string, request: object, signal?: AbortSignal): Promise<ReturnType<typeof parseAnswer>> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    const reader = new LineReader();
    let timer = setTimeout(() => finish(undefined), CONNECT_TIMEOUT_MS);
    const end = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      connection.destroy();
    };
    const finish = (answer: ReturnType<typeof parseAnswer>): void => {
      end();
      resolve(answer);
    };
    const onAbort = (): void => {
      end();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    connection.once('connect', () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(undefined), ANSWER_TIMEOUT_MS);
      connection.write(`${JSON.stringify(request)}\n`);
    });
    connection.on('data', (chunk: Buffer) => {
      const line = reader.push(chunk);
      if (line !== undefined) finish(line === 'overlong' ? undefined : parseAnswer(line));
    });
    connection.on('error', () => finish(undefined));
    connection.on('end', () => finish(undefined));
  });
}
