/**
 * git's loose objects, written in this process: zlib-deflated
 * "<type> <size>\0<content>", named by its SHA-1 (the shadow repository's
 * format), made read-only and moved into place whole. An object may be
 * written beside the work that follows (writeObjectLater): every git
 * command on the repository waits for those (GitRunner), so nothing reads
 * an object that is not there yet.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createDeflate } from 'node:zlib';
import { PRIVATE_DIR_MODE } from '../config/paths';

/**
 * The parts deflated as one stream, without first copying them into one
 * buffer (a 30 MB file's copy cost as much as its hash); level 1, as the
 * objects are read back rarely and written on every change.
 */
function deflated(parts: readonly Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = createDeflate({ level: 1, chunkSize: OUTPUT_CHUNK });
    const out: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk));
    stream.once('error', reject);
    stream.once('end', () => resolve(Buffer.concat(out)));
    for (const part of parts.slice(0, -1)) stream.write(part);
    stream.end(parts.at(-1));
  });
}

/** zlib's output handed back at a time: large enough that a big file's object is a few round trips to the thread pool, not thousands. */
const OUTPUT_CHUNK = 1024 * 1024;

/** Writes a loose object (if it is not there yet) and returns its id. */
export async function writeObject(gitDir: string, type: 'blob' | 'tree', content: Buffer): Promise<string> {
  const { oid, written } = objectToWrite(gitDir, type, content);
  await written;
  return oid;
}

/**
 * An object's id at once, its loose file written beside whatever comes
 * next (a file tool's edit need not wait for zlib on a 30 MB file: the
 * bytes are kept until written). The write is held as pending for the
 * repository: objectsWritten() waits for it, and every git command on the
 * repository does (GitRunner), so nothing reads an object not yet there.
 */
export function writeObjectLater(gitDir: string, type: 'blob' | 'tree', content: Buffer): string {
  const { oid, written } = objectToWrite(gitDir, type, content);
  const kept = pendingWrites.get(gitDir) ?? new Set<Promise<void>>();
  pendingWrites.set(gitDir, kept);
  const held: Promise<void> = written.finally(() => {
    kept.delete(held);
    if (kept.size === 0 && pendingWrites.get(gitDir) === kept) pendingWrites.delete(gitDir);
  });
  kept.add(held);
  // A failure is for objectsWritten() to report; unawaited here, it must not be an unhandled rejection.
  held.catch(() => undefined);
  return oid;
}

/** Objects still being written, by repository. */
const pendingWrites = new Map<string, Set<Promise<void>>>();

/** Resolves once every object writeObjectLater() began for the repository is on disk; rejects with the first that failed. */
export async function objectsWritten(gitDir: string): Promise<void> {
  const kept = pendingWrites.get(gitDir);
  if (kept) await Promise.all([...kept]);
}

function objectToWrite(gitDir: string, type: 'blob' | 'tree', content: Buffer): { oid: string; written: Promise<void> } {
  const header = Buffer.from(`${type} ${content.length}\0`);
  const oid = createHash('sha1').update(header).update(content).digest('hex');
  return { oid, written: writeLoose(gitDir, oid, header, content) };
}

async function writeLoose(gitDir: string, oid: string, header: Buffer, content: Buffer): Promise<void> {
  const folder = join(gitDir, 'objects', oid.slice(0, 2));
  const file = join(folder, oid.slice(2));
  if (await stat(file).then(() => true, () => false)) return;
  await mkdir(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = join(folder, `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`);
  try {
    // Read-only, as git leaves its objects in a repository shared 0600.
    const handle = await open(temporary, 'wx', 0o400);
    try {
      await handle.writeFile(await deflated([header, content]));
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}
