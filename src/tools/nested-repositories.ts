/**
 * The nested repositories a sandboxed command must not change: `.git`
 * entries (folders, or the files of worktrees and submodules) in folders up
 * to NESTED_GIT_DEPTH levels below the root, other than the root's own.
 * Bounded to NESTED_GIT_FOLDERS folders read and NESTED_GIT_CHECKS
 * subfolders looked into, so a huge tree costs little: repositories
 * deeper down or past those stay writable.
 *
 * Looked for before every command, since one command may make a repository
 * (a clone) that the next must not change. Reading the same folders again
 * each time cost 60 to 110 ms a command on a repository of 100,000 files
 * (400 folders of 250 files), so a folder's listing is kept with its
 * stamp (vocabulary/folder-stamp.ts: identity, times, links count), and
 * read again only when that moved; a listing is kept only once its folder
 * has settled, as the sessions folder's index does.
 * The first look of a process reads them all: it is started while the
 * model still streams the command's call (Workspace.prepareCommand).
 */
import { existsSync, promises as fs, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { folderStamp, type FolderStamp, SETTLE_MS } from '../vocabulary/folder-stamp';

/** Nested repositories are looked for this many folder levels below the root, in at most this many folders. */
const NESTED_GIT_DEPTH = 2;
const NESTED_GIT_FOLDERS = 400;
/** Subfolders looked into for a `.git` (a stat each), however many those folders hold. */
const NESTED_GIT_CHECKS = 10_000;
const NOT_SEARCHED = new Set(['node_modules', '.git']);

interface Listing {
  /** The folder's stamp (vocabulary/folder-stamp.ts) when it was read. */
  stamp: string;
  /** Its subfolders that are searched, by name. */
  folders: string[];
}

export class NestedRepositories {
  /** The listings kept by the last look, by folder: a folder it did not read is forgotten. */
  private listings = new Map<string, Listing>();
  /** A look started ahead of a command (prepare), whose listings the command's own look then finds kept. */
  private ahead: Promise<unknown> | undefined;

  constructor(
    private readonly root: string,
    /** How long a folder must have stood unchanged for its listing to be kept (SETTLE_MS; shorter in tests). */
    private readonly settleMs = SETTLE_MS,
  ) {}

  /** Starts a look now, while nobody waits (a command call still streams), unless one is under way. */
  prepare(): void {
    this.ahead ??= this.look()
      .catch(() => undefined)
      .finally(() => (this.ahead = undefined));
  }

  /** The `.git` paths found now, each to be kept read-only: looked for after any look under way, so only what changed since is read. */
  async find(): Promise<string[]> {
    await this.ahead;
    return this.look();
  }

  private async look(): Promise<string[]> {
    const kept = new Map<string, Listing>();
    try {
      return await this.walk(kept);
    } finally {
      this.listings = kept;
    }
  }

  private async walk(kept: Map<string, Listing>): Promise<string[]> {
    const found: string[] = [];
    let level = [this.root];
    let budget = NESTED_GIT_FOLDERS;
    let checks = NESTED_GIT_CHECKS;
    for (let depth = 1; depth <= NESTED_GIT_DEPTH && level.length > 0 && budget > 0; depth++) {
      const read = level.slice(0, budget);
      budget -= read.length;
      const subfolders = await Promise.all(read.map((folder) => this.subfolders(folder, kept)));
      const next: string[] = [];
      for (const [index, folder] of read.entries()) {
        for (const name of subfolders[index]!) {
          if (checks-- <= 0) return found;
          const child = path.join(folder, name);
          if (existsSync(path.join(child, '.git'))) found.push(path.join(child, '.git'));
          next.push(child);
        }
      }
      level = next;
    }
    return found;
  }

  /** The searched subfolders of `folder`: as the last look kept them when it has not changed since, else read (none when it cannot be); kept in `kept` when it may be. */
  private async subfolders(folder: string, kept: Map<string, Listing>): Promise<string[]> {
    const stamp = stampOf(folder, this.settleMs);
    const before = this.listings.get(folder);
    if (stamp !== undefined && before?.stamp === stamp.text) {
      kept.set(folder, before);
      return before.folders;
    }
    const entries: Dirent[] = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
    const folders = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !NOT_SEARCHED.has(entry.name)).map((entry) => entry.name);
    if (stamp?.settled) kept.set(folder, { stamp: stamp.text, folders });
    return folders;
  }
}

/** The folder's stamp, or undefined when it cannot be looked at (then it is read, and nothing kept). */
function stampOf(folder: string, settleMs: number): FolderStamp | undefined {
  try {
    return folderStamp(folder, settleMs);
  } catch {
    return undefined;
  }
}
