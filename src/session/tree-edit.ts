/**
 * A snapshot's tree written from the previous one and the paths a watcher
 * named, without git's index: the named files are read and kept as blobs,
 * and only the trees on their way to the root are written again. What it
 * costs follows what changed and how deep it lies, not how big the
 * workspace is; an index-based track has every git process read the whole
 * index (about 17 ms per 100,000 files, per process).
 *
 * It records what a track from the index records: files and symlinks with
 * git's modes, files git ignores left out unless the tree already holds
 * them, files over the size cap left out (and dropped), nested repositories
 * and anything beyond a symlink never entered. When it cannot be sure (a
 * name git's line protocol cannot carry, a folder of more than MAX_WALKED
 * files to read), it answers undefined and the caller scans.
 *
 * Objects are written as git writes loose objects: zlib-deflated
 * "<type> <size>\0<content>", named by its SHA-1, made read-only and moved
 * into place whole. The shadow repository keeps files byte-exact (no filters,
 * see shadow-repository.ts), so a blob is the file's bytes as they are.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, readlink, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { PRIVATE_DIR_MODE } from '../config/paths';
import type { FileChange } from '../tools/undo-recorder';
import { ancestors } from './file-states';
import type { GitRunner } from './git-runner';

/** A folder with more files than this to read is left to a scan. */
const MAX_WALKED = 2_000;
const TREE = '40000';
const FILE = '100644';
const EXECUTABLE = '100755';
const SYMLINK = '120000';
const GITLINK = '160000';
const DOT_GIT = '.git';
const deflated = promisify(deflate);

export interface TreeEditOptions {
  git: GitRunner;
  /** Trees read or written before, by id, so the next edit need not ask git for them. */
  trees: TreeCache;
  /** The shadow repository, whose objects folder takes the new objects. */
  gitDir: string;
  /** Real path of the workspace root. */
  root: string;
  maxFileBytes: number;
  signal?: AbortSignal;
}

/** The new tree and the files that differ from the previous one (as `git diff-tree -r` would list them). */
export interface EditedTree {
  tree: string;
  changes: FileChange[];
}

/** One entry of a tree object. */
interface Entry {
  mode: string;
  oid: string;
  /** The name's bytes as git keeps them. */
  raw: Buffer;
}

/** A file to record: its git mode and blob. */
interface Recorded {
  mode: string;
  oid: string;
}

/** What one named path is on disk now. */
type OnDisk = { path: string } & (
  | { kind: 'absent' }
  /** A nested repository, or inside one: its history is its own, the tree keeps what it had. */
  | { kind: 'nested' }
  | { kind: 'file'; stats: Stats }
  | { kind: 'folder'; files: Map<string, Stats>; nested: string[] }
);

/**
 * The tree `base` with the named workspace-relative paths as they are on
 * disk now (a folder named stands for everything under it); undefined when
 * this cannot be done safely and the tree should be scanned instead.
 */
export async function editTree(base: string, named: readonly string[], options: TreeEditOptions): Promise<EditedTree | undefined> {
  const paths = topmost(named.filter((path) => path !== '' && !path.split('/').includes(DOT_GIT)));
  if (paths.some((path) => path.includes('\n'))) return undefined;
  const edit = new Edit(base, options);
  return edit.run(paths);
}

class Edit {
  private readonly folderKinds = new Map<string, Promise<'folder' | 'nested' | 'not-folder'>>();

  constructor(
    private readonly base: string,
    private readonly options: TreeEditOptions,
  ) {}

  async run(paths: string[]): Promise<EditedTree | undefined> {
    const { git, signal } = this.options;
    const folders = [...new Set(['', ...paths.flatMap((path) => ancestors(path))])];
    const [trees, disk] = await Promise.all([
      this.options.trees.read(git, this.base, folders, signal),
      Promise.all(paths.map((path) => this.onDisk(path))),
    ]);
    // Without the root tree nothing can be edited (a folder tree git cannot find fails below, when it is entered).
    if (!trees?.has('') || disk.some((state) => state === undefined)) return undefined;
    const root = new Folder(trees, '');
    // The files the base tree has at or under each named path (a folder named stands for all it holds).
    const under = await listFiles(git, this.base, paths.filter((path) => root.entryAt(path)?.mode === TREE), signal);
    const old = new Map<string, Entry>();
    for (const path of paths) {
      const entry = root.entryAt(path);
      if (entry && entry.mode !== TREE) old.set(path, entry);
    }
    for (const [file, entry] of under) old.set(file, entry);

    // Paths new to the tree are recorded unless git ignores them (a tracked file stays tracked, as in the index).
    const fresh: string[] = [];
    for (const state of disk) {
      if (state!.kind === 'file' && !old.has(state!.path)) fresh.push(state!.path);
      if (state!.kind === 'folder') for (const file of state!.files.keys()) if (!old.has(file)) fresh.push(file);
    }
    const ignored = await ignoredAmong(git, fresh, signal);

    const touched = new Set<string>();
    const record = async (path: string, stats: Stats): Promise<void> => {
      touched.add(path);
      const state = ignored.has(path) ? undefined : await this.blob(path, stats);
      if (state) root.set(path, state);
    };
    for (const state of disk as OnDisk[]) {
      const { path } = state;
      // A nested repository's contents and a submodule belong to their own history: the tree keeps what it had.
      if (state.kind === 'nested' || root.entryAt(path)?.mode === GITLINK) continue;
      const before = [...old.keys()].filter((file) => file === path || file.startsWith(`${path}/`));
      for (const file of before) touched.add(file);
      root.remove(path);
      for (const file of before) {
        const entry = old.get(file)!;
        if (entry.mode === GITLINK || (state.kind === 'folder' && state.nested.some((nested) => file.startsWith(`${nested}/`)))) root.set(file, entry);
      }
      if (state.kind === 'file') await record(path, state.stats);
      if (state.kind === 'folder') for (const [file, stats] of state.files) await record(file, stats);
    }

    const changes: FileChange[] = [];
    for (const path of [...touched].sort()) {
      const was = old.get(path);
      const now = root.entryAt(path);
      const is = now?.mode === TREE ? undefined : now;
      if (was?.mode === GITLINK || is?.mode === GITLINK) continue;
      if (!was && is) changes.push({ path, status: 'added' });
      else if (was && !is) changes.push({ path, status: 'deleted' });
      else if (was && is && (was.mode !== is.mode || was.oid !== is.oid)) changes.push({ path, status: 'modified' });
    }
    const tree = await root.write(async (entries, content) => {
      const oid = await writeObject(this.options.gitDir, 'tree', content);
      this.options.trees.keep(oid, entries);
      return oid;
    });
    return { tree, changes };
  }

  /** What is at `path` now, as a track records it; undefined when a folder there holds too much to read. */
  private async onDisk(path: string): Promise<OnDisk | undefined> {
    for (const folder of ancestors(path).reverse()) {
      const kind = await this.ancestor(folder);
      if (kind === 'nested') return { path, kind: 'nested' };
      // Beyond a symlink or a file: nothing a track records (the symlink itself is named by its own event).
      if (kind === 'not-folder') return { path, kind: 'absent' };
    }
    const stats = await lstat(join(this.options.root, path)).catch(() => undefined);
    if (!stats) return { path, kind: 'absent' };
    if (stats.isFile() || stats.isSymbolicLink()) return { path, kind: 'file', stats };
    if (!stats.isDirectory()) return { path, kind: 'absent' };
    if (await isRepository(join(this.options.root, path))) return { path, kind: 'nested' };
    return this.walk(path);
  }

  /** Every file and symlink under a folder (nested repositories left out), or undefined past MAX_WALKED. */
  private async walk(top: string): Promise<OnDisk | undefined> {
    const files = new Map<string, Stats>();
    const nested: string[] = [];
    const queue = [top];
    for (let folder = queue.pop(); folder !== undefined; folder = queue.pop()) {
      const absolute = join(this.options.root, folder);
      if (folder !== top && (await isRepository(absolute))) {
        nested.push(folder);
        continue;
      }
      const names = await readdir(absolute).catch((): string[] => []);
      for (const name of names) {
        if (name === DOT_GIT) continue;
        // A name Node could not decode cannot be written back as git has it.
        if (name.includes('\uFFFD') || name.includes('\n')) return undefined;
        const path = `${folder}/${name}`;
        const stats = await lstat(join(this.options.root, path)).catch(() => undefined);
        if (stats?.isDirectory()) queue.push(path);
        else if (stats?.isFile() || stats?.isSymbolicLink()) files.set(path, stats);
        if (files.size > MAX_WALKED) return undefined;
      }
    }
    return { path: top, kind: 'folder', files, nested };
  }

  private ancestor(folder: string): Promise<'folder' | 'nested' | 'not-folder'> {
    let kind = this.folderKinds.get(folder);
    if (!kind) {
      const absolute = join(this.options.root, folder);
      kind = lstat(absolute).then(
        async (stats) => (!stats.isDirectory() ? 'not-folder' : (await isRepository(absolute)) ? 'nested' : 'folder'),
        () => 'not-folder' as const,
      );
      this.folderKinds.set(folder, kind);
    }
    return kind;
  }

  /** The file's content kept as a blob, with its git mode; undefined when it is over the size cap or gone. */
  private async blob(path: string, stats: Stats): Promise<Recorded | undefined> {
    const absolute = join(this.options.root, path);
    if (stats.isSymbolicLink()) {
      const target = await readlink(absolute, { encoding: 'buffer' }).catch(() => undefined);
      return target && { mode: SYMLINK, oid: await writeObject(this.options.gitDir, 'blob', target) };
    }
    if (stats.size > this.options.maxFileBytes) return undefined;
    const content = await readFile(absolute).catch(() => undefined);
    if (!content || content.length > this.options.maxFileBytes) return undefined;
    // git keeps one executable bit: the owner's.
    return { mode: stats.mode & 0o100 ? EXECUTABLE : FILE, oid: await writeObject(this.options.gitDir, 'blob', content) };
  }
}

/** One folder of the tree being written: its entries, and the subfolders changed below it. */
class Folder {
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

/** Every file (and submodule) the base tree has under these folders, by path. */
async function listFiles(git: GitRunner, base: string, folders: readonly string[], signal?: AbortSignal): Promise<Map<string, Entry>> {
  const files = new Map<string, Entry>();
  if (folders.length === 0) return files;
  const out = await git.text(['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', base, '--', ...folders], { signal });
  for (const record of out.split('\0')) {
    // `<mode> <type> <object>\t<path>`
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', , oid = ''] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    files.set(path, { mode, oid, raw: Buffer.from(path.slice(path.lastIndexOf('/') + 1), 'utf8') });
  }
  return files;
}

/** Which of these paths the workspace's ignore rules (and the shadow's excludes) leave out, asked without the index. */
async function ignoredAmong(git: GitRunner, paths: readonly string[], signal?: AbortSignal): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const out = await git.text(['check-ignore', '--no-index', '-z', '--stdin'], {
    input: paths.map((path) => `${path}\0`).join(''),
    signal,
    okExitCodes: [0, 1],
  });
  return new Set(out.split('\0').filter((path) => path !== ''));
}

/** A folder git would treat as a repository of its own: it has a `.git` folder or file. */
async function isRepository(folder: string): Promise<boolean> {
  return lstat(join(folder, DOT_GIT)).then(
    (stats) => stats.isDirectory() || stats.isFile(),
    () => false,
  );
}

/** The paths, less those under another of them (a folder named stands for all it holds). */
function topmost(paths: readonly string[]): string[] {
  const unique = new Set(paths);
  return [...unique].filter((path) => !ancestors(path).some((folder) => unique.has(folder)));
}

