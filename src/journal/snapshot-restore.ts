/**
 * Puts a snapshot's files back into the workspace, path by path. Nothing
 * here runs `git checkout` or `git clean`: only the paths of the plan are
 * touched, and every other file (ignored, unrecorded or unchanged) is left
 * exactly as it is. Every change is made through a ConfinedFolder that
 * never follows a link: a folder that became a link since it was recorded
 * stops the restore before anything is changed (see linksOnTheWay), and
 * one that becomes a link while it runs is refused at that path.
 */
import { dirname, resolve } from 'node:path';
import { ConfinedFolder, LinkRefusedError } from '../tools/confined-folder';
import { isReallyWithin } from '../vocabulary/real-paths';
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

/** A path of a plan that a link now stands in the way of: a folder on its way was replaced by a link. */
export interface LinkInTheWay {
  path: string;
  /** The folder on the way that is a link now. */
  link: string;
  /** Where the link leads, as written in it. */
  target: string;
  /** Whether it leads out of the workspace. */
  outside: boolean;
}

/**
 * The paths a restore would reach through a link, where the recording had
 * a folder (a restore never follows a link: the files it recorded were
 * inside real folders). Read without changing anything, for the plan.
 */
export async function linksOnTheWay(root: string, paths: readonly string[]): Promise<LinkInTheWay[]> {
  const folder = new ConfinedFolder(root, 'never');
  const found = await Promise.all(paths.map(async (path) => ({ path, way: await folder.linkOnTheWay(path) })));
  return found.flatMap(({ path, way }) => {
    if (!way) return [];
    const leadsTo = resolve(root, dirname(way.link), way.target);
    return [{ path, ...way, outside: !isReallyWithin(root, leadsTo) }];
  });
}

/** A restore planned through links that stand where the recording had folders: nothing is restored while they are there. */
export class LinksInTheWayError extends RestoreError {
  override name = 'LinksInTheWayError';

  constructor(readonly links: readonly LinkInTheWay[]) {
    super(
      [],
      links.map((link) => ({
        path: link.path,
        reason: `${link.outside ? 'its folder leads outside the workspace: ' : ''}${link.link} is now a link to ${link.target}, where a folder was recorded`,
      })),
    );
    this.message += '. A restore never follows a link: remove the link (or put the folder back), then try again';
  }
}

/** Throws LinksInTheWayError when a link stands on the way to any of the paths; for plans, before anything is shown or asked. */
export async function refuseLinksOnTheWay(root: string, paths: readonly string[]): Promise<void> {
  const links = await linksOnTheWay(root, paths);
  if (links.length > 0) throw new LinksInTheWayError(links);
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
  await refuseLinksOnTheWay(target.root, plan.map((change) => change.path));
  const blobs = await readBlobs(target.git, writes.map((change) => change.blob), target.signal);
  const keptFolders = await foldersIn(target.git, target.snapshot, ancestors(deleted), target.signal);
  const folder = new ConfinedFolder(target.root, 'never');
  const unrecorded = await Promise.all(writes.map(async (change) => change.status === 'added' && (await folder.kind(change.path)) !== 'absent'));
  target.signal?.throwIfAborted();

  const applied: FileChange[] = [];
  const failures: { path: string; reason: string }[] = [];
  const attempt = async (path: string, action: () => Promise<unknown>): Promise<boolean> => {
    try {
      await action();
      return true;
    } catch (err) {
      failures.push({ path, reason: err instanceof LinkRefusedError ? err.message : (err as Error).message });
      return false;
    }
  };

  for (const change of removals) {
    const removed = await attempt(change.path, () => folder.remove(change.path));
    if (removed && change.status === 'deleted') applied.push({ path: change.path, status: 'deleted' });
  }
  for (const emptied of ancestors(deleted).filter((path) => !keptFolders.has(path))) {
    await folder.removeEmptyFolder(emptied).catch(() => undefined);
  }
  for (const [i, change] of writes.entries()) {
    const written = await attempt(change.path, () => writeEntry(folder, change, blobs.get(change.blob)!));
    if (written) applied.push({ path: change.path, status: unrecorded[i] ? 'modified' : change.status });
  }
  if (failures.length > 0) throw new RestoreError(applied, failures);
  return applied;
}

/** Writes one entry of the snapshot: a link as a link, a file byte for byte with its executable bit. */
async function writeEntry(folder: ConfinedFolder, change: TreeChange, content: Buffer): Promise<void> {
  if (kind(change.mode) === 'symlink') {
    await folder.remove(change.path);
    await folder.symlink(change.path, content.toString('utf8'));
    return;
  }
  const executable = change.mode === EXECUTABLE;
  const handle = await folder.openFile(change.path, { mode: executable ? 0o755 : 0o644 });
  try {
    await handle.writeFile(content);
    const permissions = (await handle.stat()).mode & 0o7777;
    const wanted = executable ? permissions | ((permissions & 0o444) >> 2) : permissions & ~0o111;
    if (wanted !== permissions) await handle.chmod(wanted);
  } finally {
    await handle.close();
  }
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
