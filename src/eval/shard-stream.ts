/**
 * A shard's results folder as a block of a pod's log, and back (the
 * framing, digest and "last intact block" rule are log-blocks.ts'). A pod
 * of `crow eval k8s` prints its folder (results.jsonl and the runs/
 * artifacts) at the end; a block's files must be results.jsonl or under
 * runs/, relative, without `..`, within the sizes taken; anything else
 * refuses that shard, saying why.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { type BlockKind, blockLines, readLastBlock } from './log-blocks';

/** The most a shard's block may hold, compressed and uncompressed. */
export const SHARD_LIMITS = { compressedBytes: 256 * 1024 * 1024, folderBytes: 1024 * 1024 * 1024, files: 100_000 } as const;
const SHARD_BLOCK: BlockKind = { mark: 'crow-eval-shard', id: /\d+\/\d+/, compressedBytes: SHARD_LIMITS.compressedBytes, uncompressedBytes: SHARD_LIMITS.folderBytes * 2 };

/** The folder's files as the lines of one block (each ending in a newline), for shard `shard` ("3/50"). */
export function shardLines(folder: string, shard: string): string[] {
  const files: Record<string, string> = {};
  for (const path of filesUnder(folder).filter(allowedPath)) files[path] = readFileSync(join(folder, path)).toString('base64');
  return blockLines(SHARD_BLOCK, shard, { shard, files });
}

/** What a log held: the shard's files by path, or why it holds none that can be trusted. */
export type ShardBlock = { shard: string; files: Map<string, Buffer> } | { problem: string };

/** The last complete, intact block of `log`. */
export function readShardBlock(log: string): ShardBlock {
  return readLastBlock(log, SHARD_BLOCK, shardFiles);
}

/** Writes a block's files under `folder`. */
export function writeShardFiles(folder: string, files: Map<string, Buffer>): void {
  for (const [path, content] of files) {
    const target = join(folder, path);
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(target, content, { mode: 0o600 });
  }
}

function shardFiles(shard: string, payload: unknown): ShardBlock {
  const parsed = (typeof payload === 'object' && payload !== null ? payload : {}) as { shard?: unknown; files?: unknown };
  if (parsed.shard !== shard || typeof parsed.files !== 'object' || parsed.files === null || Array.isArray(parsed.files)) {
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
  return { shard, files };
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
