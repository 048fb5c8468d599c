/**
 * Which feature a command works on, in Spec Kit 1.0's order and nothing
 * else: SPECIFY_FEATURE_DIRECTORY, then `.specify/feature.json`'s
 * `feature_directory`, then an error saying how to choose one. Crow adds
 * only what the user says in the command itself (`--feature X`, or a first
 * word naming a feature folder), which comes first. Any folder may be a
 * feature (`specs/auth-flow` as much as `specs/003-x`); neither the git
 * branch nor "the newest folder" ever decides.
 */
import type { Workspace } from '../tools/workspace';
import { type Feature, FEATURE_JSON, featureAt, featuresMatching, listFeatures } from './features';
import { isFolder, readText } from './workspace-text';

/** How the feature a command works on was chosen, in the words its message uses. */
export interface ResolvedFeature {
  feature: Feature;
  /** e.g. "named in the command", "from SPECIFY_FEATURE_DIRECTORY", "from .specify/feature.json". */
  how: string;
  /** Where it came from, for callers that record it (feature.json is written when the variable chose). */
  source: 'command' | 'environment' | 'feature.json';
}

export interface FeatureQuery {
  workspace: Workspace;
  env: NodeJS.ProcessEnv;
  /** What the user named in the command (a folder, a name, a number), if anything. */
  requested?: string;
}

export async function resolveFeature(query: FeatureQuery): Promise<ResolvedFeature | { error: string }> {
  const { workspace, env } = query;
  if (query.requested !== undefined) return named(workspace, query.requested);
  const variable = env.SPECIFY_FEATURE_DIRECTORY?.trim();
  if (variable) return existing(workspace, variable, 'from SPECIFY_FEATURE_DIRECTORY', 'environment');
  const recorded = await featureJson(workspace);
  if (typeof recorded === 'object') return recorded;
  if (recorded !== undefined) return existing(workspace, recorded, `from ${FEATURE_JSON}`, 'feature.json');
  const folders = (await listFeatures(workspace)).map((f) => f.dir);
  return {
    error:
      `No current feature: Spec Kit takes it from SPECIFY_FEATURE_DIRECTORY or ${FEATURE_JSON}, and neither is set. ` +
      `Start one with /speckit.specify <what to build>${folders.length > 0 ? `, or name one, e.g. --feature ${folders.at(-1)} (feature folders here: ${folders.join(', ')})` : ''}.`,
  };
}

/** A feature the user named: a folder path, or a feature folder's name or number. */
async function named(workspace: Workspace, reference: string): Promise<ResolvedFeature | { error: string }> {
  const path = relativeTo(workspace.root, reference);
  if (await isFolder(workspace, path)) return { feature: featureAt(path), how: 'named in the command', source: 'command' };
  const features = await listFeatures(workspace);
  const matches = featuresMatching(features, reference);
  if (matches.length === 1) return { feature: matches[0]!, how: 'named in the command', source: 'command' };
  if (matches.length > 1) return { error: `"${reference}" matches several feature folders: ${matches.map((f) => f.dir).join(', ')}. Name one of them in full.` };
  return { error: `No feature folder matches "${reference}". Feature folders: ${features.map((f) => f.dir).join(', ') || 'none yet'}.` };
}

async function existing(workspace: Workspace, reference: string, how: string, source: ResolvedFeature['source']): Promise<ResolvedFeature | { error: string }> {
  const path = relativeTo(workspace.root, reference);
  if (path.startsWith('/') || path.split('/').includes('..')) return { error: `${reference} (${how}) is outside the project: point it at a folder inside ${workspace.root}.` };
  if (await isFolder(workspace, path)) return { feature: featureAt(path), how, source };
  return { error: `${path} (${how}) does not exist. Create it with /speckit.specify, or point ${source === 'environment' ? 'SPECIFY_FEATURE_DIRECTORY' : FEATURE_JSON} at an existing feature folder.` };
}

/** feature.json's feature_directory; undefined when there is no file; an error when it cannot be read. */
async function featureJson(workspace: Workspace): Promise<string | { error: string } | undefined> {
  const text = await readText(workspace, FEATURE_JSON);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = (JSON.parse(text) as Record<string, unknown>).feature_directory;
  } catch (err) {
    return { error: `${FEATURE_JSON} is not valid JSON (${(err as Error).message}): fix it, e.g. {"feature_directory": "specs/001-name"}, or run /speckit.specify.` };
  }
  if (typeof value !== 'string' || value.trim() === '') return { error: `${FEATURE_JSON} has no feature_directory: set it, e.g. {"feature_directory": "specs/001-name"}, or run /speckit.specify.` };
  return value.trim();
}

/** Writes `dir` into feature.json, as Spec Kit's scripts do when SPECIFY_FEATURE_DIRECTORY chose the feature. */
export async function recordFeature(workspace: Workspace, dir: string): Promise<void> {
  const current = await featureJson(workspace);
  if (current === dir) return;
  await workspace.writeFile(FEATURE_JSON, `${JSON.stringify({ feature_directory: dir }, null, 2)}\n`);
}

function relativeTo(root: string, path: string): string {
  const forward = path.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  const base = root.replace(/\\/g, '/').replace(/\/+$/, '');
  return forward.startsWith(`${base}/`) ? forward.slice(base.length + 1) : forward;
}
