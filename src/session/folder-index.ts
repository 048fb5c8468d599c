/**
 * Which stored sessions belong to which folder, so that listing one
 * folder's sessions reads theirs only, however many other folders' the
 * store holds.
 *
 * It lives beside the sessions folder (`<data>/sessions-by-folder/`): a
 * sub-folder per folder, named by its key (see folderKeys), holding one
 * empty file per session of that folder, named by the session's id. Each
 * file is made or removed on its own, never read, changed and written
 * back, so processes storing sessions at the same time cannot lose each
 * other's entries. `state.json` holds the stamp of the sessions folder (its
 * identity and times) when the entries were last found complete, and the
 * sessions that had no readable meta.json then (one being made, a damaged
 * one).
 *
 * The index only narrows where to look. A session is listed from its own
 * meta.json, and only when that names the folder; nothing is ever removed
 * but the index's own entries. A Crow that makes or removes a session
 * keeps the index complete itself (see adding and removing), so a listing
 * reads the state and the one folder's entries after a stat of the
 * sessions folder, however many sessions it holds. Whenever the sessions
 * folder changed otherwise since the stamp (a session made or removed by
 * an older Crow, or by hand, or two Crows at once), the entries are
 * brought up to date with it: the meta.json of each session without an
 * entry is read and the entries of sessions gone are removed. A missing, torn or foreign index is rebuilt
 * from every session's meta.json, once; nothing is lost with it. An index
 * folder that is not the user's own is never read: listing then reads
 * every session, as it did before there was an index.
 */
import { type Dirent, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { lstatOrMissing, privateFolderProblem, readPrivateFile, removeEntry, writePrivateFile } from '../config/private-files';
import { folderStamp, type FolderStamp, SETTLE_MS } from '../vocabulary/folder-stamp';
import { comparablePath, foldPath, withoutDevicePrefix } from '../vocabulary/path-semantics';
import { realPathOf } from '../vocabulary/real-paths';
import { workspaceKey } from '../vocabulary/workspace-key';

const STATE_FILE = 'state.json';
const FORMAT = 1;
const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;
const KEY = /^[A-Za-z0-9._-]{1,40}-[0-9a-f]{16}$/;

/** What `state.json` holds. */
interface IndexState {
  format: typeof FORMAT;
  /** The sessions folder's stamp when every session in it had its entries; absent when it had not settled then (see SETTLE_MS). */
  stamp?: string;
  /** Sessions that had no readable meta.json then: filed once they have one. */
  pending: string[];
}

/** Entries by folder key: the ids filed under each. */
type Entries = Map<string, Set<string>>;

export class FolderIndex {
  /** Whether the index folder was found to be the user's own; undefined until first used. */
  private own: boolean | undefined;
  private warned = false;

  /**
   * `sessions` is the sessions folder (checked to be Crow's own by the
   * caller), `folder` the index's own; `cwdOf` reads the folder a stored
   * session belongs to from its meta.json (undefined when none can be read).
   */
  constructor(
    private readonly sessions: string,
    private readonly folder: string,
    private readonly cwdOf: (id: string) => string | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  /** Files session `id` under `cwd`; whether it was. A failure is told (once) and changes nothing else: the index catches up later. */
  add(id: string, cwd: string): boolean {
    if (!this.usable()) return false;
    return (
      this.quietly(() => {
        for (const key of folderKeys(cwd)) fileEntry(join(this.folder, key), id);
        return true;
      }) ?? false
    );
  }

  /**
   * Makes session `id` of `cwd` with `make` (which makes its folder in the
   * sessions folder), filed before, so that every session folder this Crow
   * makes has its entry by the time it is there. See keepingStamp.
   */
  adding(id: string, cwd: string, make: () => void): void {
    if (!this.usable()) return make();
    this.keepingStamp(1, () => {
      const filed = this.add(id, cwd);
      make();
      return filed;
    });
  }

  /** Removes session `id` of `cwd` with `remove` (which removes its folder), then its entries. See keepingStamp. */
  removing(id: string, cwd: string, remove: () => void): void {
    if (!this.usable()) return remove();
    this.keepingStamp(-1, () => {
      remove();
      // An entry left behind names a session that is gone: skipped by every listing, removed by the next catch-up.
      this.quietly(() => {
        for (const key of folderKeys(cwd)) this.removeFiled(key, id);
      });
      return true;
    });
  }

  /**
   * Runs `change`, one session folder made (+1) or removed (-1) with its
   * entries (false when they could not be kept), and moves the stamp on with it when the index was complete
   * just before (the stamp held) and nothing else changed the sessions
   * folder meanwhile: the next listing, in any process, then needs no
   * catch-up. Nothing else changed when the folder's links count moved by
   * exactly `subfolders` (on a file system that counts subfolders in it):
   * another Crow making a session at the same moment, or an older one, or
   * a hand, leaves the stamp as it was, and the next listing catches up.
   * The stamp is taken right after a change here, unlike a catch-up's (see
   * SETTLE_MS): the links count, part of it, still tells a later change in
   * the same tick of the clock (as do Linux's fine-grained times for a
   * change after a stat).
   */
  private keepingStamp(subfolders: 1 | -1, change: () => boolean): void {
    const state = this.quietly(() => this.readState());
    const before = folderStamp(this.sessions);
    if (!change() || state === undefined || state === 'damaged' || state.stamp !== before.text) return;
    const after = folderStamp(this.sessions);
    const alone = after.identity === before.identity && (before.links <= 1n || after.links - before.links === BigInt(subfolders));
    if (!alone || after.text === before.text) return;
    // A catch-up that ended meanwhile wrote a state of its own (sessions pending): it is kept, and the next listing checks again.
    const now = this.quietly(() => this.readState());
    if (now === undefined || now === 'damaged' || now.stamp !== state.stamp || now.pending.join() !== state.pending.join()) return;
    this.quietly(() => this.writeState({ ...state, stamp: after.text }));
  }

  /** Whether the entry `id` under `key` was made within SETTLE_MS: by a Crow making that session now. */
  private justFiled(key: string, id: string): boolean {
    const made = lstatOrMissing(join(this.folder, key, checked(id)))?.mtimeMs;
    return made !== undefined && Date.now() - made < SETTLE_MS;
  }

  /**
   * The ids filed under `cwd`, the index first brought up to date with the
   * sessions folder. Some may not be of `cwd` (a foreign entry): the caller
   * checks each session's meta.json.
   */
  idsOf(cwd: string): string[] {
    const entries = this.upToDate();
    const ids = new Set<string>();
    for (const key of folderKeys(cwd)) for (const id of entries ? entries.get(key) ?? [] : this.filedUnder(key)) ids.add(id);
    return [...ids];
  }

  /** All entries when they had to be brought up to date now (they are the answer, written or not), else undefined: the stamp held. */
  private upToDate(): Entries | undefined {
    const stamp = folderStamp(this.sessions);
    if (!this.usable()) return this.catchUp(stamp, undefined, false);
    const state = this.readState();
    if (state !== 'damaged' && state !== undefined && state.stamp === stamp.text) {
      if (state.pending.length > 0) this.filePending(state);
      return undefined;
    }
    const entries = this.catchUp(stamp, state === 'damaged' ? undefined : state, true);
    // Told after the rebuild, so that one that could not be written is told as such instead.
    if (state === 'damaged') this.tell(`the index of sessions by folder (${this.folder}) was damaged: rebuilt it from the sessions, nothing is lost`);
    return entries;
  }

  /**
   * Makes the entries match the sessions folder: with a state, only the
   * sessions without an entry are read; without one (first use, damage),
   * every session is, and entries under a wrong folder are removed too.
   * Unless `keep`, only works the answer out, reading and writing nothing
   * of the index.
   */
  private catchUp(stamp: FolderStamp, state: IndexState | undefined, keep: boolean): Entries {
    const present = new Set(readdirSync(this.sessions).filter(isSessionId));
    const entries = (keep ? this.quietly(() => this.readEntries()) : undefined) ?? new Map<string, Set<string>>();
    const filed = new Map<string, string[]>();
    for (const [key, ids] of entries) for (const id of ids) filed.set(id, [...(filed.get(id) ?? []), key]);
    const keysOf = memoized(folderKeys);
    const ready = new Set<string>();
    const change = (write: () => void): void => {
      if (keep) this.quietly(write);
    };
    const pending: string[] = [];
    const unfile = (key: string, id: string): void => {
      change(() => this.removeFiled(key, id));
      entries.get(key)!.delete(id);
    };
    for (const id of present) {
      const was = filed.get(id) ?? [];
      if (state !== undefined && was.length > 0) continue;
      const cwd = this.cwdOf(id);
      if (cwd === undefined) pending.push(id);
      const wanted = cwd === undefined ? [] : keysOf(cwd);
      for (const key of was) if (!wanted.includes(key)) unfile(key, id);
      for (const key of wanted) {
        if (was.includes(key)) continue;
        change(() => fileEntry(join(this.folder, key), id, ready));
        entries.set(key, (entries.get(key) ?? new Set()).add(id));
      }
    }
    // An entry just made may be of a session whose folder comes next (see adding): it stays.
    for (const [id, keys] of filed) if (!present.has(id)) for (const key of keys) if (!this.justFiled(key, id)) unfile(key, id);
    change(() => this.writeState({ format: FORMAT, ...(stamp.settled ? { stamp: stamp.text } : {}), pending }));
    return entries;
  }

  /** Files the pending sessions that have a meta.json by now. */
  private filePending(state: IndexState): void {
    const pending = state.pending.filter((id) => {
      const cwd = this.cwdOf(id);
      if (cwd !== undefined) this.add(id, cwd);
      return cwd === undefined;
    });
    if (pending.length < state.pending.length) this.quietly(() => this.writeState({ ...state, pending }));
  }

  /** Removes the entry `id` under `key`, only ever inside the index's own folder (never through a link). */
  private removeFiled(key: string, id: string): void {
    const folder = join(this.folder, key);
    if (lstatOrMissing(folder)?.isDirectory()) removeEntry(join(folder, checked(id)));
  }

  /** Every entry, by key. What is not an entry (a link, a stray name) is removed: only Crow writes here. */
  private readEntries(): Entries {
    const entries: Entries = new Map();
    for (const dirent of readdirSync(this.folder, { withFileTypes: true })) {
      if (dirent.isDirectory() && KEY.test(dirent.name)) entries.set(dirent.name, new Set(this.filedUnder(dirent.name)));
      else if (dirent.name !== STATE_FILE && !dirent.name.startsWith(`${STATE_FILE}.`)) removeEntry(join(this.folder, dirent.name));
    }
    return entries;
  }

  /** The ids filed under `key`: regular files with a session id's name, in a real folder (never through a link). */
  private filedUnder(key: string): string[] {
    const folder = join(this.folder, key);
    let dirents: Dirent[];
    try {
      if (!lstatSync(folder).isDirectory()) return [];
      dirents = readdirSync(folder, { withFileTypes: true });
    } catch {
      return [];
    }
    return dirents.filter((dirent) => dirent.isFile() && isSessionId(dirent.name)).map((dirent) => dirent.name);
  }

  /** The state, undefined when there is none (first use), 'damaged' when it cannot be read as one. */
  private readState(): IndexState | 'damaged' | undefined {
    const read = readPrivateFile(join(this.folder, STATE_FILE));
    if ('missing' in read) return undefined;
    if ('problem' in read) return 'damaged';
    try {
      const value = JSON.parse(read.bytes.toString('utf8')) as Partial<IndexState>;
      const pending = value.pending;
      if (value.format !== FORMAT || (value.stamp !== undefined && typeof value.stamp !== 'string')) return 'damaged';
      if (!Array.isArray(pending) || !pending.every((id) => typeof id === 'string' && isSessionId(id))) return 'damaged';
      return { format: FORMAT, ...(value.stamp !== undefined ? { stamp: value.stamp } : {}), pending };
    } catch {
      return 'damaged';
    }
  }

  private writeState(state: IndexState): void {
    writePrivateFile(join(this.folder, STATE_FILE), JSON.stringify(state));
  }

  /** Whether the index folder is the user's own (made when missing; see config/private-files.ts); told once when not. */
  private usable(): boolean {
    if (this.own === undefined) {
      // Whatever stands in its place and is not a folder (a link leading elsewhere) goes first: the index is rebuilt, never written through it.
      if (this.quietly(() => lstatOrMissing(this.folder)?.isDirectory() === false)) this.quietly(() => removeEntry(this.folder));
      const problem = privateFolderProblem(this.folder, { create: true, disposable: true });
      this.own = problem === undefined;
      if (problem !== undefined) this.tell(`the index of sessions by folder is not used: ${problem}. Listing reads every session instead`);
    }
    return this.own;
  }

  /** Runs a write of the index; a failure is told once and leaves the index to catch up later (listing then reads more). */
  private quietly<T>(write: () => T): T | undefined {
    try {
      return write();
    } catch (err) {
      this.tell(`could not keep the index of sessions by folder in ${this.folder} (${(err as Error).message}): listing reads every session until it can`);
      return undefined;
    }
  }

  private tell(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(message);
  }
}

/**
 * The keys a session of `cwd` is filed under: its path as written and its
 * real path, when a link makes them differ, so a folder's sessions are
 * found by either path that leads to it. A relative path (never stored by
 * Crow's doors) is filed as written.
 */
export function folderKeys(cwd: string): string[] {
  if (!isAbsolute(cwd)) return [workspaceKey(cwd)];
  const written = workspaceKey(resolve(cwd));
  const real = workspaceKey(realPathOf(cwd));
  return written === real ? [written] : [written, real];
}

/**
 * Whether a stored session's folder is `cwd`: the same path as written, or
 * (both absolute) the same folder, however each path reaches it.
 */
export function folderMatcher(cwd: string): (stored: unknown) => boolean {
  if (!isAbsolute(cwd)) return (stored) => stored === cwd;
  // Compared as the file system compares names (path-semantics.ts): `C:\Work` is `c:\work`; on Linux as written.
  const written = comparablePath(cwd);
  const real = foldPath(withoutDevicePrefix(realPathOf(cwd)));
  const realOf = memoized((stored: string) => foldPath(withoutDevicePrefix(realPathOf(stored))));
  return (stored) => typeof stored === 'string' && isAbsolute(stored) && (comparablePath(stored) === written || realOf(stored) === real);
}

/** Whether `name` can be a session id (and so names a folder inside the sessions folder, never a way out of it). */
export function isSessionId(name: string): boolean {
  return SESSION_ID.test(name);
}

/**
 * Makes the entry `id` in the key folder `folder`: the folder made a real
 * one first unless `ready` has it (a link or a file standing there is
 * removed, never followed), and whatever stands at the entry's name and
 * is not a file replaced.
 */
function fileEntry(folder: string, id: string, ready?: Set<string>): void {
  if (!ready?.has(folder)) {
    const stats = lstatOrMissing(folder);
    if (!stats?.isDirectory()) {
      if (stats) removeEntry(folder);
      mkdirSync(folder, { mode: PRIVATE_DIR_MODE });
    }
    ready?.add(folder);
  }
  const entry = join(folder, checked(id));
  try {
    writeFileSync(entry, '', { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A file there is the entry (another process may have made it just now); anything else is replaced.
    if (lstatOrMissing(entry)?.isFile() !== false) return;
    removeEntry(entry);
    writeFileSync(entry, '', { flag: 'wx', mode: PRIVATE_FILE_MODE });
  }
}

function checked(id: string): string {
  if (!isSessionId(id)) throw new Error(`"${id}" is not a session id`);
  return id;
}

function memoized<T>(fn: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (!known.has(key)) known.set(key, fn(key));
    return known.get(key)!;
  };
}
