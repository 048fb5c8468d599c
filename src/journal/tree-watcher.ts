/**
 * What changed in the workspace since a moment, told by the operating
 * system's file events instead of found by scanning the tree, so a snapshot
 * of a huge workspace looks only where something happened.
 *
 * Each folder of the workspace has a watch of its own (Node's fs.watch: one
 * inotify watch per folder on Linux, all read from one descriptor by the
 * event loop, in the order the kernel queued them). No native module, no
 * debounce: an event reaches this process in well under a millisecond. A
 * folder that appears is watched, then read, so nothing made in it before
 * its watch goes unnamed: the folder itself is named and the snapshot reads
 * what is under it.
 *
 * An answer is given only when it can be trusted: the watcher was listening
 * for the whole stretch, no event was lost (a watch reported an error, a
 * name could not be decoded, a folder could not be watched), no .gitignore
 * changed (files nobody touched may have come into view), and a sync file
 * has come back, so every change made before the question has been
 * delivered. Otherwise the answer is 'unknown' and the caller scans.
 *
 * The sync file is written in the workspace's own `.git` folder, never in
 * the work tree, so dev servers and editors watching the files see nothing
 * of Crow. A workspace that is not the top of a git work tree with a `.git`
 * folder has no place for the sync file: it is scanned.
 *
 * A kernel queue overflow (more than fs.inotify.max_queued_events unread,
 * 16,384 by default) is not reported to Node: libuv drops inotify's overflow
 * event. It is inferred instead. When the queue overflows it is full, and
 * every event in it is delivered afterwards, before or after the sync that
 * closes a stretch; so the stretch where events were dropped, or the one
 * before it, saw at least half the queue's size in events. A stretch that
 * did, and the one after it, are scanned. (Other fs.watch users in the same
 * process share the queue unseen: in crow's own processes there are none.)
 *
 * A stretch with more than MAX_PATHS changed paths is scanned too, as is a
 * workspace of more than MAX_FOLDERS folders, or one where the system's
 * watch limit is reached.
 */
import { randomUUID } from 'node:crypto';
import { type FSWatcher, watch as nodeWatch } from 'node:fs';
import { lstat, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Prefix of the sync files written in the workspace's `.git` folder. */
export const SYNC_FILE_PREFIX = 'crow-undo-sync-';
/** Beyond this many changed paths since the last question, scanning is cheaper than naming them all. */
const MAX_PATHS = 1_000;
/** Beyond this many folders the watches cost more memory than they save (about 2 KB each); the workspace is scanned. */
export const MAX_FOLDERS = 50_000;
/** How long a sync file may take to come back before the answer is 'unknown'. */
const SYNC_TIMEOUT_MS = 1_000;
/** The kernel's queue of file events when /proc does not say (Linux's default). */
const QUEUED_EVENTS = 16_384;
/** Folders read at once while watching a new subtree. */
const READERS = 8;
const DOT_GIT = '.git';

/** A moment in the stream of file events, from which changes are asked for next time (opaque). */
export type WatchMark = object;

export interface TreeWatcher {
  /** A mark from now on, and the paths changed since `previous` (all events up to now delivered), or 'unknown'. */
  advance(previous: WatchMark | undefined): Promise<{ mark: WatchMark; changed: string[] | 'unknown' }>;
  close(): Promise<void>;
}

/** The part of a folder watch this module uses (Node's FSWatcher). */
export interface FolderWatch {
  close(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** Starts watching one folder (not its subfolders): a name in it changed, or null when the system could not say which. */
export type WatchFolder = (path: string, listener: (name: string | null) => void) => FolderWatch;

export interface WatchTreeOptions {
  /** Absolute folders never watched (crow's data folder inside the workspace: its own writes are no change of the user's). */
  skip?: readonly string[];
  /** Starts one folder's watch (tests); default fs.watch. */
  watchFolder?: WatchFolder;
  /** Most folders watched (default MAX_FOLDERS). */
  maxFolders?: number;
  /** Events the kernel queues before it drops them (default: fs.inotify.max_queued_events). */
  maxQueuedEvents?: number;
}

/** The events since the last mark handed out. */
class Changes {
  readonly paths = new Set<string>();
  /** Events delivered, all of them (repeats, `.git`, unnamed): what they took of the kernel's queue. */
  events = 0;
  /** Set when an event may have been missed meanwhile. */
  lost = false;
}

const watchWithNode: WatchFolder = (path, listener) =>
  // Not persistent: a watch never keeps `crow run` from exiting.
  nodeWatch(path, { persistent: false }, (_event, name) => listener(typeof name === 'string' ? name : null)) as FSWatcher;

/** Watches `root`; undefined when it cannot (no `.git` folder for the sync file, too many folders, the system's watch limit). */
export async function watchTree(root: string, options: WatchTreeOptions = {}): Promise<TreeWatcher | undefined> {
  if (!(await lstat(join(root, DOT_GIT)).then((stats) => stats.isDirectory(), () => false))) return undefined;
  const maxQueuedEvents = options.maxQueuedEvents ?? (await queuedEventsLimit());
  const watcher = new FolderTreeWatcher(root, { ...options, maxQueuedEvents });
  try {
    await watcher.start();
  } catch {
    await watcher.close();
    return undefined;
  }
  return watcher;
}

/** fs.inotify.max_queued_events on Linux; the default elsewhere. */
async function queuedEventsLimit(): Promise<number> {
  const text = await readFile('/proc/sys/fs/inotify/max_queued_events', 'utf8').catch(() => '');
  const limit = Number.parseInt(text, 10);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : QUEUED_EVENTS;
}

/** One watched folder: its watch and the inode it was started on (a folder replaced under the same name needs a new watch). */
interface Watched {
  watch: FolderWatch;
  ino: number;
}

export class FolderTreeWatcher implements TreeWatcher {
  private current = new Changes();
  /** The mark the last advance handed out: changes are known only since it. */
  private last: WatchMark | undefined;
  /** Watched folders by workspace-relative path ('' is the root). */
  private readonly folders = new Map<string, Watched>();
  /** The watched subfolders of each watched folder, so a removed folder's watches go without a look at all the others. */
  private readonly subfolders = new Map<string, Set<string>>();
  private gitWatch: FolderWatch | undefined;
  private readonly waiting = new Map<string, () => void>();
  /** Folders being read and watched; an answer waits for them. */
  private readonly pending = new Set<Promise<void>>();
  private readonly watchFolder: WatchFolder;
  private readonly maxFolders: number;
  private readonly skip: Set<string>;
  /** A stretch that saw this many events may have overflowed the kernel's queue (or the next one did). */
  private readonly overflowable: number;
  /** The last stretch saw that many: events of this one may have been dropped. */
  private heavy = false;
  /** False once a sync file did not come back: the watcher then answers 'unknown' at once. */
  private synced = true;
  /** Set for good when watching can no longer cover the tree (too many folders). */
  private broken = false;
  private closed = false;

  constructor(
    readonly root: string,
    options: WatchTreeOptions = {},
  ) {
    this.watchFolder = options.watchFolder ?? watchWithNode;
    this.maxFolders = options.maxFolders ?? MAX_FOLDERS;
    this.overflowable = Math.floor((options.maxQueuedEvents ?? QUEUED_EVENTS) / 2);
    this.skip = new Set(options.skip ?? []);
  }

  /** Watches `.git` (for the sync files) and every folder of the work tree; throws when the tree cannot be covered. */
  async start(): Promise<void> {
    this.gitWatch = this.watchFolder(join(this.root, DOT_GIT), (name) => {
      this.current.events++;
      if (name !== null) this.waiting.get(name)?.();
    });
    this.gitWatch.on('error', () => (this.synced = false));
    await this.watchSubtree('');
    await this.settle();
    if (this.broken) throw new Error(`more than ${this.maxFolders} folders to watch`);
  }

  /**
   * A new mark, and what changed since `previous`: known only when it is
   * the mark the last advance handed out (nothing in between went untold)
   * and every event up to now has been delivered.
   */
  async advance(previous: WatchMark | undefined): Promise<{ mark: WatchMark; changed: string[] | 'unknown' }> {
    // A sync file that never came back (a stalled watch) is not waited for again.
    const synced = this.synced && (this.synced = await this.sync());
    // Folders that appeared are watched before the answer, so what changes in them next is told.
    await this.settle();
    const ended = this.current;
    this.current = new Changes();
    const overflowed = this.heavy || ended.events >= this.overflowable;
    this.heavy = ended.events >= this.overflowable;
    const trusted = synced && !this.broken && previous !== undefined && previous === this.last && !ended.lost && !overflowed;
    const mark: WatchMark = {};
    this.last = mark;
    return { mark, changed: trusted ? [...ended.paths] : 'unknown' };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.gitWatch?.close();
    this.gitWatch = undefined;
    for (const { watch } of this.folders.values()) watch.close();
    this.folders.clear();
    this.subfolders.clear();
  }

  /** A name changed in a watched folder. */
  private event(folder: string, name: string | null): void {
    this.current.events++;
    // No name, or one that is not valid UTF-8 (Node decodes it lossily): the path cannot be told.
    if (name === null || name.includes('\uFFFD')) {
      this.current.lost = true;
      return;
    }
    const path = folder === '' ? name : `${folder}/${name}`;
    this.current.paths.add(path);
    // A changed .gitignore can show or hide files no event names: only a scan sees them as git does.
    if (this.current.paths.size > MAX_PATHS || name === '.gitignore') this.current.lost = true;
    if (name !== DOT_GIT) this.track(this.refresh(path));
  }

  /** After an event at `path`: a folder there is watched (again, if it was replaced); watches under a path that is no folder now are dropped. */
  private async refresh(path: string): Promise<void> {
    const stats = await lstat(join(this.root, path)).catch(() => undefined);
    const watched = this.folders.get(path);
    if (stats?.isDirectory() && watched?.ino === stats.ino) return;
    this.unwatch(path);
    if (stats?.isDirectory()) await this.watchSubtree(path);
  }

  /** Watches a folder and, read after its watch began, every folder under it. */
  private async watchSubtree(top: string): Promise<void> {
    const queue = [top];
    const reader = async (): Promise<void> => {
      for (let folder = queue.pop(); folder !== undefined; folder = queue.pop()) {
        for (const sub of await this.watchOne(folder)) queue.push(sub);
      }
    };
    // The first folder is read alone, so the readers find a queue to share.
    for (const sub of await this.watchOne(queue.pop()!)) queue.push(sub);
    await Promise.all(Array.from({ length: READERS }, reader));
  }

  /** Watches one folder; returns its subfolders (read once the watch is on, so none made meanwhile is missed). */
  private async watchOne(folder: string): Promise<string[]> {
    if (this.closed || this.broken) return [];
    const absolute = folder === '' ? this.root : join(this.root, folder);
    if (this.skip.has(absolute)) return [];
    if (this.folders.size >= this.maxFolders) {
      this.broken = true;
      return [];
    }
    let watch: FolderWatch;
    let ino: number;
    try {
      ino = (await lstat(absolute)).ino;
      watch = this.watchFolder(absolute, (name) => this.event(folder, name));
    } catch {
      // Gone already (its parent's event names it), or the system's watch limit: the latter loses what happens in it.
      if (await lstat(absolute).then((stats) => stats.isDirectory(), () => false)) this.current.lost = true;
      return [];
    }
    watch.on('error', () => (this.current.lost = true));
    this.unwatch(folder);
    this.folders.set(folder, { watch, ino });
    if (folder !== '') {
      const parent = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
      this.subfolders.set(parent, (this.subfolders.get(parent) ?? new Set()).add(folder));
    }
    const subfolders: string[] = [];
    try {
      // One read per folder: iterating a Dir costs a round trip to the thread pool per 32 entries, four times as long on 100,000 files.
      for (const entry of await readdir(absolute, { withFileTypes: true })) {
        if (entry.isDirectory() && entry.name !== DOT_GIT) subfolders.push(folder === '' ? entry.name : `${folder}/${entry.name}`);
      }
    } catch {
      // Removed while being read: its parent's event names it.
    }
    return subfolders;
  }

  /** Drops the watches at and under `path`. */
  private unwatch(path: string): void {
    const watched = this.folders.get(path);
    if (!watched) return;
    watched.watch.close();
    this.folders.delete(path);
    for (const sub of this.subfolders.get(path) ?? []) this.unwatch(sub);
    this.subfolders.delete(path);
  }

  private track(work: Promise<void>): void {
    const done = work.catch(() => (this.current.lost = true)).then(() => void this.pending.delete(done));
    this.pending.add(done);
  }

  /** Waits until no folder is being read and watched. */
  private async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Writes a sync file in `.git` and waits until its event arrives: then every earlier event has been taken. */
  private async sync(): Promise<boolean> {
    const name = `${SYNC_FILE_PREFIX}${process.pid}-${randomUUID()}`;
    const file = join(this.root, DOT_GIT, name);
    const back = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), SYNC_TIMEOUT_MS);
      this.waiting.set(name, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    try {
      await writeFile(file, '', { flag: 'wx' });
    } catch {
      this.waiting.delete(name);
      return false;
    }
    try {
      return await back;
    } finally {
      this.waiting.delete(name);
      await rm(file, { force: true });
    }
  }
}
