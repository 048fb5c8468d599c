/**
 * A git branch for a new feature, only when asked: Spec Kit 1.0 makes
 * branches in its git extension, so one is started when that extension's
 * before_specify hook is installed and enabled, or when the user's
 * speckit.create_branch says so; never otherwise. Its name follows the
 * extension's git-config.yml (branch-template.ts), checked before the
 * feature is made. Crow runs git itself, safely (git-branch.ts), rather
 * than the extension's script: the sandbox keeps commands out of .git.
 */
import { secretVariableNames } from '../config/secret-variables';
import { appToken, authorToken, type BranchTemplate, numberAndSlug, readBranchTemplate, renderBranch } from './branch-template';
import type { CommandArgs } from './command-args';
import type { CommandRun } from './command-run';
import { hasGitFeatureHook } from './extension-hooks';
import { type BranchOutcome, gitConfigValue, startFeatureBranch } from './git-branch';

export type BranchPlan = { template: BranchTemplate } | { skip: string };

/** Whether a branch will be started, and by which template; an error message when the template cannot be used. */
export async function planFeatureBranch(run: CommandRun, args: CommandArgs): Promise<BranchPlan | string> {
  if (args.flags.has('no-branch')) return { skip: '--no-branch' };
  const setting = run.input.settings?.speckit?.createBranch;
  if (setting === false) return { skip: 'speckit.create_branch is off' };
  if (setting !== true && !(await hasGitFeatureHook(run.input.workspace))) {
    return { skip: "branches are opt-in: install Spec Kit's git extension, or set speckit.create_branch = true" };
  }
  const template = await readBranchTemplate(run.input.workspace);
  return 'error' in template ? template.error : { template };
}

/** Starts the branch the plan names for the feature folder `name` (numbered `prefix`). */
export async function startBranchFor(run: CommandRun, plan: BranchPlan, name: string, prefix: string): Promise<BranchOutcome & { source?: string }> {
  if ('skip' in plan) return { created: false, reason: plan.skip };
  const { root } = run.input.workspace;
  const { env } = run.input;
  const hidden = secretVariableNames(run.input.settings);
  const needs = (token: string): boolean => plan.template.template.includes(`{${token}}`);
  const author = needs('author')
    ? authorToken(await gitConfigValue(root, env, 'user.name', hidden), await gitConfigValue(root, env, 'user.email', hidden), env)
    : '';
  const branch = renderBranch(plan.template.template, { author, app: appToken(root), ...numberAndSlug(name, prefix) });
  const outcome = await startFeatureBranch(root, env, branch, hidden);
  return { ...outcome, source: plan.template.source };
}

export function branchNote(branch: BranchOutcome & { source?: string }): string {
  if (!branch.created) return `no git branch started (${branch.reason})`;
  const by = branch.source !== undefined && !branch.source.startsWith('the default') ? ` (by ${branch.source})` : '';
  return `started git branch ${branch.branch}${by} from ${branch.from}, your uncommitted changes untouched`;
}
