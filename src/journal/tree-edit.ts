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
 * Objects are written in this process (git-trees.ts). The shadow repository
 * keeps files byte-exact (no filters, see shadow-repository.ts), so a blob
 * is the file's bytes as they are.
 */
import type { Stats } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChange } from '../tools/undo-recorder';
import { ancestors } from './file-states';
import type { GitRunner } from './git-runner';
import { type Entry, EXECUTABLE, FILE, Folder, GITLINK, type Recorded, SYMLINK, TREE, type TreeCache, writeObject } from './git-trees';

/** A folder with more files than this to read is left to a scan. */
const MAX_WALKED = 2_000;
const DOT_GIT = '.git';

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
    const [trees, found] = await Promise.all([
      this.options.trees.read(git, this.base, folders, signal),
      Promise.all(paths.map((path) => this.onDisk(path))),
    ]);
    const disk = found.filter((state): state is OnDisk => state !== undefined);
    // Without the root tree nothing can be edited (a folder tree git cannot find fails below, when it is entered).
    if (!trees?.has('') || disk.length < found.length) return undefined;
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
      if (state.kind === 'file' && !old.has(state.path)) fresh.push(state.path);
      if (state.kind === 'folder') for (const file of state.files.keys()) if (!old.has(file)) fresh.push(file);
    }
    const ignored = await ignoredAmong(git, fresh, signal);

    const touched = new Set<string>();
    const record = async (path: string, stats: Stats): Promise<void> => {
      touched.add(path);
      const state = ignored.has(path) ? undefined : await this.blob(path, stats);
      if (state) root.set(path, state);
    };
    for (const state of disk) {
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

    const tree = await root.write(async (entries, content) => {
      const oid = await writeObject(this.options.gitDir, 'tree', content);
      this.options.trees.keep(oid, entries);
      return oid;
    });
    return { tree, changes: changeList(touched, old, root) };
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

/** The files that differ between what the base had (`old`) and the edited tree, among those touched, as diff-tree lists them (submodules left out). */
function changeList(touched: ReadonlySet<string>, old: ReadonlyMap<string, Entry>, edited: Folder): FileChange[] {
  const changes: FileChange[] = [];
  for (const path of [...touched].sort()) {
    const was = old.get(path);
    const entry = edited.entryAt(path);
    const is = entry?.mode === TREE ? undefined : entry;
    if (was?.mode === GITLINK || is?.mode === GITLINK) continue;
    if (!was && is) changes.push({ path, status: 'added' });
    else if (was && !is) changes.push({ path, status: 'deleted' });
    else if (was && is && (was.mode !== is.mode || was.oid !== is.oid)) changes.push({ path, status: 'modified' });
  }
  return changes;
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

