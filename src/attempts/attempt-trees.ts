/**
 * The git side of parallel attempts: one base commit holding the person's
 * work as it is (HEAD plus every uncommitted change, untracked files that
 * are not ignored included), one detached worktree per attempt checked out
 * at that base, each attempt's changes read back as a binary patch against
 * it, and the worktrees removed afterwards.
 *
 * The person's own repository is touched only through git's own records
 * of worktrees: the base is a dangling commit made from a private index
 * (their index, branches and working tree stay as they are), and the
 * worktrees live in the repository's git folder (`crow-attempts/RUN/N`),
 * listed by `git worktree list`, never outside the person's folders and
 * never in their working tree. git runs as Crow always runs it in a
 * repository it does not control (repository-git.ts): no hook, filter or
 * program the repository names, no credential.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitEnvironment, readRepositoryGit, safeGitArgs } from '../tools/repository-git';
import { childProcess } from '../vocabulary/first-use';

const GIT_TIMEOUT_MS = 120_000;
/** Who made the base commit. */
const CROW_IDENTITY = { GIT_AUTHOR_NAME: 'Crow', GIT_AUTHOR_EMAIL: 'crow@localhost', GIT_COMMITTER_NAME: 'Crow', GIT_COMMITTER_EMAIL: 'crow@localhost' };
/** A patch larger than this is not read back (an attempt that wrote a build folder git does not ignore). */
const MAX_PATCH_BYTES = 64 * 1024 * 1024;

/** An attempt's changes against the base: the patch git applies, and its numbers. */
export interface AttemptChanges {
  /** `git diff --binary` against the base; empty when nothing changed. */
  patch: string;
  files: { path: string; added: number; removed: number }[];
}

/** What applying a kept patch needs of the person's repository (AttemptTrees.target). */
export type PatchTarget = Pick<AttemptTrees, 'root' | 'apply' | 'patchFiles'>;

/** Why attempts cannot run here, in a sentence that says what to do. */
export class AttemptsError extends Error {
  override name = 'AttemptsError';
}

type Git = (args: string[], options?: { cwd?: string; indexFile?: string; input?: string; env?: Record<string, string> }) => Promise<string>;

export class AttemptTrees {
  private constructor(
    private readonly git: Git,
    /** The person's folder, the top of the work tree. */
    readonly root: string,
    /** The folder holding this run's worktrees, inside the repository's git folder. */
    readonly folder: string,
    /** The commit every attempt starts from. */
    readonly base: string,
  ) {}

  /**
   * The base of a run of attempts in `root`, the top folder of a git work
   * tree with at least one commit; AttemptsError otherwise.
   */
  static async prepare(root: string, env: NodeJS.ProcessEnv, runId: string): Promise<AttemptTrees> {
    const { git, head } = await checkedRoot(root, env);
    const common = await git(['rev-parse', '--path-format=absolute', '--git-common-dir']);
    await removeAbandoned(git, join(common, 'crow-attempts'));
    const folder = join(common, 'crow-attempts', runId);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const base = await baseCommit(git, head);
    return new AttemptTrees(git, root, folder, base);
  }

  /**
   * The person's repository at `root` to apply a patch kept from an
   * earlier run (a background run's) or read its files: no run folder, no
   * worktree; AttemptsError when `root` is not a repository's top folder.
   */
  static async target(root: string, env: NodeJS.ProcessEnv): Promise<PatchTarget> {
    const { git, head } = await checkedRoot(root, env);
    // A folder never made: a PatchTarget has no removeAll, so nothing reads it.
    return new AttemptTrees(git, root, join(root, '.git', 'crow-attempts', 'none'), head);
  }

  /** The worktree being added: `git worktree add` runs one at a time in a repository. */
  private adding: Promise<unknown> = Promise.resolve();

  /**
   * A new worktree for attempt `n`, checked out at the base (detached: no
   * branch is made). Two `git worktree add` at once in one repository fail
   * now and then (one reads the other's half-written record: "failed to
   * read .git/worktrees/1/commondir"), so attempts started together wait
   * for each other here.
   */
  async add(n: number): Promise<string> {
    const path = join(this.folder, String(n));
    const added = this.adding.then(() => this.git(['worktree', 'add', '--detach', '--quiet', path, this.base]));
    this.adding = added.catch(() => undefined);
    await added;
    return path;
  }

  /** What the attempt in `tree` changed against the base, untracked files included. */
  async changes(tree: string): Promise<AttemptChanges> {
    await this.git(['add', '--all', '--', '.'], { cwd: tree });
    // Without renames: a moved file is a deletion and an addition, each path named where patchFiles reads it.
    const patch = await this.git(['diff', '--cached', '--binary', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', this.base], { cwd: tree });
    const numstat = await this.git(['diff', '--cached', '--numstat', '-z', '--no-renames', this.base], { cwd: tree });
    return { patch: patch === '' ? '' : `${patch}\n`, files: parseNumstat(numstat) };
  }

  /**
   * Applies an attempt's patch to the person's working tree, all or
   * nothing (git apply checks every hunk first): AttemptsError naming why
   * when it does not apply (the files changed since the attempts began).
   */
  async apply(patch: string): Promise<void> {
    if (patch === '') return;
    await this.git(['apply', '--binary', '--whitespace=nowarn', '-'], { input: patch }).catch((err: unknown) => {
      throw new AttemptsError(`The attempt's changes no longer apply to your files (they changed since the attempts started): ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  /** The tree (files) of the base commit: what every attempt starts from, whatever commit holds it. */
  baseTree(): Promise<string> {
    return this.git(['rev-parse', `${this.base}^{tree}`]);
  }

  /**
   * The base's files as a git bundle at `file` (branch `base`), for
   * attempts elsewhere (Kubernetes pods): one commit without parents
   * holding the base's tree, so the repository's history does not leave
   * the machine. Made in a private repository borrowing this one's objects
   * (alternates): the person's refs are not touched.
   */
  async bundle(file: string): Promise<void> {
    const common = await this.git(['rev-parse', '--path-format=absolute', '--git-common-dir']);
    const tree = await this.baseTree();
    const commit = await this.git(['commit-tree', tree, '-m', 'Crow attempts: the files as the attempts start from them'], { env: CROW_IDENTITY });
    const scratch = mkdtempSync(join(tmpdir(), 'crow-bundle-'));
    try {
      await this.git(['init', '--quiet', '--bare', scratch]);
      writeFileSync(join(scratch, 'objects', 'info', 'alternates'), `${join(common, 'objects')}\n`);
      await this.git([`--git-dir=${scratch}`, 'update-ref', 'refs/heads/base', commit]);
      await this.git([`--git-dir=${scratch}`, 'bundle', 'create', '--quiet', file, 'refs/heads/base']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  /**
   * The files `patch` touches and its line counts, read by git apply
   * without applying anything: the numbers of a patch that came from
   * elsewhere, not those it claims. A patch that renames or copies is
   * refused: git apply names only where such a file goes, not the file
   * it takes away, and Crow writes attempts' patches without renames.
   */
  async patchFiles(patch: string): Promise<AttemptChanges['files']> {
    if (patch === '') return [];
    // Such header lines cannot occur in a hunk (its lines begin with " ", "+" or "-") nor in base85 binary data (no space).
    if (/^(rename|copy) (from|to) /m.test(patch)) throw new AttemptsError("The attempt's patch renames or copies files, which Crow's own patches never do (a moved file is a deletion and an addition): it is not one Crow wrote");
    const numstat = await this.git(['apply', '--numstat', '-z', '--binary', '-'], { input: patch }).catch((err: unknown) => {
      throw new AttemptsError(`The attempt's patch cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    });
    return parseNumstat(numstat);
  }

  /** Removes every worktree of the run and its folder; what cannot be removed is left and named. */
  async removeAll(): Promise<string[]> {
    const left: string[] = [];
    const listed = await this.git(['worktree', 'list', '--porcelain']).catch(() => '');
    for (const line of listed.split('\n')) {
      const path = line.startsWith('worktree ') ? line.slice('worktree '.length) : undefined;
      if (path === undefined || !path.startsWith(`${this.folder}/`)) continue;
      await this.git(['worktree', 'remove', '--force', '--force', path]).catch(() => left.push(path));
    }
    rmSync(this.folder, { recursive: true, force: true });
    await this.git(['worktree', 'prune']).catch(() => undefined);
    return left;
  }
}

/**
 * A git work tree at `folder` (made, empty) holding the `base` branch of
 * `bundle` checked out: where a pod's attempt starts from. git runs
 * without the person's configuration programs, as everywhere.
 */
export async function checkoutBundle(bundle: string, folder: string, env: NodeJS.ProcessEnv): Promise<void> {
  const plain: Git = (args, options = {}) =>
    new Promise((resolve, reject) => {
      childProcess().execFile('git', ['--no-pager', '-c', 'core.hooksPath=/dev/null', ...args], { cwd: options.cwd ?? folder, env: { ...gitEnvironment(env), ...CROW_IDENTITY }, timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_PATCH_BYTES }, (error, stdout, stderr) => {
        if (error) reject(new AttemptsError(`git ${args[0]} failed: ${String(stderr).trim() || error.message}`));
        else resolve(String(stdout).trim());
      });
    });
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  await plain(['init', '--quiet']);
  await plain(['fetch', '--quiet', '--no-tags', bundle, 'refs/heads/base:refs/heads/base']);
  await plain(['checkout', '--quiet', 'base']);
}

/** A run's folder name: when it began and the process that made it, so a later run can tell an abandoned one. */
export function runFolderName(now = Date.now(), pid = process.pid): string {
  return `${now.toString(36)}-${pid}`;
}

/**
 * The worktrees of runs whose process is gone (killed before it could
 * clean up), removed with their folders before a new run adds its own.
 * A folder that is not a run's, or whose process still runs, is left.
 */
async function removeAbandoned(git: Git, attempts: string): Promise<void> {
  let runs: string[];
  try {
    runs = readdirSync(attempts);
  } catch {
    return;
  }
  const listed = await git(['worktree', 'list', '--porcelain']).catch(() => '');
  for (const run of runs) {
    const pid = Number(/^[0-9a-z]+-(\d+)$/.exec(run)?.[1]);
    if (!Number.isInteger(pid) || alive(pid)) continue;
    const folder = join(attempts, run);
    for (const line of listed.split('\n')) {
      const path = line.startsWith('worktree ') ? line.slice('worktree '.length) : undefined;
      if (path?.startsWith(`${folder}/`)) await git(['worktree', 'remove', '--force', '--force', path]).catch(() => undefined);
    }
    rmSync(folder, { recursive: true, force: true });
  }
  await git(['worktree', 'prune']).catch(() => undefined);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether attempts can run from `root` (the top folder of a git work tree
 * with a commit), touching nothing: AttemptsError saying what to do when
 * not. For a door that checks before it starts (a background run).
 */
export async function checkAttemptsRoot(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  await checkedRoot(root, env);
}

async function checkedRoot(root: string, env: NodeJS.ProcessEnv): Promise<{ git: Git; head: string }> {
  const git = await repositoryGit(root, env);
  const top = await git(['rev-parse', '--show-toplevel']).catch(() => undefined);
  if (top === undefined) throw new AttemptsError(`${root} is not in a git repository: attempts run in git worktrees. Run git init and commit once, then try again.`);
  if (top !== root) throw new AttemptsError(`Attempts run from the top folder of the repository: run crow there (${top}), or pass --cwd ${top}.`);
  const head = await git(['rev-parse', '--verify', 'HEAD^{commit}']).catch(() => undefined);
  if (head === undefined) throw new AttemptsError('The repository has no commit yet: attempts start from HEAD. Commit once, then try again.');
  return { git, head };
}

/**
 * A commit of the working tree as it is, on top of HEAD, made from a
 * private index: every tracked file as it is on disk, untracked ones git
 * does not ignore added, deletions kept. HEAD itself when nothing differs.
 */
async function baseCommit(git: Git, head: string): Promise<string> {
  const indexFolder = join(tmpdir(), `crow-attempts-${process.pid}-${Date.now()}`);
  mkdirSync(indexFolder, { mode: 0o700 });
  const indexFile = join(indexFolder, 'index');
  try {
    await git(['read-tree', head], { indexFile });
    await git(['add', '--all', '--', '.'], { indexFile });
    const tree = await git(['write-tree'], { indexFile });
    const headTree = await git(['rev-parse', `${head}^{tree}`]);
    if (tree === headTree) return head;
    // Crow's own commit, never on a branch: it needs no identity of the person's (who may have set none).
    return await git(['commit-tree', tree, '-p', head, '-m', 'Crow attempts: the working tree as the attempts started from it'], { env: CROW_IDENTITY });
  } finally {
    rmSync(indexFolder, { recursive: true, force: true });
  }
}

/** `git diff --numstat -z`: "added\tremoved\tpath\0" per file, "-" for binary counts. */
export function parseNumstat(text: string): AttemptChanges['files'] {
  return text
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const [added, removed, ...path] = record.split('\t');
      return { path: path.join('\t'), added: Number(added) || 0, removed: Number(removed) || 0 };
    });
}

/** Crow's git for the repository at `root` (no program it names runs, no credential), or AttemptsError. */
async function repositoryGit(root: string, env: NodeJS.ProcessEnv): Promise<Git> {
  const repository = await readRepositoryGit(root, env);
  if (repository.problem !== undefined) throw new AttemptsError(repository.problem);
  const gitEnv = gitEnvironment(env);
  return (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = childProcess().execFile(
        'git',
        safeGitArgs(repository, args),
        {
          cwd: options.cwd ?? root,
          env: { ...gitEnv, ...options.env, ...(options.indexFile ? { GIT_INDEX_FILE: options.indexFile } : {}) },
          timeout: GIT_TIMEOUT_MS,
          maxBuffer: MAX_PATCH_BYTES,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (error) reject(new AttemptsError(`git ${args[0]} failed: ${String(stderr).trim() || error.message}`));
          else resolve(String(stdout).replace(/\n$/, ''));
        },
      );
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input ?? '');
    });
}
