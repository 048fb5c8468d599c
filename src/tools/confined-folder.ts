/**
 * Crow's own changes to files under one folder (the workspace), made so
 * that none of them can leave it: every write, delete, rename, mode change
 * and folder made reaches its path one component at a time, each folder
 * opened without following a link (O_NOFOLLOW), and the change itself is
 * made relative to the folder so opened, at the moment of use. A folder
 * swapped for a link after Crow looked (by a command, say) is met as a
 * link, not walked through.
 *
 * On Linux a folder is held open and its entries are named through
 * /proc/self/fd/N/<name>, which the kernel resolves from that open folder
 * as openat() would, whatever happened to the path since. Where there is
 * no /proc, each component is still checked as it is reached, and the
 * change is made on the path checked a moment before.
 *
 * Links inside the folder are followed only when they stay inside
 * (`links: 'inside'`, how tools write) or never (`links: 'never'`, how a
 * restore writes: a link where it recorded a folder is an error).
 */
import { constants, existsSync } from 'node:fs';
import { type FileHandle, lchown, lstat, mkdir, open, readFile, readlink, rename, rmdir, symlink, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { HOST_PATHS, type PathSemantics, resolveAs } from '../vocabulary/path-semantics';
import { containment } from './workspace-containment';

/** Links followed on one path before giving up, as the kernel does (ELOOP). */
const MAX_LINK_HOPS = 40;
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);
/** Whether an open folder's entries can be named through /proc (Linux). */
const BY_DESCRIPTOR = process.platform === 'linux' && existsSync('/proc/self/fd');

export type LinkRule = 'inside' | 'never';

/** What stands at a path: a file, a folder, a link (not followed), something else, or nothing. */
export type EntryKind = 'file' | 'folder' | 'link' | 'other' | 'absent';

/** A path Crow refused to change because reaching it meant following a link (out of the folder, or at all under 'never'). */
export class LinkRefusedError extends Error {
  override name = 'LinkRefusedError';

  constructor(
    /** The path asked for, relative to the folder. */
    readonly path: string,
    /** The component that is a link, relative to the folder. */
    readonly link: string,
    /** Where the link leads, as written in it. */
    readonly target: string,
    /** Whether it leads outside the folder (else it was refused because links are never followed here). */
    readonly outside: boolean,
  ) {
    super(
      outside
        ? `${link} is a link to ${target}, outside ${link === path ? 'the workspace' : `the workspace, so ${path} is not there`}; nothing was changed through it`
        : `${link} is a link (to ${target}) where a ${link === path ? 'file' : 'folder'} was expected; nothing was changed through it`,
    );
  }
}

/** A path that is outside the folder as written (absolute elsewhere, or `..` past the root), or names no plain file in it (`problem`: a Windows device or stream). */
export class OutsideFolderError extends Error {
  override name = 'OutsideFolderError';

  constructor(
    readonly path: string,
    readonly root: string,
    readonly problem?: string,
  ) {
    super(problem === undefined ? `${path} is outside ${root}; nothing was changed there` : `${problem}; nothing was changed there`);
  }
}

/** An open folder on the way to a path, and the name of the path in it. */
interface Place {
  folder: OpenFolder;
  name: string;
  /** The path, relative to the root, as reached (links inside resolved). */
  rel: string;
}

/** A folder held open while something is done in it. */
class OpenFolder {
  private constructor(
    private readonly handle: FileHandle | undefined,
    /** Its path when it was opened. */
    readonly path: string,
  ) {}

  /** Opens the root (trusted as given), or the entry `name` of `from`, refusing a link there (ELOOP) and a non-folder (ENOTDIR). */
  static async open(absolute: string, from?: OpenFolder, name?: string): Promise<OpenFolder> {
    const where = from && name !== undefined ? from.entry(name) : absolute;
    const followLast = from === undefined;
    if (BY_DESCRIPTOR) return new OpenFolder(await open(where, FOLDER_FLAGS | (followLast ? 0 : NO_FOLLOW)), absolute);
    // No descriptor to hold: the entry is checked now and named by its path afterwards.
    const stats = followLast ? undefined : await lstat(where);
    if (stats?.isSymbolicLink()) throw Object.assign(new Error(`${where} is a link`), { code: 'ELOOP' });
    if (stats && !stats.isDirectory()) throw Object.assign(new Error(`${where} is not a folder`), { code: 'ENOTDIR' });
    return new OpenFolder(undefined, absolute);
  }

  /** The path naming `name` inside this folder, as opened (not as its path reads now). */
  entry(name: string): string {
    return this.handle ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.path, name);
  }

  /** Gives the folder to `owner` (the folder itself as opened, never a link in its place). */
  async chown(owner: Owner): Promise<void> {
    if (this.handle) await this.handle.chown(owner.uid, owner.gid);
    else await lchown(this.path, owner.uid, owner.gid);
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}

/** The user and group that own what Crow makes in the folder (a container's user: container-workspace.ts). */
export interface Owner {
  uid: number;
  gid: number;
}

export interface WriteOptions {
  /** Mode of a file that is created (default 0o666 less the umask). */
  mode?: number;
  /** Make missing folders on the way (default true). */
  makeFolders?: boolean;
}

/** One folder, the root of every path its methods take (relative, '/'-separated, or absolute inside it). */
export class ConfinedFolder {
  /** The root as given: a real path (no link on the way to it). */
  readonly root: string;

  constructor(
    root: string,
    private readonly links: LinkRule = 'inside',
    /** Who owns each file Crow writes and each folder it makes here; unchanged (Crow's own user) when absent. */
    private readonly owner?: Owner,
    /** How paths are read (default: this machine's file system); another platform's only for judging paths (relative()). */
    private readonly semantics: PathSemantics = HOST_PATHS,
  ) {
    this.root = resolveAs(semantics, undefined, root);
  }

  /** Writes the whole file (created or truncated), byte for byte. */
  async writeFile(target: string, data: Uint8Array | string, options: WriteOptions = {}): Promise<void> {
    const handle = await this.openFile(target, options);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  }

  /** Opens the file for writing (created or truncated), reached as writeFile does; the caller writes and closes it. */
  async openFile(target: string, options: WriteOptions = {}): Promise<FileHandle> {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW;
    const handle = await this.atFinal(target, options.makeFolders ?? true, (where) => open(where, flags, options.mode ?? 0o666));
    // The file as opened, by its descriptor: what stands at the path by now does not matter.
    if (this.owner) await handle.chown(this.owner.uid, this.owner.gid).catch((err: unknown) => handle.close().then(() => Promise.reject(err)));
    return handle;
  }

  /** The bytes of a file, reached as writeFile reaches it (a link at the end followed only as links may be). */
  async readFile(target: string): Promise<Buffer> {
    return this.atFinal(target, false, (where) => readFile(where, { flag: constants.O_RDONLY | NO_FOLLOW }));
  }

  /** The text of the link at the path (the link itself, never followed). */
  async readLink(target: string): Promise<Buffer> {
    return this.within(target, false, ({ folder, name }) => readlink(folder.entry(name), { encoding: 'buffer' }));
  }

  /** Sets a file's permission bits, on the file itself (never through a link). */
  async setMode(target: string, mode: number): Promise<void> {
    await this.within(target, false, async ({ folder, name }) => {
      const handle = await open(folder.entry(name), constants.O_RDONLY | NO_FOLLOW);
      try {
        await handle.chmod(mode);
      } finally {
        await handle.close();
      }
    });
  }

  /** Removes a file or a link (the link itself); false when nothing was there. */
  async remove(target: string): Promise<boolean> {
    return this.within(target, false, async ({ folder, name }) => {
      try {
        await unlink(folder.entry(name));
        return true;
      } catch (err) {
        if (code(err) === 'ENOENT') return false;
        throw err;
      }
    }).catch((err: unknown) => (code(err) === 'ENOENT' ? false : Promise.reject(err)));
  }

  /** Removes an empty folder; false when it is not there or not empty. */
  async removeEmptyFolder(target: string): Promise<boolean> {
    return this.within(target, false, async ({ folder, name }) => {
      try {
        await rmdir(folder.entry(name));
        return true;
      } catch (err) {
        if (['ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(code(err) ?? '')) return false;
        throw err;
      }
    }).catch((err: unknown) => (code(err) === 'ENOENT' ? false : Promise.reject(err)));
  }

  /** Makes a link at `target` holding `linkText` (which is not followed or checked: a link is data until something follows it). */
  async symlink(target: string, linkText: string): Promise<void> {
    await this.within(target, true, ({ folder, name }) => symlink(linkText, folder.entry(name)));
  }

  /** Makes the folder and any missing folders on the way. */
  async makeFolders(target: string): Promise<void> {
    const parts = this.parts(target);
    if (parts.length === 0) return;
    // Every part a folder on the way: the place past the last one is never used.
    const place = await this.reach([...parts, '.'], true);
    await place.folder.close();
  }

  /** Renames within the folder; both ends reached without following a link out. */
  async rename(from: string, to: string): Promise<void> {
    await this.within(from, false, ({ folder: source, name: sourceName }) =>
      this.within(to, true, ({ folder, name }) => rename(source.entry(sourceName), folder.entry(name))),
    );
  }

  /** What stands at the path, the last component not followed; 'absent' also when a folder on the way is missing. */
  async kind(target: string): Promise<EntryKind> {
    try {
      return await this.within(target, false, async ({ folder, name }) => {
        const stats = await lstat(folder.entry(name)).catch((err: unknown) => (code(err) === 'ENOENT' ? undefined : Promise.reject(err)));
        if (!stats) return 'absent';
        return stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'folder' : stats.isFile() ? 'file' : 'other';
      });
    } catch (err) {
      if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return 'absent';
      throw err;
    }
  }

  /**
   * The first link met on the way to the path (not the path itself), or
   * undefined when every folder on the way is a real folder or missing:
   * what a restore checks before it changes anything.
   */
  async linkOnTheWay(target: string): Promise<{ link: string; target: string } | undefined> {
    const parts = this.parts(target);
    let walked = '';
    for (const part of parts.slice(0, -1)) {
      walked = walked === '' ? part : `${walked}/${part}`;
      const stats = await lstat(path.join(this.root, walked)).catch(() => undefined);
      if (!stats) return undefined;
      if (stats.isSymbolicLink()) return { link: walked, target: await readlink(path.join(this.root, walked)).catch(() => '?') };
      if (!stats.isDirectory()) return undefined;
    }
    return undefined;
  }

  /** The path relative to the root, '/'-separated; throws LinkRefusedError-like error for a path outside it. */
  relative(target: string): string {
    return this.parts(target).join('/');
  }

  /**
   * Runs `action` in the open parent folder of `target`, reached one
   * component at a time (made when `create`); a link on the way is
   * followed only when it stays inside and links may be followed.
   */
  private async within<T>(target: string, create: boolean, action: (place: Place) => Promise<T>): Promise<T> {
    const place = await this.reach(this.parts(target), create);
    try {
      return await action(place);
    } finally {
      await place.folder.close();
    }
  }

  /**
   * As within(), then `action` on the final entry; when it fails because
   * the entry is a link (O_NOFOLLOW) and links inside may be followed, the
   * link is resolved and the action tried again where it leads.
   */
  private async atFinal<T>(target: string, create: boolean, action: (where: string) => Promise<T>, hops = 0): Promise<T> {
    const parts = this.parts(target);
    const place = await this.reach(parts, create);
    try {
      return await action(place.folder.entry(place.name));
    } catch (err) {
      if (code(err) !== 'ELOOP') throw err;
      const text = await readlink(place.folder.entry(place.name));
      const next = this.follow(place.rel, place.folder.path, text, parts.join('/'), hops);
      return this.atFinal(next, create, action, hops + 1);
    } finally {
      await place.folder.close();
    }
  }

  /** Opens each folder on the way to the last of `parts`, from the root. */
  private async reach(parts: readonly string[], create: boolean, hops = 0): Promise<Place> {
    if (parts.length === 0) throw Object.assign(new Error(`no file name given (the path is the folder ${this.root} itself)`), { code: 'EISDIR' });
    let folder = await OpenFolder.open(this.root);
    let rel = '';
    try {
      for (const [i, part] of parts.slice(0, -1).entries()) {
        const next = await this.step(folder, part, create);
        if (typeof next === 'string') {
          // A link to follow: reach the rest from where it leads, from the root again.
          const resolved = this.follow(rel === '' ? part : `${rel}/${part}`, folder.path, next, parts.join('/'), hops);
          await folder.close();
          return await this.reach([...this.parts(resolved), ...parts.slice(i + 1)], create, hops + 1);
        }
        await folder.close();
        folder = next;
        rel = rel === '' ? part : `${rel}/${part}`;
      }
    } catch (err) {
      await folder.close();
      throw err;
    }
    const name = parts.at(-1)!;
    return { folder, name, rel: rel === '' ? name : `${rel}/${name}` };
  }

  /** The folder `part` opened inside `folder` (made first when missing and `create`), or the text of the link standing there. */
  private async step(folder: OpenFolder, part: string, create: boolean): Promise<OpenFolder | string> {
    const absolute = path.join(folder.path, part);
    try {
      return await OpenFolder.open(absolute, folder, part);
    } catch (err) {
      const failed = code(err);
      if (failed === 'ENOENT' && create) {
        await mkdir(folder.entry(part)).catch((made: unknown) => (code(made) === 'EEXIST' ? undefined : Promise.reject(made)));
        const made = await OpenFolder.open(absolute, folder, part);
        if (this.owner) await made.chown(this.owner).catch((err: unknown) => made.close().then(() => Promise.reject(err)));
        return made;
      }
      if (failed !== 'ELOOP' && failed !== 'ENOTDIR') throw err;
      const stats = await lstat(folder.entry(part));
      if (!stats.isSymbolicLink()) throw err;
      return readlink(folder.entry(part));
    }
  }

  /** Where the link at `linkRel` (in the folder at `folderPath`) leads, relative to the root; refused when it leaves, or when links are never followed. */
  private follow(linkRel: string, folderPath: string, text: string, asked: string, hops: number): string {
    const inside = containment(this.root, resolveAs(this.semantics, folderPath, text), this.semantics);
    const outside = !inside.inside;
    if (outside || this.links === 'never') throw new LinkRefusedError(asked, linkRel, text, outside);
    if (hops >= MAX_LINK_HOPS) throw Object.assign(new Error(`${asked}: too many links on the way`), { code: 'ELOOP' });
    return inside.names.join('/');
  }

  /** The components of a path relative to the root; throws for a path that is outside it (or, on Windows, names a device or a stream). */
  private parts(target: string): string[] {
    const inside = containment(this.root, resolveAs(this.semantics, this.root, target), this.semantics);
    if (!inside.inside) throw new OutsideFolderError(target, this.root, inside.outside ? undefined : inside.problem);
    return inside.names;
  }
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
