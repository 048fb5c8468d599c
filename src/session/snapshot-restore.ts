/**
 * Puts a snapshot's files back into the workspace, path by path. Nothing
 * here runs `git checkout` or `git clean`: only the paths of the plan are
 * touched, and every other file (ignored, unrecorded or unchanged) is left
 * exactly as it is.
 */
import { chmod, lstat, mkdir, realpath, rm, rmdir, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { FileChange } from '../tools/undo-recorder';
import { GitError, type GitRunner } from './git-runner';
import { EXECUTABLE, SYMLINK } from './git-trees';

/** One path that differs between two trees, as `git diff-tree --raw` reports it. */
export interface TreeChange extends FileChange {
  /** Git mode of the path in the `to` tree: 100644, 100755 or 120000 (symlink); 000000 when absent. */
  mode: string;
  /** Blob id of the path in the `to` tree. */
  blob: string;
  /** Git mode of the path in the `from` tree; 000000 when absent. */
  previousMode: string;
}

export interface RestoreTarget {
  /** Real path of the workspace root. */
  root: string;
  /** The snapshot being restored (the `to` tree of the plan). */
  snapshot: string;
  git: GitRunner;
  /** Honoured while objects are read; never once files are being changed. */
  signal: AbortSignal | undefined;
}

/** Some paths could not be put back; `applied` lists what was changed all the same. */
export class RestoreError extends Error {
  override name = 'RestoreError';

  constructor(
    readonly applied: FileChange[],
    readonly failures: { path: string; reason: string }[],
  ) {
    super(
      `could not restore ${failures.length} file(s): ${failures.map((f) => `${f.path} (${f.reason})`).join(', ')}` +
        `; ${applied.length} other file(s) were restored`,
    );
  }
}

/** Parses `git diff-tree -r -z --raw` output: `:<mode> <mode> <blob> <blob> <status>\0<path>\0` per path. */
export function parseRawDiff(out: string): TreeChange[] {
  const fields = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [previousMode = '', mode = '', , blob = '', letter = ''] = fields[i]!.slice(1).split(' ');
    const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
    changes.push({ path: fields[i + 1]!, status, mode, blob, previousMode });
  }
  return changes;
}

/**
 * Applies the changes from the workspace now (`from`) to the snapshot (`to`):
 * removals first, so a file can take the place of a folder and the other way
 * round; then folders left empty that the snapshot did not have; then the
 * snapshot's files, byte for byte with their executable bit. Returns what it
 * changed, from the restore's point of view.
 */
export async function applyRestore(plan: readonly TreeChange[], target: RestoreTarget): Promise<FileChange[]> {
  const writes = plan.filter((change) => change.status !== 'deleted');
  const removals = plan.filter(
    (change) => change.status === 'deleted' || (change.status === 'modified' && kind(change.previousMode) !== kind(change.mode)),
  );
  const deleted = removals.filter((change) => change.status === 'deleted').map((change) => change.path);
  const blobs = await readBlobs(target.git, writes.map((change) => change.blob), target.signal);
  const keptFolders = await foldersIn(target.git, target.snapshot, ancestors(deleted), target.signal);
  const unrecorded = await Promise.all(
    writes.map((change) => change.status === 'added' && exists(join(target.root, change.path))),
  );
  target.signal?.throwIfAborted();

  const applied: FileChange[] = [];
  const failures: { path: string; reason: string }[] = [];
  const attempt = async (path: string, action: () => Promise<void>): Promise<boolean> => {
    try {
      await action();
      return true;
    } catch (err) {
      failures.push({ path, reason: (err as Error).message });
      return false;
    }
  };

  for (const change of removals) {
    const removed = await attempt(change.path, () => rm(join(target.root, change.path), { force: true }));
    if (removed && change.status === 'deleted') applied.push({ path: change.path, status: 'deleted' });
  }
  for (const folder of ancestors(deleted).filter((folder) => !keptFolders.has(folder))) {
    await rmdir(join(target.root, folder)).catch(() => undefined);
  }
  for (const [i, change] of writes.entries()) {
    const written = await attempt(change.path, () => writeEntry(target.root, change, blobs.get(change.blob)!));
    if (written) applied.push({ path: change.path, status: unrecorded[i] ? 'modified' : change.status });
  }
  if (failures.length > 0) throw new RestoreError(applied, failures);
  return applied;
}

async function writeEntry(root: string, change: TreeChange, content: Buffer): Promise<void> {
  const path = join(root, change.path);
  await assertInside(root, dirname(path));
  await mkdir(dirname(path), { recursive: true });
  if (kind(change.mode) === 'symlink') {
    await rm(path, { force: true });
    await symlink(content.toString('utf8'), path);
    return;
  }
  const executable = change.mode === EXECUTABLE;
  await writeFile(path, content, { mode: executable ? 0o755 : 0o644 });
  const permissions = (await stat(path)).mode & 0o7777;
  const wanted = executable ? permissions | ((permissions & 0o444) >> 2) : permissions & ~0o111;
  if (wanted !== permissions) await chmod(path, wanted);
}

/** Folders on the way may have become symlinks to elsewhere since the snapshot: never write through one. */
async function assertInside(root: string, folder: string): Promise<void> {
  let nearest = folder;
  let real = await realpath(nearest).catch(() => undefined);
  while (real === undefined) {
    nearest = dirname(nearest);
    real = await realpath(nearest).catch(() => undefined);
  }
  if (real !== root && !real.startsWith(root + sep)) throw new Error(`its folder leads outside the workspace (${real})`);
}

function kind(mode: string): 'symlink' | 'file' | 'none' {
  if (mode === SYMLINK) return 'symlink';
  return mode === '000000' ? 'none' : 'file';
}

/** Every folder above the given paths, deepest first. */
function ancestors(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let folder = parentOf(path); folder !== ''; folder = parentOf(folder)) folders.add(folder);
  }
  return [...folders].sort((a, b) => b.split('/').length - a.split('/').length);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Contents of the given blobs, read in one `git cat-file --batch`. */
async function readBlobs(git: GitRunner, ids: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const out = await git.run(['cat-file', '--batch'], { input: unique.map((id) => `${id}\n`).join(''), signal });
  let offset = 0;
  while (offset < out.length) {
    const eol = out.indexOf(0x0a, offset);
    const [id = '', type = '', size = ''] = out.toString('utf8', offset, eol).split(' ');
    if (type !== 'blob') throw new GitError(`snapshot object ${id} is missing from the shadow repository`);
    const start = eol + 1;
    blobs.set(id, out.subarray(start, start + Number(size)));
    offset = start + Number(size) + 1;
  }
  return blobs;
}

/** Which of the given folders are folders in the snapshot. */
async function foldersIn(
  git: GitRunner,
  snapshot: string,
  folders: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Set<string>> {
  if (folders.length === 0) return new Set();
  const input = folders.map((folder) => `${snapshot}:${folder}\0`).join('');
  const lines = (await git.text(['cat-file', '--batch-check', '-z'], { input, signal })).split('\n');
  // Each answer is `<id> <type> <size>`, or `<what was asked> missing`.
  return new Set(folders.filter((_, i) => !lines[i]!.endsWith(' missing') && lines[i]!.split(' ')[1] === 'tree'));
}
