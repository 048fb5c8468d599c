/**
 * How a command runs when allow-list entries or "always" answers let it run
 * unasked. An entry vouches for the words of a command line (command-rules.ts)
 * and nothing else, so nothing outside those words may add a program to it:
 *
 * - git, wherever the command starts it (itself, or through make, npm or a
 *   script), runs under Crow's own repository rules (GIT_PROGRAMS_OFF and an
 *   override for each driver the configuration defines by name): no hook,
 *   fsmonitor, pager, external diff, textconv, filter or credential helper,
 *   and no bare repository it would find by itself;
 * - bash and sh read no startup file (BASH_ENV, ENV).
 *
 * The settings go in the command's environment, so every route (child
 * process, VS Code terminal, ACP client terminal) gives them alike, with
 * the sandbox on or off. A command a person allowed runs as they saw it.
 */
import type { CommandLaunch } from './command-sandbox';
import { gitProgramsOffVariables, readRepositoryGit } from './repository-git';
import { WorkspaceError } from './workspace';

/** Variables naming a file the shell runs before the command. */
const SHELL_STARTUP = ['BASH_ENV', 'ENV'];

/**
 * `launch` (for a command in `cwd`, whose git reads its configuration from
 * `env`'s user) with the rules above. Throws a WorkspaceError, releasing the
 * launch, when the configuration names a driver no setting can turn off.
 */
export async function coveredCommandLaunch(launch: CommandLaunch, cwd: string, env: NodeJS.ProcessEnv): Promise<CommandLaunch> {
  const repository = await readRepositoryGit(cwd, env);
  if (repository.problem !== undefined) {
    launch.release();
    throw new WorkspaceError(`Not run: ${repository.problem}.`);
  }
  const variables = gitProgramsOffVariables(repository);
  const kept = Object.entries(launch.env).filter(([name]) => !SHELL_STARTUP.includes(name));
  return {
    ...launch,
    env: { ...Object.fromEntries(kept), ...variables },
    unset: [...launch.unset.filter((name) => !(name in variables)), ...SHELL_STARTUP],
    set: { ...launch.set, ...variables },
  };
}
