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
import { mkdirSync, rmSync } from 'node:fs';
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
    const git = await repositoryGit(root, env);
    const top = await git(['rev-parse', '--show-toplevel']).catch(() => undefined);
    if (top === undefined) throw new AttemptsError(`${root} is not in a git repository: attempts run in git worktrees. Run git init and commit once, then try again.`);
    if (top !== root) throw new AttemptsError(`Attempts run from the top folder of the repository: run crow there (${top}), or pass --cwd ${top}.`);
    const head = await git(['rev-parse', '--verify', 'HEAD^{commit}']).catch(() => undefined);
    if (head === undefined) throw new AttemptsError('The repository has no commit yet: attempts start from HEAD. Commit once, then try again.');
    const common = await git(['rev-parse', '--path-format=absolute', '--git-common-dir']);
    const folder = join(common, 'crow-attempts', runId);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const base = await baseCommit(git, head);
    return new AttemptTrees(git, root, folder, base);
  }

  /** A new worktree for attempt `n`, checked out at the base (detached: no branch is made). */
  async add(n: number): Promise<string> {
    const path = join(this.folder, String(n));
    await this.git(['worktree', 'add', '--detach', '--quiet', path, this.base]);
    return path;
  }

  /** What the attempt in `tree` changed against the base, untracked files included. */
  async changes(tree: string): Promise<AttemptChanges> {
    await this.git(['add', '--all', '--', '.'], { cwd: tree });
    const patch = await this.git(['diff', '--cached', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', this.base], { cwd: tree });
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
