/**
 * A shard's results folder as lines of a pod's log, and back. A pod of
 * `crow eval k8s` prints its folder (results.jsonl and the runs/ artifacts)
 * at the end, gzipped and in base64 between a `begin` line carrying its
 * length and SHA-256 and an `end` line, each line marked so that whatever
 * else the log holds (crow's progress, a task's output) is passed over.
 *
 * A log is read as hostile: the code a model wrote ran in that pod and may
 * have printed lines of its own. Only the last complete block whose digest
 * and length match is taken; its files must be results.jsonl or under
 * runs/, relative, without `..`; sizes are capped compressed and
 * uncompressed; anything else refuses that shard, saying why.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

const MARK = 'crow-eval-shard';
/** Characters of base64 per log line: under the 16 KiB at which container runtimes split a line. */
const LINE_CHARS = 8_000;
/** The most a shard's block may hold, compressed and uncompressed. */
export const SHARD_LIMITS = { compressedBytes: 256 * 1024 * 1024, folderBytes: 1024 * 1024 * 1024, files: 100_000 } as const;

/** The folder's files as the lines of one block (each ending in a newline), for shard `shard` ("3/50"). */
export function shardLines(folder: string, shard: string): string[] {
  const files: Record<string, string> = {};
  for (const path of filesUnder(folder).filter(allowedPath)) files[path] = readFileSync(join(folder, path)).toString('base64');
  const payload = gzipSync(JSON.stringify({ shard, files }));
  const data = payload.toString('base64');
  const lines = [`${MARK} begin ${shard} bytes=${payload.length} sha256=${sha256(payload)}\n`];
  for (let at = 0; at < data.length; at += LINE_CHARS) lines.push(`${MARK} data ${data.slice(at, at + LINE_CHARS)}\n`);
  lines.push(`${MARK} end ${shard}\n`);
  return lines;
}

/** What a log held: the shard's files by path, or why it holds none that can be trusted. */
export type ShardBlock = { shard: string; files: Map<string, Buffer> } | { problem: string };

/** The last complete, intact block of `log`. */
export function readShardBlock(log: string): ShardBlock {
  const blocks = blocksIn(log);
  if (blocks.length === 0) return { problem: 'it holds no results block (the shard did not finish, or its log was cut)' };
  let problem = '';
  for (const block of blocks.reverse()) {
    const read = decodeBlock(block);
    if (!('problem' in read)) return read;
    problem ||= read.problem;
  }
  return { problem };
}

/** Writes a block's files under `folder`. */
export function writeShardFiles(folder: string, files: Map<string, Buffer>): void {
  for (const [path, content] of files) {
    const target = join(folder, path);
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(target, content, { mode: 0o600 });
  }
}

interface RawBlock {
  shard: string;
  bytes: number;
  sha256: string;
  data: string;
}

function blocksIn(log: string): RawBlock[] {
  const blocks: RawBlock[] = [];
  let open: (RawBlock & { chunks: string[] }) | undefined;
  for (const line of log.split('\n')) {
    // kubectl may prefix lines (--timestamps, --prefix); the mark may follow such a prefix.
    const at = line.indexOf(`${MARK} `);
    if (at < 0) continue;
    const [kind, ...rest] = line.slice(at + MARK.length + 1).trim().split(' ');
    if (kind === 'begin') {
      const match = /^(\d+\/\d+) bytes=(\d+) sha256=([0-9a-f]{64})$/.exec(rest.join(' '));
      open = match ? { shard: match[1]!, bytes: Number(match[2]), sha256: match[3]!, data: '', chunks: [] } : undefined;
    } else if (kind === 'data' && open) {
      open.chunks.push(rest.join(''));
    } else if (kind === 'end' && open && rest[0] === open.shard) {
      blocks.push({ shard: open.shard, bytes: open.bytes, sha256: open.sha256, data: open.chunks.join('') });
      open = undefined;
    }
  }
  return blocks;
}

function decodeBlock(block: RawBlock): ShardBlock {
  if (block.bytes > SHARD_LIMITS.compressedBytes) return { problem: `its block is ${block.bytes} bytes, over the ${SHARD_LIMITS.compressedBytes} taken` };
  const payload = Buffer.from(block.data, 'base64');
  if (payload.length !== block.bytes || sha256(payload) !== block.sha256) return { problem: 'its results block does not match its length and SHA-256 (cut, or altered)' };
  let parsed: { shard?: unknown; files?: unknown };
  try {
    parsed = JSON.parse(gunzipSync(payload, { maxOutputLength: SHARD_LIMITS.folderBytes * 2 }).toString('utf8')) as typeof parsed;
  } catch (err) {
    return { problem: `its results block cannot be read: ${(err as Error).message}` };
  }
  if (parsed.shard !== block.shard || typeof parsed.files !== 'object' || parsed.files === null || Array.isArray(parsed.files)) {
    return { problem: 'its results block is not one crow wrote' };
  }
  const entries = Object.entries(parsed.files as Record<string, unknown>);
  if (entries.length > SHARD_LIMITS.files) return { problem: `its results block holds ${entries.length} files, over the ${SHARD_LIMITS.files} taken` };
  const files = new Map<string, Buffer>();
  let total = 0;
  for (const [path, content] of entries) {
    if (!allowedPath(path) || typeof content !== 'string') return { problem: `its results block holds "${path.slice(0, 200)}", which is no file of a results folder` };
    const bytes = Buffer.from(content, 'base64');
    total += bytes.length;
    if (total > SHARD_LIMITS.folderBytes) return { problem: `its results are over ${SHARD_LIMITS.folderBytes} bytes` };
    files.set(path, bytes);
  }
  if (!files.has('results.jsonl')) return { problem: 'its results block has no results.jsonl' };
  return { shard: block.shard, files };
}

/** results.jsonl, or a relative path under runs/ without `..`, empty or odd parts. */
function allowedPath(path: string): boolean {
  if (path === 'results.jsonl') return true;
  const parts = path.split('/');
  return parts[0] === 'runs' && parts.length > 1 && parts.every((part) => part !== '' && part !== '.' && part !== '..' && !part.includes('\\') && !part.includes('\0'));
}

/** The files under `folder`, relative, with `/` between parts; links are not followed. */
function filesUnder(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(relative(folder, path).split(sep).join('/'));
    }
  };
  walk(folder);
  return found.sort();
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
