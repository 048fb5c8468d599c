import type { Workspace } from '../tools/workspace';
import { type Feature, FEATURE_JSON, featuresMatching, listFeatures } from './features';
import { currentBranch } from './git-branch';
import { readText } from './workspace-text';

/** How the feature a command works on was chosen, in the words its message uses. */
export interface ResolvedFeature {
  feature: Feature;
  /** e.g. "from branch 003-photo-albums", "named in the command", "the most recent feature". */
  how: string;
}

export interface FeatureQuery {
  workspace: Workspace;
  env: NodeJS.ProcessEnv;
  /** What the user named in the command (a folder, a name, a number), if anything. */
  requested?: string;
  /** The feature folder this session worked on last, if any. */
  sessionFeature?: string;
}

/**
 * The feature a command works on, first found: the one named in the
 * command; the one this session worked on; SPECIFY_FEATURE_DIRECTORY or
 * SPECIFY_FEATURE (Spec Kit's variables); the git branch (`NNN-name`,
 * matched by number as Spec Kit does); `.specify/feature.json`; the most
 * recent feature folder. A name that matches nothing, or several folders,
 * is an error saying what exists.
 */
export async function resolveFeature(query: FeatureQuery): Promise<ResolvedFeature | { error: string }> {
  const { workspace, env } = query;
  const features = await listFeatures(workspace);
  if (features.length === 0) return { error: 'This project has no feature folders yet (specs/NNN-name/). Start one with /speckit.specify <what to build>.' };
  if (query.requested !== undefined) return pick(features, query.requested, 'named in the command');
  const candidates: [string | undefined, string][] = [
    [query.sessionFeature, 'the feature this session works on'],
    [env.SPECIFY_FEATURE_DIRECTORY, 'from SPECIFY_FEATURE_DIRECTORY'],
    [env.SPECIFY_FEATURE, 'from SPECIFY_FEATURE'],
  ];
  for (const [reference, how] of candidates) {
    if (reference === undefined || reference.trim() === '') continue;
    const found = pick(features, relativeTo(workspace.root, reference), how);
    if ('feature' in found || reference !== query.sessionFeature) return found;
  }
  const branch = await currentBranch(workspace.root, env);
  if (branch !== undefined && featuresMatching(features, branch).length > 0) return pick(features, branch, `from branch ${branch}`);
  const recorded = await featureJson(workspace);
  if (recorded !== undefined && featuresMatching(features, recorded).length === 1) return pick(features, recorded, `from ${FEATURE_JSON}`);
  return { feature: features.at(-1)!, how: 'the most recent feature' };
}

function pick(features: Feature[], reference: string, how: string): ResolvedFeature | { error: string } {
  const matches = featuresMatching(features, reference);
  if (matches.length === 1) return { feature: matches[0]!, how };
  const known = features.map((f) => f.dir).join(', ');
  if (matches.length > 1) {
    return { error: `"${reference}" (${how}) matches several feature folders: ${matches.map((f) => f.dir).join(', ')}. Name one of them in full.` };
  }
  return { error: `No feature folder matches "${reference}" (${how}). Feature folders: ${known}.` };
}

/** The feature_directory of .specify/feature.json, if the file holds one. */
async function featureJson(workspace: Workspace): Promise<string | undefined> {
  const text = await readText(workspace, FEATURE_JSON);
  if (text === undefined) return undefined;
  try {
    const value = (JSON.parse(text) as Record<string, unknown>).feature_directory;
    return typeof value === 'string' && value.trim() !== '' ? relativeTo(workspace.root, value) : undefined;
  } catch {
    return undefined;
  }
}

function relativeTo(root: string, path: string): string {
  const forward = path.replace(/\\/g, '/');
  const base = root.replace(/\\/g, '/').replace(/\/+$/, '');
  return forward.startsWith(`${base}/`) ? forward.slice(base.length + 1) : forward;
}
