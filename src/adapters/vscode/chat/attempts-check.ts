/**
 * The chat's check command for parallel attempts (setting
 * `crow.attempts.check`): run in each attempt's worktree once it ends, an
 * attempt whose check fails is ranked last (best-of.ts), as `crow run
 * --check CMD` does. A command is the project's choice when it comes from
 * the workspace's settings (a folder anyone may have cloned), so it runs
 * only in a trusted workspace, as project-trust.ts treats a project's
 * hooks; the user's own setting always applies. Plain Node.
 */

/** The setting's values where they were set: the user's, and the workspace's (folder or workspace settings). */
export interface CheckSetting {
  user?: unknown;
  project?: unknown;
}

export interface AttemptsCheck {
  /** The command to run, if any. */
  command?: string;
  /** The workspace's command, left unrun because the workspace is not trusted. */
  withheld?: string;
}

export function attemptsCheck(setting: CheckSetting, trusted: boolean): AttemptsCheck {
  const user = commandOf(setting.user);
  const project = commandOf(setting.project);
  if (project === undefined) return user !== undefined ? { command: user } : {};
  if (trusted) return { command: project };
  // The user's own command still runs; the project's is named, so the person can trust the workspace to use it.
  return project === user ? { command: user } : { ...(user !== undefined ? { command: user } : {}), withheld: project };
}

function commandOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
