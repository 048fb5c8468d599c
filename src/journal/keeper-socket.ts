/**
 * Where a folder's keeper (keeper.ts) listens and what is said on its
 * socket. One keeper serves one workspace with one data folder; its socket
 * lives in the data folder's `keepers/` folder (private, 0700), named by a
 * hash of the protocol, the workspace's real path and the data folder, so a
 * keeper of another Crow version or another data folder is never asked.
 *
 * One request per connection, one JSON line each way:
 *   → {"op":"track","workspace":W,"dataHome":D}
 *   ← {"tree":"<snapshot id>"} | {"error":"<why>"}
 * Anything else is refused; a line longer than MAX_LINE closes the
 * connection. Both ends read what the other sends as untrusted.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** Changes whenever the request or the answer changes: a keeper of another protocol has another socket. */
export const KEEPER_PROTOCOL = 1;
/** The longest line either end reads. */
export const MAX_LINE = 8_192;
/**
 * The longest socket path the system takes (sun_path: 108 bytes on Linux,
 * 104 on macOS, with its NUL), less the `.<pid>` the keeper first binds it
 * as (keeper.ts). A data folder that deep has no keeper.
 */
const MAX_SOCKET_PATH = 103 - 8;

export interface KeeperIdentity {
  /** The workspace's real path. */
  workspace: string;
  dataHome: string;
}

/** The folder keepers' sockets live in. */
export function keepersFolder(dataHome: string): string {
  return join(dataHome, 'keepers');
}

/** The socket of the keeper of this workspace and data folder; undefined when that path would be too long to bind. */
export function keeperSocket(identity: KeeperIdentity): string | undefined {
  const hash = createHash('sha256').update(`${KEEPER_PROTOCOL}\0${identity.workspace}\0${identity.dataHome}`).digest('hex');
  const path = join(keepersFolder(identity.dataHome), `${hash.slice(0, 24)}.sock`);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : undefined;
}

export type KeeperRequest = { op: 'track' } & KeeperIdentity;
export type KeeperAnswer = { tree: string } | { error: string };

/** The request in a line, or why it is refused. */
export function parseRequest(line: string): KeeperRequest | { refused: string } {
  const value = parseObject(line);
  if (!value) return { refused: 'not a JSON object' };
  if (value.op !== 'track') return { refused: `unknown op ${JSON.stringify(value.op)}` };
  if (typeof value.workspace !== 'string' || typeof value.dataHome !== 'string') return { refused: 'workspace and dataHome must be strings' };
  return { op: 'track', workspace: value.workspace, dataHome: value.dataHome };
}

/** The answer in a line; undefined for anything a keeper does not send (then the asker records by itself). */
export function parseAnswer(line: string): KeeperAnswer | undefined {
  const value = parseObject(line);
  if (!value) return undefined;
  if (typeof value.tree === 'string' && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(value.tree)) return { tree: value.tree };
  if (typeof value.error === 'string') return { error: value.error.slice(0, 2_000) };
  return undefined;
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Collects one line from a stream of chunks: the line once its newline
 * arrives, 'overlong' past MAX_LINE, undefined while it is still coming.
 */
export class LineReader {
  private buffered = '';

  push(chunk: Buffer | string): string | 'overlong' | undefined {
    this.buffered += chunk.toString();
    const end = this.buffered.indexOf('\n');
    if (end >= 0) return end > MAX_LINE ? 'overlong' : this.buffered.slice(0, end);
    return this.buffered.length > MAX_LINE ? 'overlong' : undefined;
  }
}
