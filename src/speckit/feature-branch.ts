/**
 * A git branch for a new feature, only when asked: Spec Kit 1.0 makes
 * branches in its git extension, so one is started when that extension's
 * before_specify hook is installed and enabled, or when the user's
 * speckit.create_branch says so; never otherwise. Its name follows the
 * extension's git-config.yml (branch-template.ts), checked before the
 * feature is made; its number by the extension's branch_numbering, which
 * may differ from the folder's; GIT_BRANCH_NAME names it exactly; and it
 * keeps within GitHub's 244 bytes as the extension keeps it. Crow runs git itself, safely (git-branch.ts), rather
 * than the extension's script: the sandbox keeps commands out of .git.
 */
import { secretVariableNames } from '../config/secret-variables';
import { appToken, authorToken, type BranchTemplate, fitBranch, GIT_CONFIG, MAX_BRANCH_BYTES, numberAndSlug, readBranchTemplate, renderBranch } from './branch-template';
import type { CommandArgs } from './command-args';
import type { CommandRun } from './command-run';
import { hasGitFeatureHook } from './extension-hooks';
import { listFeatures, nextPrefix } from './features';
import { type BranchOutcome, gitConfigValue, localBranches, startFeatureBranch } from './git-branch';

/** A branch named by the template, or exactly as GIT_BRANCH_NAME says (the extension's override); or none, and why. */
export type BranchPlan = { template: BranchTemplate; exact?: string } | { skip: string };

/** Whether a branch will be started, and by which template; an error message when the template cannot be used. */
export async function planFeatureBranch(run: CommandRun, args: CommandArgs): Promise<BranchPlan | string> {
  if (args.flags.has('no-branch')) return { skip: '--no-branch' };
  const setting = run.input.settings?.speckit?.createBranch;
  if (setting === false) return { skip: 'speckit.create_branch is off' };
  if (setting !== true && !(await hasGitFeatureHook(run.input.workspace))) {
    return { skip: "branches are opt-in: install Spec Kit's git extension, or set speckit.create_branch = true" };
  }
  const template = await readBranchTemplate(run.input.workspace);
  if ('error' in template) return template.error;
  const exact = run.input.env.GIT_BRANCH_NAME?.trim();
  if (exact === undefined || exact === '') return { template };
  const bytes = Buffer.byteLength(exact);
  if (bytes > MAX_BRANCH_BYTES) return `GIT_BRANCH_NAME is ${bytes} bytes; a branch name may have ${MAX_BRANCH_BYTES} at most (GitHub's limit). Shorten it, or unset it to name the branch from ${GIT_CONFIG}.`;
  return { template, exact };
}

/** Starts the branch the plan names for the feature folder `name` (numbered `prefix`). */
export async function startBranchFor(run: CommandRun, plan: BranchPlan, name: string, prefix: string): Promise<BranchOutcome & { source?: string; note?: string }> {
  if ('skip' in plan) return { created: false, reason: plan.skip };
  const { root } = run.input.workspace;
  const { env } = run.input;
  const hidden = secretVariableNames(run.input.settings);
  if (plan.exact !== undefined) return { ...(await startFeatureBranch(root, env, plan.exact, hidden)), source: 'GIT_BRANCH_NAME' };
  const { template } = plan;
  const needs = (token: string): boolean => template.template.includes(`{${token}}`);
  const author = needs('author')
    ? authorToken(await gitConfigValue(root, env, 'user.name', hidden), await gitConfigValue(root, env, 'user.email', hidden), env)
    : '';
  const folder = numberAndSlug(name, prefix);
  const tokens = { author, app: appToken(root), number: '', slug: '' };
  const scope = renderBranch(template.template.split('{number}')[0]!, tokens);
  const number = await branchNumber(run, template, prefix, scope, hidden);
  const values = { ...tokens, number: number ?? folder.number, slug: folder.slug };
  const whole = renderBranch(template.template, values);
  const branch = fitBranch(template.template, values);
  if (branch === undefined) return { created: false, reason: `the name ${template.source} gives is longer than GitHub's ${MAX_BRANCH_BYTES} bytes even without the feature's name; shorten it in ${GIT_CONFIG}` };
  const outcome = await startFeatureBranch(root, env, branch, hidden);
  const notes = [
    ...(number !== undefined ? [`numbered ${template.numbering} by ${template.numberingSource}`] : []),
    ...(branch !== whole ? [`shortened from ${Buffer.byteLength(whole)} to ${Buffer.byteLength(branch)} bytes: GitHub allows ${MAX_BRANCH_BYTES}`] : []),
  ];
  return { ...outcome, source: template.source, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
}

/**
 * The branch's own number when its numbering differs from the feature
 * folder's (the extension numbers branches by its settings, the folder by
 * init-options.json): the time now, or one above the highest sequential
 * number among the feature folders and the local branches in the
 * template's namespace. Undefined when the folder's number serves.
 */
async function branchNumber(run: CommandRun, template: BranchTemplate, prefix: string, scope: string, hidden: readonly string[]): Promise<string | undefined> {
  const folderIsTimestamp = /^\d{8}-\d{6}$/.test(prefix);
  if (prefix === '' || (template.numbering === 'timestamp') === folderIsTimestamp) return undefined;
  if (template.numbering === 'timestamp') return nextPrefix([], 'timestamp');
  const names = (await localBranches(run.input.workspace.root, run.input.env, hidden)).filter((branch) => branch.startsWith(scope));
  const numbered = names.flatMap((branch) => {
    const last = branch.slice(scope.length).split('/').at(-1)!;
    return /^\d{3,}-/.test(last) && !/^\d{7,8}-\d{6}(-|$)/.test(last) ? [Number.parseInt(last, 10)] : [];
  });
  const features = (await listFeatures(run.input.workspace)).filter((f) => f.number !== undefined);
  return nextPrefix([...features, ...numbered.map((number) => ({ dir: '', name: '', number }))], 'sequential');
}

export function branchNote(branch: BranchOutcome & { source?: string; note?: string }): string {
  if (!branch.created) return `no git branch started (${branch.reason})`;
  const by = [
    ...(branch.source !== undefined && !branch.source.startsWith('the default') ? [`by ${branch.source}`] : []),
    ...(branch.note !== undefined ? [branch.note] : []),
  ];
  return `started git branch ${branch.branch}${by.length > 0 ? ` (${by.join('; ')})` : ''} from ${branch.from}, your uncommitted changes untouched`;
}
