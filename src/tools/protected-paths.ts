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
 * without trailing dots or spaces, as case-insensitive file systems would.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { configHome } from '../config/paths';
import { readRepositoryGitSync } from './repository-git';
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

  constructor(options: ProtectedPathsOptions = {}) {
    this.root = path.resolve(options.root ?? '.');
    this.roots = distinct([this.root, realPathOf(this.root)]);
    this.options = options;
    this.home = options.home ?? homedir();
    this.homes = distinct([path.resolve(this.home), realPathOf(path.resolve(this.home))]).filter((home) => this.roots.some((root) => within(home, root)));
  }

  /**
   * Which of `targets` are protected, as given. Each is resolved against
   * each of `bases` (folders relative to the root, e.g. a command's working
   * folder and the folders it cd's into), `~` expanded where flagged.
   */
  find(targets: readonly { path: string; tilde?: boolean }[], bases: readonly { path: string; tilde?: boolean }[] = [{ path: '.' }]): string[] {
    const found: string[] = [];
    for (const target of targets) {
      const hit = bases.some((base) => this.isProtected(this.resolve(target, this.resolve(base, this.root))));
      if (hit && !found.includes(target.path)) found.push(target.path);
    }
    return found;
  }

  /** Whether `absolute` (or what it resolves to through symlinks) is protected. */
  isProtected(absolute: string): boolean {
    return distinct([absolute, realPathOf(absolute)]).some((candidate) => this.protectedAsWritten(candidate));
  }

  /** The config folder, git's code paths and where the workspace's protected folders link to, as written and real; worked out on first need. */
  private get guarded(): string[] {
    if (this.guardedPaths) return this.guardedPaths;
    const { configHome, guarded: given = [] } = this.options;
    const linked = PROTECTED_FOLDERS.flatMap((name) => linkTarget(path.join(this.root, name)) ?? []);
    const named = typeof given === 'function' ? given() : given;
    const guarded = [...(configHome ? [configHome] : []), ...named, ...linked].map((folder) => path.resolve(folder));
    this.guardedPaths = distinct([...guarded, ...guarded.map((target) => realPathOf(target))]);
    return this.guardedPaths;
  }

  private protectedAsWritten(candidate: string): boolean {
    if (this.guarded.some((folder) => within(candidate, folder))) return true;
    for (const home of this.homes) {
      const first = path.relative(home, candidate).split(/[\\/]+/)[0]!;
      if (within(candidate, home) && first !== '' && isHomeConfig(first)) return true;
    }
    const root = this.roots.find((folder) => within(candidate, folder));
    // Inside the workspace only the part below the root counts, so a workspace kept under a `.vscode` folder still works.
    const segments = (root ? path.relative(root, candidate) : candidate).split(/[\\/]+/);
    return segments.some((segment) => PROTECTED_FOLDERS.includes(normalized(segment)));
  }

  private resolve(target: { path: string; tilde?: boolean }, base: string): string {
    const value = target.path;
    if (target.tilde && (value === '~' || value.startsWith('~/'))) return path.join(this.home, value.slice(1));
    return path.resolve(base, value);
  }
}

/** Protected paths of a workspace for a user whose environment is `env`, git's code paths included (read once, at the first check). */
export function protectedPathsFor(root: string, env: NodeJS.ProcessEnv = process.env): ProtectedPaths {
  const guarded = (): readonly string[] => readRepositoryGitSync(root, env).codePaths;
  return new ProtectedPaths({ root, configHome: configHome(env), guarded, ...(env.HOME ? { home: env.HOME } : {}) });
}

const CASE_INSENSITIVE = process.platform === 'win32' || process.platform === 'darwin';

/** Entries of a home folder that programs read as configuration: every dot entry, and macOS's Library. */
export function isHomeConfig(name: string): boolean {
  return name.startsWith('.') || (process.platform === 'darwin' && name === 'Library');
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
    current = realPathOf(path.resolve(path.dirname(current), readlinkSync(current)));
  }
  return undefined;
}

function normalized(segment: string): string {
  return segment.toLowerCase().replace(/[. ]+$/, (tail) => (tail.length === segment.length ? tail : ''));
}

function within(candidate: string, folder: string): boolean {
  const relative = path.relative(fold(folder), fold(candidate));
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

function fold(value: string): string {
  return CASE_INSENSITIVE ? value.toLowerCase() : value;
}

function distinct(items: string[]): string[] {
  return [...new Set(items)];
}
