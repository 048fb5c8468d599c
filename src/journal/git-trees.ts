/**
 * git's tree and loose-object formats, read and written in this process, for
 * snapshots written without git's index (tree-edit.ts): a tree being edited
 * in memory, its objects written as git writes loose objects, and trees
 * kept by id so the next edit rarely asks git for them.
 *
 * A loose object is zlib-deflated "<type> <size>\0<content>", named by its
 * SHA-1 (the shadow repository's format), made read-only and moved into
 * place whole. A tree's content is its entries in git's order, each
 * "<mode> <name>\0<20-byte id>".
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { PRIVATE_DIR_MODE } from '../config/paths';
import type { GitRunner } from './git-runner';

/** git's modes of tree entries: a file, an executable file, a symlink, a nested repository's commit, a folder. */
export const FILE = '100644';
export const EXECUTABLE = '100755';
export const SYMLINK = '120000';
export const GITLINK = '160000';
export const TREE = '40000';
const deflated = promisify(deflate);

/** One entry of a tree object. */
export interface Entry {
  mode: string;
  oid: string;
  /** The name's bytes as git keeps them. */
  raw: Buffer;
}

/** A file to record: its git mode and blob. */
export interface Recorded {
  mode: string;
  oid: string;
}

/** One folder of the tree being written: its entries, and the subfolders changed below it. */
export class Folder {
  /** The entries by name, in git's order as read until `reordered`. */
  private readonly entries: Map<string, Entry>;
  private readonly changed = new Map<string, Folder>();
  /** A name was added, or turned from a file into a folder or back: the entries must be sorted again. */
  private reordered = false;

  constructor(
    private readonly trees: Map<string, Entry[]>,
    readonly path: string,
    entries: Entry[] = trees.get(path) ?? [],
  ) {
    this.entries = new Map(entries.map((entry) => [entry.raw.toString('utf8'), entry]));
  }

  /** The entry at a path below this folder, as the base tree (with edits so far) has it. */
  entryAt(path: string): Entry | undefined {
    const slash = path.lastIndexOf('/');
    const folder = slash < 0 ? this : this.folder(path.slice(0, slash), false);
    return folder?.entries.get(path.slice(slash + 1));
  }

  set(path: string, state: Recorded): void {
    const slash = path.lastIndexOf('/');
    const name = path.slice(slash + 1);
    const folder = slash < 0 ? this : this.folder(path.slice(0, slash), true)!;
    folder.changed.delete(name);
    folder.put(name, { ...state, raw: Buffer.from(name, 'utf8') });
  }

  remove(path: string): void {
    const slash = path.lastIndexOf('/');
    const name = path.slice(slash + 1);
    const folder = slash < 0 ? this : this.folder(path.slice(0, slash), false);
    folder?.changed.delete(name);
    folder?.entries.delete(name);
  }

  /** The folder at a path below this one; made (replacing a file there) when `create`. */
  private folder(path: string, create: boolean): Folder | undefined {
    let folder: Folder = this;
    for (const name of path.split('/')) {
      let next = folder.changed.get(name);
      if (!next) {
        const entry = folder.entries.get(name);
        const full = folder.path === '' ? name : `${folder.path}/${name}`;
        if (entry?.mode === TREE) {
          const entries = folder.trees.get(full);
          if (!entries) throw new Error(`tree ${full} was not read`);
          next = new Folder(folder.trees, full, entries);
        } else if (create) next = new Folder(folder.trees, full, []);
        else return undefined;
        folder.put(name, { mode: TREE, oid: entry?.mode === TREE ? entry.oid : '', raw: Buffer.from(name, 'utf8') });
        folder.changed.set(name, next);
      }
      folder = next;
    }
    return folder;
  }

  private put(name: string, entry: Entry): void {
    const old = this.entries.get(name);
    // git sorts a folder's name as if it ended in '/': a name that changes kind may move.
    if (!old || (old.mode === TREE) !== (entry.mode === TREE)) this.reordered = true;
    this.entries.set(name, entry);
  }

  /** Writes the changed folders below and this one; returns this one's id. */
  async write(save: (entries: Entry[], content: Buffer) => Promise<string>): Promise<string> {
    for (const [name, sub] of this.changed) {
      // An empty folder is no tree: git keeps none (except the root).
      if (sub.isEmpty()) this.entries.delete(name);
      else this.entries.set(name, { ...this.entries.get(name)!, oid: await sub.write(save) });
    }
    const entries = [...this.entries.values()];
    if (this.reordered) entries.sort(gitOrder);
    return save(entries, serialize(entries));
  }

  private isEmpty(): boolean {
    return [...this.entries.keys()].every((name) => this.changed.get(name)?.isEmpty());
  }
}

/** git's order of tree entries: by name's bytes, a folder's name compared as if it ended in '/'. */
function gitOrder(a: Entry, b: Entry): number {
  const common = Math.min(a.raw.length, b.raw.length);
  const order = a.raw.compare(b.raw, 0, common, 0, common);
  if (order !== 0) return order;
  const next = (entry: Entry): number => (entry.raw.length > common ? entry.raw[common]! : entry.mode === TREE ? 0x2f : 0);
  return next(a) - next(b);
}

/** A tree object's content, entries in the order given: `<mode> <name>\0<20-byte id>` each. */
function serialize(entries: readonly Entry[]): Buffer {
  let size = 0;
  for (const entry of entries) size += entry.mode.length + entry.raw.length + 22;
  const content = Buffer.allocUnsafe(size);
  let at = 0;
  for (const entry of entries) {
    at += content.write(entry.mode, at, 'latin1');
    content[at++] = 0x20;
    at += entry.raw.copy(content, at);
    content[at++] = 0;
    at += content.write(entry.oid, at, 'hex');
  }
  return content;
}

/** Writes a loose object (if it is not there yet) and returns its id. */
export async function writeObject(gitDir: string, type: 'blob' | 'tree', content: Buffer): Promise<string> {
  const object = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const oid = createHash('sha1').update(object).digest('hex');
  const folder = join(gitDir, 'objects', oid.slice(0, 2));
  const file = join(folder, oid.slice(2));
  if (await stat(file).then(() => true, () => false)) return oid;
  await mkdir(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = join(folder, `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`);
  try {
    // Read-only, as git leaves its objects in a repository shared 0600.
    const handle = await open(temporary, 'wx', 0o400);
    try {
      await handle.writeFile(await deflated(object, { level: 1 }));
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return oid;
}

/** Trees by id, the most recently used kept (a tree's id is its content: an entry can never go stale). */
export class TreeCache {
  private readonly trees = new Map<string, Entry[]>();

  constructor(private readonly limit = 4_096) {}

  keep(oid: string, entries: Entry[]): void {
    this.trees.delete(oid);
    this.trees.set(oid, entries);
    if (this.trees.size > this.limit) this.trees.delete(this.trees.keys().next().value!);
  }

  /**
   * The trees at these folders of `base` (those it has), by folder. Folders
   * whose trees are kept are found from their parents; the rest are read in
   * one `git cat-file --batch`. Undefined when a name cannot be decoded.
   */
  async read(git: GitRunner, base: string, folders: readonly string[], signal?: AbortSignal): Promise<Map<string, Entry[]> | undefined> {
    const found = new Map<string, Entry[]>();
    const missing: string[] = [];
    // Parents before children: a folder's id is in its parent's entries.
    for (const folder of [...folders].sort((a, b) => depth(a) - depth(b))) {
      const oid = folder === '' ? base : this.idIn(found, folder);
      const entries = typeof oid === 'string' ? this.trees.get(oid) : undefined;
      if (entries) {
        this.keep(oid!, entries);
        found.set(folder, entries);
      } else if (oid !== null) missing.push(folder);
    }
    if (missing.length === 0) return found;
    const input = missing.map((folder) => (folder === '' ? `${base}\n` : `${base}:${folder}\n`)).join('');
    const out = await git.run(['cat-file', '--batch'], { input, signal });
    let offset = 0;
    for (const folder of missing) {
      const eol = out.indexOf(0x0a, offset);
      const [oid = '', type, size] = out.subarray(offset, eol).toString('utf8').split(' ');
      offset = eol + 1;
      if (type === 'missing' || size === undefined) continue;
      if (type === 'tree') {
        const entries = parseTree(out.subarray(offset, offset + Number(size)));
        if (entries.some((entry) => entry.raw.toString('utf8').includes('\uFFFD'))) return undefined;
        this.keep(oid, entries);
        found.set(folder, entries);
      }
      offset += Number(size) + 1;
    }
    return found;
  }

  /** The id of a folder's tree from its parent's entries; null when the parent is known and has no tree there, undefined when the parent is not known. */
  private idIn(found: Map<string, Entry[]>, folder: string): string | null | undefined {
    const slash = folder.lastIndexOf('/');
    const parent = found.get(slash < 0 ? '' : folder.slice(0, slash));
    if (!parent) return undefined;
    const name = folder.slice(slash + 1);
    const entry = parent.find((candidate) => candidate.mode === TREE && candidate.raw.toString('utf8') === name);
    return entry ? entry.oid : null;
  }
}

function depth(folder: string): number {
  return folder === '' ? 0 : folder.split('/').length;
}

function parseTree(content: Buffer): Entry[] {
  const entries: Entry[] = [];
  for (let offset = 0; offset < content.length; ) {
    const space = content.indexOf(0x20, offset);
    const nul = content.indexOf(0, space);
    entries.push({
      mode: content.subarray(offset, space).toString('latin1'),
      raw: Buffer.from(content.subarray(space + 1, nul)),
      oid: content.subarray(nul + 1, nul + 21).toString('hex'),
    });
    offset = nul + 21;
  }
  return entries;
}

