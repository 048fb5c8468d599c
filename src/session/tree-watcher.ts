/**
 * What changed in the workspace since a moment, told by the operating
 * system's file events (a native watcher, @parcel/watcher, the one VS Code
 * uses) instead of found by scanning the tree, so a snapshot of a huge
 * workspace looks only where something happened.
 *
 * An answer is given only when it can be trusted: the watcher was listening
 * for the whole stretch, no event was lost (an error reported), no
 * .gitignore changed (files nobody touched may have come into view), and a sync
 * file has come back through the watcher, so every change made before the
 * question has been delivered (one watcher's events arrive in order).
 * Otherwise the answer is 'unknown' and the caller scans, as it did without
 * a watcher.
 *
 * The sync file is written in the workspace's own `.git` folder, never in
 * the work tree, so dev servers and editors watching the files see nothing
 * of Crow. The watch on `.git` covers that folder alone (its subfolders are
 * not watched), and git's own writes there are dropped here. A workspace
 * that is not the top of a git work tree with a `.git` folder has no place
 * for the sync file: it is scanned.
 *
 * Limit: @parcel/watcher does not report a kernel queue overflow on Linux
 * (inotify's IN_Q_OVERFLOW is skipped). A stretch with more than MAX_PATHS
 * changed paths is scanned; an overflow needs more than 16,384 events
 * queued faster than the watcher's thread reads them.
 */
import { randomUUID } from 'node:crypto';
import { lstat, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Prefix of the sync files written in the workspace's `.git` folder. */
export const SYNC_FILE_PREFIX = 'crow-undo-sync-';
/** Beyond this many changed paths since the last question, scanning is cheaper than naming them all to git. */
const MAX_PATHS = 1_000;
/** How long a sync file may take to come back before the answer is 'unknown'. */
const SYNC_TIMEOUT_MS = 1_000;
const DOT_GIT = '.git';

/** A moment in the stream of file events, from which changes are asked for next time (opaque). */
export type WatchMark = object;

export interface TreeWatcher {
  /** A mark from now on, and the paths changed since `previous` (all events up to now delivered), or 'unknown'. */
  advance(previous: WatchMark | undefined): Promise<{ mark: WatchMark; changed: string[] | 'unknown' }>;
  close(): Promise<void>;
}

/** One file event: an absolute path (what @parcel/watcher reports). */
export interface FileEvent {
  path: string;
  type: string;
}

/** The @parcel/watcher API this module uses. */
export interface NativeWatcher {
  subscribe(dir: string, callback: (err: Error | null, events: FileEvent[]) => void, options?: { ignore?: string[] }): Promise<{ unsubscribe(): Promise<void> }>;
}

/** The events since the last mark handed out. */
class Changes {
  readonly paths = new Set<string>();
  /** Set when an event may have been missed meanwhile. */
  lost = false;
}

/**
 * Watches `root` with the native watcher; undefined when it cannot (not
 * installed, no build for this platform, too many folders to watch, no
 * `.git` folder for the sync file).
 */
export async function watchTree(root: string, load: () => NativeWatcher = loadNative): Promise<TreeWatcher | undefined> {
  const dotGit = join(root, DOT_GIT);
  if (!(await lstat(dotGit).then((stats) => stats.isDirectory(), () => false))) return undefined;
  let native: NativeWatcher;
  try {
    native = load();
  } catch {
    return undefined;
  }
  const watcher = new ParcelTreeWatcher(root);
  try {
    // `.git` itself is watched (the sync files), not what is in its folders.
    const inGit = await readdir(dotGit, { withFileTypes: true });
    const ignore = inGit.filter((entry) => entry.isDirectory()).map((entry) => `${DOT_GIT}/${entry.name}`);
    await watcher.start(native, ignore);
  } catch {
    await watcher.close();
    return undefined;
  }
  return watcher;
}

function loadNative(): NativeWatcher {
  return require('@parcel/watcher') as NativeWatcher;
}

export class ParcelTreeWatcher implements TreeWatcher {
  private current = new Changes();
  /** The mark the last advance handed out: changes are known only since it. */
  private last: WatchMark | undefined;
  private subscription: { unsubscribe(): Promise<void> } | undefined;
  private readonly waiting = new Map<string, () => void>();
  /** False once a sync file did not come back: the watcher then answers 'unknown' at once. */
  private synced = true;

  constructor(readonly root: string) {}

  async start(native: NativeWatcher, ignore: string[]): Promise<void> {
    this.subscription = await native.subscribe(this.root, (err, events) => this.take(err, events), { ignore });
  }

  /** Takes a batch of the watcher's events (an error loses the stretch). */
  take(err: Error | null, events: readonly FileEvent[]): void {
    if (err) this.current.lost = true;
    for (const event of events) {
      const path = relative(this.root, event.path).split(sep).join('/');
      if (path === DOT_GIT || path.startsWith(`${DOT_GIT}/`)) {
        // git's own writes (index, HEAD, locks) are no part of the snapshot; a sync file is awaited.
        this.waiting.get(path.slice(DOT_GIT.length + 1))?.();
        continue;
      }
      if (path === '' || path === '..' || path.startsWith('../')) {
        // The root itself (removed, moved): nothing can be told.
        this.current.lost = true;
        continue;
      }
      this.current.paths.add(path);
      // A changed .gitignore can show or hide files no event names: only a scan sees them as git now does.
      if (this.current.paths.size > MAX_PATHS || path === '.gitignore' || path.endsWith('/.gitignore')) this.current.lost = true;
    }
  }

  /**
   * A new mark, and what changed since `previous`: known only when it is
   * the mark the last advance handed out (nothing in between went untold)
   * and every event up to now has been delivered.
   */
  async advance(previous: WatchMark | undefined): Promise<{ mark: WatchMark; changed: string[] | 'unknown' }> {
    // A sync file that never came back (a watch on .git that does not report, a stalled watcher) is not waited for again.
    const synced = this.synced && (this.synced = await this.sync());
    const ended = this.current;
    this.current = new Changes();
    const trusted = synced && previous !== undefined && previous === this.last && !ended.lost;
    const mark: WatchMark = {};
    this.last = mark;
    return { mark, changed: trusted ? [...ended.paths] : 'unknown' };
  }

  /** Writes a sync file in `.git` and waits until the watcher reports it: then every earlier event has been taken. */
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

  async close(): Promise<void> {
    await this.subscription?.unsubscribe().catch(() => undefined);
    this.subscription = undefined;
  }
}
