/**
 * Paths whose change can widen what Crow, git or the editor will run:
 * project configuration (`.crow/`), git's own folder (`.git/`, at any depth,
 * so a nested repository's too, and a `.git` file that points elsewhere),
 * editor settings and tasks (`.vscode/`), the user's Crow config folder,
 * what the repository's git config runs or reads as config (the folder
 * core.hooksPath names, included config files: see repository-git.ts),
 * and, when the workspace holds the user's home, the home's dotfiles and
 * config folders. A write there is always asked, whatever the policy or any
 * "always" answer (see PermissionGate). A `.crow`, `.git` or `.vscode` at the
 * root that is a symlink protects where it leads too.
 *
 * Paths are judged as written and through symlinks (the nearest existing
 * ancestor is resolved), with folder names compared without case and
 * without trailing dots or spaces, as case-insensitive file systems would,
 * and as the platform reads them (path-semantics.ts): on Windows a stream
 * (`.git::$INDEX_ALLOCATION`) or an 8.3 short name (`GIT~1`) of a protected
 * folder is that folder, and a home's `AppData` is configuration.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { configHome } from '../config/paths';
import { readRepositoryGitSync } from './repository-git';
import { HOST_PATHS, foldName, mayBeShortName, nameKey, namesWithin, type PathSemantics, resolveAs } from '../vocabulary/path-semantics';
import { realPathOf } from '../vocabulary/real-paths';

/** Folder names that are protected wherever they appear in a path. */
export const PROTECTED_FOLDERS: readonly string[] = ['.crow', '.git', '.vscode'];

export interface ProtectedPathsOptions {
  /** The workspace root; relative paths are resolved against it (default: the process's folder). */
  root?: string;
  /** The user's Crow config folder, protected wherever it lies. */
  configHome?: string;
  /** What `~` means in a command's paths (default: the user's home). */
  home?: string;
  /**
   * More absolute paths protected wherever they lie, with everything below them (git's hooks folder, config files);
   * a function is asked on the first check (reading them runs git, which a run that touches no path never needs).
   */
  guarded?: readonly string[] | (() => readonly string[]);
  /** How the file system reads paths (default: this machine's); another platform's is only judged as written, nothing looked up. */
  semantics?: PathSemantics;
}

export class ProtectedPaths {
  /** The workspace root, absolute. */
  readonly root: string;
  private readonly roots: string[];
  private guardedPaths: string[] | undefined;
  private readonly options: ProtectedPathsOptions;
  private readonly home: string;
  /** The user's home, as written and real, when the workspace holds it: its config entries are protected. */
  private readonly homes: string[];
  private readonly semantics: PathSemantics;

  constructor(options: ProtectedPathsOptions = {}) {
    this.semantics = options.semantics ?? HOST_PATHS;
    this.root = this.absolute(options.root ?? '.');
    this.roots = distinct([this.root, this.real(this.root)]);
    this.options = options;
    this.home = options.home ?? homedir();
    const home = this.absolute(this.home);
    this.homes = distinct([home, this.real(home)]).filter((folder) => this.roots.some((root) => this.within(folder, root)));
  }

  /**
   * Which of `targets` are protected, as given. Each is resolved against
   * each of `bases` (folders relative to the root, e.g. a command's working
   * folder and the folders it cd's into), `~` expanded where flagged.
   */
  find(targets: readonly { path: string; tilde?: boolean }[], bases: readonly { path: string; tilde?: boolean }[] = [{ path: '.' }]): string[] {
    const found: string[] = [];
    for (const target of targets) {
      const folders = bases.flatMap((base) => this.readings(base, this.root));
      const hit = folders.some((folder) => this.readings(target, folder).some((candidate) => this.isProtected(candidate)));
      if (hit && !found.includes(target.path)) found.push(target.path);
    }
    return found;
  }

  /** Whether `absolute` (or what it resolves to through symlinks) is protected. */
  isProtected(absolute: string): boolean {
    return distinct([absolute, this.real(absolute)]).some((candidate) => this.protectedAsWritten(candidate));
  }

  /** The config folder, git's code paths and where the workspace's protected folders link to, as written and real; worked out on first need. */
  private get guarded(): string[] {
    if (this.guardedPaths) return this.guardedPaths;
    const { configHome, guarded: given = [] } = this.options;
    const linked = this.semantics === HOST_PATHS ? PROTECTED_FOLDERS.flatMap((name) => linkTarget(this.semantics.path.join(this.root, name)) ?? []) : [];
    const named = typeof given === 'function' ? given() : given;
    const guarded = [...(configHome ? [configHome] : []), ...named, ...linked].map((folder) => this.absolute(folder));
    this.guardedPaths = distinct([...guarded, ...guarded.map((target) => this.real(target))]);
    return this.guardedPaths;
  }

  private protectedAsWritten(candidate: string): boolean {
    if (this.guarded.some((folder) => this.within(candidate, folder))) return true;
    for (const home of this.homes) {
      const first = this.namesWithin(home, candidate)?.[0];
      if (first !== undefined && isHomeConfig(first, this.semantics)) return true;
    }
    // Inside the workspace only the part below the root counts, so a workspace kept under a `.vscode` folder still works.
    const below = this.roots.map((root) => this.namesWithin(root, candidate)).find((names) => names !== undefined);
    const segments = below ?? resolveAs(this.semantics, undefined, candidate).split(/[\\/]+/);
    return segments.some((segment) => isProtectedName(segment, this.semantics));
  }

  /**
   * Where `target` may lead from `base`: as the platform reads it, and on
   * Windows also as Git Bash reads it (`/c/Users` and `/cygdrive/c/Users`
   * are `C:\\Users` to the commands it runs), so both are judged.
   */
  private readings(target: { path: string; tilde?: boolean }, base: string): string[] {
    const native = this.resolve(target, base);
    const drive = this.semantics.windowsNames ? /^(?:\/cygdrive)?\/([A-Za-z])(?=\/|$)/.exec(target.path) : null;
    return drive ? distinct([native, resolveAs(this.semantics, undefined, `${drive[1]!}:\\${target.path.slice(drive[0].length)}`)]) : [native];
  }

  private resolve(target: { path: string; tilde?: boolean }, base: string): string {
    const value = target.path;
    const home = value === '~' || value.startsWith('~/') || (this.semantics.windowsNames && value.startsWith('~\\'));
    if (target.tilde && home) return this.semantics.path.join(this.home, value.slice(1));
    return resolveAs(this.semantics, base, value);
  }

  private absolute(target: string): string {
    return resolveAs(this.semantics, undefined, target);
  }

  private real(target: string): string {
    return realPathOf(target, this.semantics);
  }

  private within(candidate: string, folder: string): boolean {
    return this.namesWithin(folder, candidate) !== undefined;
  }

  /** Folders compared with the wide fold: a path that may be in a guarded folder is taken to be (asked more, never less). */
  private namesWithin(folder: string, candidate: string): string[] | undefined {
    return namesWithin(folder, candidate, this.semantics, foldName);
  }
}

/** Whether a name in a path is one of the protected folders as the file system reads it (on Windows, also a short name that may be one). */
export function isProtectedName(name: string, semantics: PathSemantics = HOST_PATHS): boolean {
  if (PROTECTED_FOLDERS.includes(nameKey(name, semantics))) return true;
  return semantics.windowsNames && PROTECTED_FOLDERS.some((folder) => mayBeShortName(name.split(':')[0]!, folder));
}

/** Protected paths of a workspace for a user whose environment is `env`, git's code paths included (read once, at the first check). */
export function protectedPathsFor(root: string, env: NodeJS.ProcessEnv = process.env): ProtectedPaths {
  const guarded = (): readonly string[] => readRepositoryGitSync(root, env).codePaths;
  return new ProtectedPaths({ root, configHome: configHome(env), guarded, ...(env.HOME ? { home: env.HOME } : {}) });
}

/** Entries of a home folder that programs read as configuration: every dot entry, macOS's Library and Windows' AppData (any case there). */
export function isHomeConfig(name: string, semantics: PathSemantics = HOST_PATHS): boolean {
  if (name.startsWith('.')) return true;
  if (semantics.name === 'darwin') return foldName(name, semantics) === 'library';
  return semantics.windowsNames && nameKey(name, semantics) === 'appdata';
}

/** Symbolic links followed to where a path leads, as the kernel does (ELOOP). */
const MAX_LINK_HOPS = 40;

/** Where `link` leads when it is a symlink (followed to its end, missing or not); undefined for anything else. */
export function linkTarget(link: string): string | undefined {
  let current = link;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    let stats;
    try {
      stats = lstatSync(current);
    } catch {
      return current === link ? undefined : current;
    }
    if (!stats.isSymbolicLink()) return current === link ? undefined : current;
    current = realPathOf(resolveAs(HOST_PATHS, HOST_PATHS.path.dirname(current), readlinkSync(current)));
  }
  return undefined;
}

function distinct(items: string[]): string[] {
  return [...new Set(items)];
}
