/**
 * The git side of Spec Kit's feature numbering: the current branch names the
 * current feature (`003-photo-albums`, or `feat/003-photo-albums`), and
 * creating a feature may start its branch. Runs the user's git in the
 * workspace (their repository and configuration) the way Crow always runs
 * git there: nothing the repository names runs (hooks, fsmonitor, filters,
 * pager; see repository-git.ts), and no credential is in its environment.
 *
 * Starting a branch never loses work: it is only `git switch -c NAME`, a new
 * branch at the current commit, which leaves the working tree and the index
 * exactly as they are (uncommitted changes simply come along). It is skipped,
 * with the reason, when the workspace is not a git work tree, HEAD is
 * detached or has no commit yet, a merge, rebase, cherry-pick, revert or
 * bisect is in progress, or the branch exists already (no switch to an
 * existing branch, which could touch files).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { gitEnvironment, readRepositoryGit, type RepositoryGit, safeGitArgs } from '../tools/repository-git';
import { childProcess } from '../vocabulary/first-use';

const GIT_TIMEOUT_MS = 10_000;
/** Files in the git folder that mean an operation is half done. */
const IN_PROGRESS = ['MERGE_HEAD', 'rebase-merge', 'rebase-apply', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'BISECT_LOG'];

export type BranchOutcome =
  | { created: true; branch: string; from: string }
  | { created: false; reason: string };

/** The checked-out branch of the repository holding `root`; undefined outside git or on a detached HEAD. */
export async function currentBranch(root: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const git = await repositoryGit(root, env);
  if ('problem' in git) return undefined;
  const result = await git(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return result.ok && result.out !== '' ? result.out : undefined;
}

/** A value of git's configuration as the repository at `root` sees it (its own, then the user's); undefined when unset or outside git. */
export async function gitConfigValue(root: string, env: NodeJS.ProcessEnv, key: string, hidden: readonly string[] = []): Promise<string | undefined> {
  const git = await repositoryGit(root, env, hidden);
  if ('problem' in git) return undefined;
  const result = await git(['config', '--get', key]);
  return result.ok && result.out !== '' ? result.out : undefined;
}

/** The names of the repository's local branches (none outside git). */
export async function localBranches(root: string, env: NodeJS.ProcessEnv, hidden: readonly string[] = []): Promise<string[]> {
  const git = await repositoryGit(root, env, hidden);
  if ('problem' in git) return [];
  const result = await git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/']);
  return result.ok ? result.out.split('\n').filter(Boolean) : [];
}

/**
 * Starts branch `name` at the current commit and switches to it, when that
 * is safe (see the file comment). `hidden` names more variables git must
 * not see (the settings' key variables).
 */
export async function startFeatureBranch(root: string, env: NodeJS.ProcessEnv, name: string, hidden: readonly string[] = []): Promise<BranchOutcome> {
  const git = await repositoryGit(root, env, hidden);
  if ('problem' in git) return { created: false, reason: git.problem };
  const inside = await git(['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.out !== 'true') return { created: false, reason: 'the workspace is not a git repository' };
  const head = await git(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const from = head.ok && head.out !== '' ? head.out : undefined;
  if (from === undefined) return { created: false, reason: 'HEAD is detached' };
  if (!(await git(['rev-parse', '--verify', '--quiet', 'HEAD'])).ok) return { created: false, reason: `${from} has no commit yet` };
  const busy = await operationInProgress(root, git);
  if (busy) return { created: false, reason: `a ${busy} is in progress` };
  if ((await git(['show-ref', '--verify', '--quiet', `refs/heads/${name}`])).ok) {
    return { created: false, reason: `branch ${name} exists already (switch to it yourself if you want it)` };
  }
  if (!(await git(['check-ref-format', '--branch', name])).ok) return { created: false, reason: `"${name}" is not a valid branch name` };
  const switched = await git(['switch', '--quiet', '-c', name]);
  if (!switched.ok) return { created: false, reason: `git switch -c ${name} failed: ${switched.err || 'no message'}` };
  return { created: true, branch: name, from };
}

async function operationInProgress(root: string, git: Git): Promise<string | undefined> {
  const dir = await git(['rev-parse', '--git-dir']);
  if (!dir.ok) return undefined;
  const gitDir = isAbsolute(dir.out) ? dir.out : join(root, dir.out);
  const names: Record<string, string> = {
    MERGE_HEAD: 'merge',
    'rebase-merge': 'rebase',
    'rebase-apply': 'rebase',
    CHERRY_PICK_HEAD: 'cherry-pick',
    REVERT_HEAD: 'revert',
    BISECT_LOG: 'bisect',
  };
  const found = IN_PROGRESS.find((file) => existsSync(join(gitDir, file)));
  return found && names[found];
}

interface GitResult {
  ok: boolean;
  out: string;
  err: string;
}

/** Runs one git command in the workspace, the safe way. */
type Git = (args: string[]) => Promise<GitResult>;

/** Crow's git for the repository at `root`, or why it must not run there. */
async function repositoryGit(root: string, env: NodeJS.ProcessEnv, hidden: readonly string[] = []): Promise<Git | { problem: string }> {
  const repository: RepositoryGit = await readRepositoryGit(root, env);
  if (repository.problem !== undefined) return { problem: repository.problem };
  const gitEnv = gitEnvironment(env, hidden);
  return (args) =>
    new Promise((resolve) => {
      childProcess().execFile('git', safeGitArgs(repository, args), { cwd: root, env: gitEnv, timeout: GIT_TIMEOUT_MS, windowsHide: true }, (error, stdout, stderr) =>
        resolve({ ok: !error, out: String(stdout).trim(), err: String(stderr).trim() }),
      );
    });
}
