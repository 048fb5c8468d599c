/**
 * Two recorded trees compared, in the shadow repository: which files
 * differ, their patch, their lines added and removed. Only trees are read:
 * git is pointed at an index that does not exist (inside a folder nothing
 * makes), which it reads as empty. Left to itself, diff-tree reads the
 * repository's index all the same, and that index grows with the
 * workspace: 24 MB and 27 ms at 300k files, against 3 ms without, paid
 * twice by every prompt's "N files changed".
 */
import { join, resolve } from 'node:path';
import type { GitCall, GitRunner } from './git-runner';
import { GITLINK } from './git-trees';
import { nulSplit } from './index-track';
import { inside } from './shadow-repository';
import { parseRawDiff, type TreeChange } from './snapshot-restore';

/** Lines added and removed in one file between two snapshots; binary files count no lines. */
export interface DiffStat {
  path: string;
  added: number;
  removed: number;
  binary: boolean;
}

export class TreeDiffs {
  constructor(
    private readonly git: GitRunner,
    private readonly gitDir: string,
    /** Real path of the workspace root, which the paths asked about must lie in. */
    private readonly workspace: string,
  ) {}

  /** What differs from `from` to `to` (at `paths` only, when given), submodules left out: their contents belong to their own history. */
  async changes(from: string, to: string, paths: readonly string[] | undefined, signal?: AbortSignal): Promise<TreeChange[]> {
    if (paths?.length === 0) return [];
    const args = ['diff-tree', '-r', '-z', '--raw', '--no-renames', ...this.range(from, to, paths)];
    return parseRawDiff(await this.git.text(args, this.treesOnly(signal))).filter((change) => change.mode !== GITLINK && change.previousMode !== GITLINK);
  }

  /** The patch from `from` to `to`, as `git diff` shows it (no external diff, no text conversion). */
  patch(from: string, to: string, paths: readonly string[] | undefined, signal?: AbortSignal): Promise<string> {
    if (paths?.length === 0) return Promise.resolve('');
    return this.git.text(['diff-tree', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', ...this.range(from, to, paths)], this.treesOnly(signal));
  }

  /** Lines added and removed per file from `from` to `to`, like `git diff --numstat`. */
  async stats(from: string, to: string, paths: readonly string[] | undefined, signal?: AbortSignal): Promise<DiffStat[]> {
    if (paths?.length === 0) return [];
    const out = await this.git.text(['diff-tree', '-r', '-z', '--numstat', '--no-renames', ...this.range(from, to, paths)], this.treesOnly(signal));
    return nulSplit(out).map((record) => {
      const [added = '', removed = '', ...path] = record.split('\t');
      const binary = added === '-';
      return { path: path.join('\t'), added: binary ? 0 : Number(added), removed: binary ? 0 : Number(removed), binary };
    });
  }

  private treesOnly(signal?: AbortSignal): GitCall {
    return { signal, indexFile: join(this.gitDir, 'no-index', 'index') };
  }

  /** `<from> <to> -- <pathspecs>` for the diff-tree family, ids checked so none can pass for an option. */
  private range(from: string, to: string, paths: readonly string[] | undefined): string[] {
    return [snapshotId(from), snapshotId(to), '--', ...(paths ?? []).map((path) => this.pathspec(path))];
  }

  private pathspec(path: string): string {
    const rel = inside(this.workspace, resolve(this.workspace, path));
    if (rel === undefined) throw new Error(`${path} is outside the workspace ${this.workspace}`);
    return rel === '' ? ':/' : `:(top,literal)${rel}`;
  }
}

export function snapshotId(id: string): string {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(id)) throw new Error(`"${id}" is not a snapshot id`);
  return id;
}
