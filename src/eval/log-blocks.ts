/**
 * Blocks of data in a pod's log, and reading them back: what a pod of
 * `crow eval k8s` (a shard's results) or `crow attempts k8s` (an attempt's
 * outcome) prints at the end, gzipped JSON in base64 between a `begin`
 * line carrying its id, length and SHA-256 and an `end` line naming the
 * id again, each line marked so that whatever else the log holds (crow's
 * progress, a command's output) is passed over.
 *
 * A log is read as hostile: the code a model wrote ran in that pod and may
 * have printed lines of its own. Only the last complete block whose digest
 * and length match, and whose payload the caller accepts, is taken; the
 * compressed and uncompressed sizes are capped.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/** Characters of base64 per log line: under the 16 KiB at which container runtimes split a line. */
const LINE_CHARS = 8_000;

export interface BlockKind {
  /** The word each line of the block starts with. */
  mark: string;
  /** What an id looks like ("3/50", "RUN/2"). */
  id: RegExp;
  /** The most a block may hold, compressed and uncompressed. */
  compressedBytes: number;
  uncompressedBytes: number;
}

/** `payload` as the lines of one block (each ending in a newline). */
export function blockLines(kind: BlockKind, id: string, payload: unknown): string[] {
  const packed = gzipSync(JSON.stringify(payload));
  const data = packed.toString('base64');
  const lines = [`${kind.mark} begin ${id} bytes=${packed.length} sha256=${sha256(packed)}\n`];
  for (let at = 0; at < data.length; at += LINE_CHARS) lines.push(`${kind.mark} data ${data.slice(at, at + LINE_CHARS)}\n`);
  lines.push(`${kind.mark} end ${id}\n`);
  return lines;
}

/**
 * The payload of the last intact block of `log` that `accept` takes (it
 * returns what it makes of the block's id and JSON, or why it refuses
 * it), or the first reason met, latest block first, why none is taken.
 */
export function readLastBlock<T>(log: string, kind: BlockKind, accept: (id: string, payload: unknown) => T | { problem: string }): T | { problem: string } {
  const blocks = blocksIn(log, kind);
  if (blocks.length === 0) return { problem: 'it holds no results block (the pod did not finish, or its log was cut)' };
  let problem = '';
  for (const block of blocks.reverse()) {
    const read = decode(block, kind);
    const taken = 'problem' in read ? read : accept(block.id, read.payload);
    if (!(typeof taken === 'object' && taken !== null && 'problem' in taken)) return taken;
    problem ||= (taken as { problem: string }).problem;
  }
  return { problem };
}

interface RawBlock {
  id: string;
  bytes: number;
  sha256: string;
  data: string;
}

function blocksIn(log: string, kind: BlockKind): RawBlock[] {
  const blocks: RawBlock[] = [];
  let open: (RawBlock & { chunks: string[] }) | undefined;
  const begin = new RegExp(`^(${kind.id.source}) bytes=(\\d+) sha256=([0-9a-f]{64})$`);
  for (const line of log.split('\n')) {
    // kubectl may prefix lines (--timestamps, --prefix); the mark may follow such a prefix.
    const at = line.indexOf(`${kind.mark} `);
    if (at < 0) continue;
    const [word, ...rest] = line.slice(at + kind.mark.length + 1).trim().split(' ');
    if (word === 'begin') {
      const match = begin.exec(rest.join(' '));
      open = match ? { id: match[1]!, bytes: Number(match.at(-2)), sha256: match.at(-1)!, data: '', chunks: [] } : undefined;
    } else if (word === 'data' && open) {
      open.chunks.push(rest.join(''));
    } else if (word === 'end' && open && rest[0] === open.id) {
      blocks.push({ id: open.id, bytes: open.bytes, sha256: open.sha256, data: open.chunks.join('') });
      open = undefined;
    }
  }
  return blocks;
}

function decode(block: RawBlock, kind: BlockKind): { payload: unknown } | { problem: string } {
  if (block.bytes > kind.compressedBytes) return { problem: `its block is ${block.bytes} bytes, over the ${kind.compressedBytes} taken` };
  const packed = Buffer.from(block.data, 'base64');
  if (packed.length !== block.bytes || sha256(packed) !== block.sha256) return { problem: 'its results block does not match its length and SHA-256 (cut, or altered)' };
  try {
    return { payload: JSON.parse(gunzipSync(packed, { maxOutputLength: kind.uncompressedBytes }).toString('utf8')) as unknown };
  } catch (err) {
    return { problem: `its results block cannot be read: ${(err as Error).message}` };
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
