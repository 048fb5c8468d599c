/**
 * What Crow executes or trusts from disk is its own: its caches (the
 * compiled bundle, the sandbox probe), its data (sessions, traces, saved
 * outputs, the undo shadow repositories) are kept in folders that belong
 * to the user running Crow and that only they may enter, and each file is
 * checked on the descriptor Crow reads it through. Anything else is never
 * read: another local user who can write a folder on the way (a shared
 * XDG_CACHE_HOME, root running Crow with a user's HOME) could otherwise
 * have Crow run their code.
 *
 * - A folder is Crow's own when it belongs to this user, lets nobody else
 *   in (no group or other permission bits) and every folder above it is
 *   safe: owned by this user or root and writable by nobody else, unless
 *   its sticky bit stops others renaming what is in it (/tmp), or it is
 *   writable by this user's own primary group only (user private groups
 *   with umask 002). A link on the way counts where the folder holding it
 *   is safe (only this user or root could have made it), and the folder
 *   it leads to is checked as well.
 * - A file is Crow's own when, opened without following a link (and
 *   without waiting on a FIFO), its descriptor is a regular file of this
 *   user with no group or other permission bits.
 *
 * Where the platform has no user ids (Windows) every check passes: its
 * folders are private by their ACLs.
 */
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, renameSync, rmSync, type Stats, writeFileSync } from 'node:fs';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './paths';

/** Permission bits that let the group or others in. */
const SHARED_BITS = 0o077;
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;
const GROUP_OTHER_WRITE = GROUP_WRITE | OTHER_WRITE;
/** The sticky bit: in such a folder only an entry's owner may rename or remove it. */
const STICKY = 0o1000;

export interface FolderOptions {
  /** Made (with any missing parents, 0700) when missing. Without it a missing folder passes: there is nothing in it to trust. */
  create?: boolean;
  /**
   * The folder only holds what makes Crow quicker: one of this user's own
   * that others could write in is emptied and made private again, rather
   * than refused.
   */
  disposable?: boolean;
}

/** What reading a file Crow trusts found: its bytes, no file, or why it is not Crow's own (then it must not be used). */
export type PrivateRead = { bytes: Buffer } | { missing: true } | { problem: string };

/**
 * Why `folder` is not Crow's own to keep and trust files in, or undefined
 * when it is (see the file comment). A folder of this user that others may
 * read but not write is made private (0700) on the way.
 */
export function privateFolderProblem(folder: string, options: FolderOptions = {}): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const wanted = resolve(folder);
  let real: string;
  try {
    const found = safeRealPath(wanted, uid);
    if (found.missing.length > 0) {
      if (!options.create) return undefined;
      // Made from the real path checked above, so no link is followed again on the way.
      mkdirSync(join(found.real, ...found.missing), { recursive: true, mode: PRIVATE_DIR_MODE });
    }
    real = join(found.real, ...found.missing);
  } catch (err) {
    return err instanceof NotPrivate ? err.message : `${wanted} could not be checked or made: ${(err as Error).message}`;
  }
  const stats = lstatSync(real);
  if (!stats.isDirectory()) return `${wanted} is not a folder`;
  if (stats.uid !== uid) return `${wanted} belongs to user ${stats.uid}, not to you (user ${uid})`;
  if ((stats.mode & GROUP_OTHER_WRITE) !== 0 && !options.disposable) return `${wanted} can be written by other users (mode ${octal(stats.mode)})`;
  if ((stats.mode & SHARED_BITS) !== 0) chmodSync(real, PRIVATE_DIR_MODE);
  // What others could write in it may be theirs: a cache keeps nothing of it.
  if ((stats.mode & GROUP_OTHER_WRITE) !== 0) emptyFolder(real);
  return undefined;
}

/** Why the file behind `stats` (from the descriptor it was opened as) is not Crow's own, or undefined when it is. */
export function privateFileProblem(stats: Stats, file: string): string | undefined {
  const uid = process.getuid?.();
  if (!stats.isFile()) return `${file} is not a regular file`;
  if (uid === undefined) return undefined;
  if (stats.uid !== uid) return `${file} belongs to user ${stats.uid}, not to you (user ${uid})`;
  if ((stats.mode & SHARED_BITS) !== 0) return `${file} can be used by other users (mode ${octal(stats.mode)})`;
  return undefined;
}

/**
 * Makes `file` private (0600) when it is this user's own regular file that
 * others may read but not write: what an older Crow kept before its files
 * were private is still its own. Anything else is left for
 * privateFileProblem to refuse. The folder is the caller's to have checked.
 */
export function makeOwnFilePrivate(file: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let stats: Stats;
  try {
    stats = lstatSync(file);
  } catch {
    return;
  }
  if (stats.isFile() && stats.uid === uid && (stats.mode & GROUP_OTHER_WRITE) === 0 && (stats.mode & SHARED_BITS) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
}

/** Opens `file` for reading as Crow reads what it trusts: never through a link, never waiting on a FIFO. Throws as open(2) does (ELOOP for a link). */
export function openWithoutFollowing(file: string): number {
  return openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
}

/** Reads `file` when it is Crow's own (see the file comment); its folder is the caller's to have checked. */
export function readPrivateFile(file: string): PrivateRead {
  let fd: number;
  try {
    fd = openWithoutFollowing(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    return { problem: code === 'ELOOP' || code === 'EMLINK' ? `${file} is a link` : `${file} could not be opened: ${(err as Error).message}` };
  }
  try {
    const stats = fstatSync(fd);
    const problem = privateFileProblem(stats, file);
    if (problem !== undefined) return { problem };
    const bytes = Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < stats.size) {
      const got = readSync(fd, bytes, read, stats.size - read, read);
      if (got === 0) break;
      read += got;
    }
    return { bytes: read === stats.size ? bytes : bytes.subarray(0, read) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `file` whole, as a new file of this user only (0600) beside it,
 * created exclusively (never through a link), then renamed over it: a
 * reader sees the old file or the new one, and whatever stood at the name
 * (a link, a file of someone else) is replaced, not written through.
 */
export function writePrivateFile(file: string, data: string | Uint8Array): void {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temporary, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/** Removes what stands at `file` (a file, a link, a folder), never what a link leads to. */
export function removeEntry(file: string): void {
  rmSync(file, { recursive: true, force: true });
}

class NotPrivate extends Error {}

/**
 * The real path of the part of `folder` that exists, each folder on the
 * way checked as one that nobody but this user and root can change (see
 * the file comment; the last one's own ownership is the caller's to
 * check), and the names below it still missing. Throws NotPrivate for an
 * unsafe folder.
 */
function safeRealPath(folder: string, uid: number): { real: string; missing: string[] } {
  const { root } = parse(folder);
  const parts = folder.slice(root.length).split(sep).filter(Boolean);
  let real = root;
  checkAbove(real, lstatSync(real), uid);
  for (const [i, part] of parts.entries()) {
    let next = join(real, part);
    const stats = lstatOrMissing(next);
    if (!stats) return { real, missing: parts.slice(i) };
    if (stats.isSymbolicLink()) {
      // The link lies in `real`, checked already: only this user or root could have made it. What it leads to is checked now.
      next = realpathSync(next);
      for (const above of ancestors(next)) checkAbove(above, lstatSync(above), uid);
    }
    if (i < parts.length - 1) checkAbove(next, lstatSync(next), uid);
    real = next;
  }
  return { real, missing: [] };
}

/** What is at `path`, without following a link; undefined when nothing is. */
export function lstatOrMissing(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Every folder from the root down to `folder`'s parent. */
function ancestors(folder: string): string[] {
  const found: string[] = [];
  for (let at = dirname(folder); ; at = dirname(at)) {
    found.unshift(at);
    if (dirname(at) === at) return found;
  }
}

/** Throws NotPrivate when `folder`, above a folder Crow keeps, could be changed (its entries renamed or replaced) by another user. */
function checkAbove(folder: string, stats: Stats, uid: number): void {
  if (!stats.isDirectory()) throw new NotPrivate(`${folder} is not a folder`);
  if (stats.uid !== uid && stats.uid !== 0) throw new NotPrivate(`${folder} belongs to user ${stats.uid}, who could replace what Crow keeps inside it`);
  const sticky = (stats.mode & STICKY) !== 0;
  const othersWrite = (stats.mode & OTHER_WRITE) !== 0;
  const groupWrite = (stats.mode & GROUP_WRITE) !== 0 && stats.gid !== process.getgid?.();
  if ((othersWrite || groupWrite) && !sticky) throw new NotPrivate(`${folder} can be written by other users (mode ${octal(stats.mode)}), who could replace what Crow keeps inside it`);
}

/** Removes everything in a folder of this user's own (its content could have been put there by others). */
function emptyFolder(folder: string): void {
  for (const name of readdirSync(folder)) removeEntry(join(folder, name));
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(3, '0');
}
