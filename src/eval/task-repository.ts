/**
 * A task's temporary copy made a git repository of one commit, for crow
 * eval --attempts: the best-of arm's attempts need worktrees of it, and the
 * single run's copy is made the same way so both arms start from the same
 * thing. git runs as Crow's own git does (no hook, template or program the
 * user's configuration names; no credential in its environment).
 */
import { promisify } from 'node:util';
import { gitEnvironment, GIT_CODE_OFF } from '../tools/repository-git';
import { childProcess } from '../vocabulary/first-use';

/** Who makes the commit. */
const IDENTITY = { GIT_AUTHOR_NAME: 'Crow eval', GIT_AUTHOR_EMAIL: 'crow@localhost', GIT_COMMITTER_NAME: 'Crow eval', GIT_COMMITTER_EMAIL: 'crow@localhost' };

/** Makes `root` a git repository of one commit holding every file (none left out by a .gitignore the task ships). */
export async function commitCopy(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  const git = promisify(childProcess().execFile);
  const off = ['--no-pager', ...GIT_CODE_OFF.flatMap((setting) => ['-c', setting])];
  const options = { cwd: root, env: { ...gitEnvironment(env), ...IDENTITY }, timeout: 60_000 };
  await git('git', [...off, 'init', '--quiet'], options);
  await git('git', [...off, 'add', '--all', '--force', '--', '.'], options);
  await git('git', [...off, 'commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'The task as the runs start from it'], options);
}
