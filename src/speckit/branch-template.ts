/**
 * The name of a new feature's branch as Spec Kit's git extension makes it
 * (`.specify/extensions/git/git-config.yml`): `branch_template` when it is
 * set, else `branch_prefix` as shorthand for `PREFIX/{number}-{slug}`, else
 * `{number}-{slug}`. The template's tokens are the extension's four:
 * `{author}` (git's user.name, else the local part of user.email, else the
 * login name, else "unknown"), `{app}` (the folder `specify init` ran in:
 * the workspace), `{number}` (the feature's number or timestamp) and
 * `{slug}` (the rest of the feature's name); the first two are cleaned for
 * a branch name as the extension cleans them. Its rules hold too: the
 * template has `{number}`, never `{slug}` before it, and its last segment
 * starts with `{number}-`. Anything else in braces is refused by name,
 * before the feature is made: no branch is ever named with a brace in it.
 */
import { basename } from 'node:path';
import { parse } from 'yaml';
import type { Workspace } from '../tools/workspace';
import { cleanName, initOptions, type Numbering } from './features';
import { readText } from './workspace-text';

export const GIT_CONFIG = '.specify/extensions/git/git-config.yml';
const TOKENS = ['author', 'app', 'number', 'slug'] as const;
type Token = (typeof TOKENS)[number];

/** A template to fill once the feature is named, and where it came from ("" for the default shape). */
export interface BranchTemplate {
  template: string;
  source: string;
  /** How the branch is numbered, and by which setting (readBranchNumbering). */
  numbering: Numbering;
  numberingSource: string;
}

/** GitHub's limit on a branch name, which the extension keeps to. */
export const MAX_BRANCH_BYTES = 244;

/** The git extension's branch settings, as that extension reads them; an error message when they cannot be used. */
export async function readBranchTemplate(workspace: Workspace): Promise<BranchTemplate | { error: string }> {
  const text = await readText(workspace, GIT_CONFIG);
  let config: Record<string, unknown> = {};
  if (text !== undefined) {
    try {
      const parsed: unknown = parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) config = parsed as Record<string, unknown>;
    } catch (err) {
      return { error: `${GIT_CONFIG} is not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)}). Fix it, or pass --no-branch.` };
    }
  }
  const setting = (key: string): string => (typeof config[key] === 'string' ? (config[key] as string).trim() : '');
  const template = setting('branch_template');
  const prefix = setting('branch_prefix');
  const numbering = readBranchNumbering(config, await initOptions(workspace));
  const chosen = template !== ''
    ? { template, source: `branch_template "${template}" in ${GIT_CONFIG}` }
    : prefix !== ''
      ? { template: `${prefix.endsWith('/') ? prefix : `${prefix}/`}{number}-{slug}`, source: `branch_prefix "${prefix}" in ${GIT_CONFIG}` }
      : { template: '{number}-{slug}', source: 'the default {number}-{slug}' };
  const problem = templateProblem(chosen.template);
  return problem === undefined ? { ...chosen, ...numbering } : { error: `The feature's branch cannot be named from ${chosen.source}: ${problem} Fix it in ${GIT_CONFIG}, or pass --no-branch.` };
}

/**
 * The branch's numbering as the extension's /speckit.git.feature decides
 * it: git-config.yml's branch_numbering, else init-options.json's
 * feature_numbering, else its older branch_numbering, else sequential.
 * A value that is neither "sequential" nor "timestamp" is passed over.
 */
export function readBranchNumbering(config: Record<string, unknown>, options: Record<string, unknown>): { numbering: Numbering; numberingSource: string } {
  const found = [
    [config.branch_numbering, `branch_numbering in ${GIT_CONFIG}`],
    [options.feature_numbering, 'feature_numbering in .specify/init-options.json'],
    [options.branch_numbering, 'branch_numbering in .specify/init-options.json'],
  ].find(([value]) => value === 'sequential' || value === 'timestamp');
  return found ? { numbering: found[0] as Numbering, numberingSource: found[1] as string } : { numbering: 'sequential', numberingSource: 'the default' };
}

/**
 * The branch name within GitHub's 244 bytes, shortened as the extension
 * shortens it: the slug loses a character at a time (and a dash left at
 * its end) until the name fits; undefined when even no slug is too long.
 */
export function fitBranch(template: string, values: TokenValues): string | undefined {
  let slug = values.slug;
  let name = renderBranch(template, values);
  while (Buffer.byteLength(name) > MAX_BRANCH_BYTES && slug !== '') {
    slug = [...slug].slice(0, -1).join('').replace(/-$/, '');
    name = renderBranch(template, { ...values, slug });
  }
  return Buffer.byteLength(name) > MAX_BRANCH_BYTES ? undefined : name;
}

/** What is wrong with a template, by Spec Kit's rules and its four tokens; undefined when nothing is. */
export function templateProblem(template: string): string | undefined {
  const unknown = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!).filter((name) => !(TOKENS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    const names = [...new Set(unknown)].map((name) => `{${name}}`).join(', ');
    return `${names} ${unknown.length === 1 ? 'is not a token' : 'are not tokens'} Crow can fill (the git extension defines ${TOKENS.map((t) => `{${t}}`).join(', ')}).`;
  }
  if (/[{}]/.test(template.replace(/\{(author|app|number|slug)\}/g, ''))) return 'it has an unmatched brace.';
  if (!template.includes('{number}')) return 'it must include {number}, so the branch stays a feature branch.';
  const slug = template.indexOf('{slug}');
  if (slug !== -1 && template.indexOf('{number}', slug) !== -1) return '{slug} must not come before {number}.';
  if (!template.split('/').at(-1)!.startsWith('{number}-')) return 'its last segment must start with {number}-.';
  return undefined;
}

export interface TokenValues {
  author: string;
  app: string;
  number: string;
  slug: string;
}

/** The template filled in. */
export function renderBranch(template: string, values: TokenValues): string {
  return template.replace(/\{(author|app|number|slug)\}/g, (_whole, token: Token) => values[token]);
}

/** A token value cleaned as the extension cleans it, or its fallback when nothing is left. */
export function branchToken(value: string | undefined, fallback: string): string {
  return cleanName(value ?? '') || fallback;
}

/** `{app}`: the name of the folder Spec Kit was set up in. */
export function appToken(root: string): string {
  return branchToken(basename(root), 'app');
}

/** `{author}` from git's user.name, else user.email's local part, else the login name. */
export function authorToken(name: string | undefined, email: string | undefined, env: NodeJS.ProcessEnv): string {
  const author = name?.trim() || email?.trim().replace(/@.*$/, '') || env.USER || env.USERNAME;
  return branchToken(author, 'unknown');
}

/** `{number}` and `{slug}` of a feature folder named "003-photo-albums" (or "20260319-143022-photo-albums"). */
export function numberAndSlug(name: string, prefix: string): { number: string; slug: string } {
  const slug = prefix !== '' && name.startsWith(`${prefix}-`) ? name.slice(prefix.length + 1) : name;
  return { number: prefix !== '' ? prefix : name, slug };
}
