import type { CommandArgs } from './command-args';
import { firstWord } from './command-args';
import { resolveFeature } from './current-feature';
import { CONSTITUTION_PATH, type Feature, featureFiles, featuresMatching, listFeatures } from './features';
import type { CommandInput } from '../agents/programmatic-command';
import { clipped, readText } from './workspace-text';

/** Longest document text put into a prompt; the rest stays in the file for the agent to read. */
export const MAX_DOCUMENT_CHARS = 40_000;

export interface FeatureContext {
  feature: Feature;
  /** How it was chosen, e.g. "from branch 003-photo-albums". */
  how: string;
  files: ReturnType<typeof featureFiles>;
  /** The command's text without the feature reference. */
  text: string;
}

/**
 * The feature an existing-feature command works on: `--feature X`, or a
 * first word naming an existing feature folder, else resolveFeature's order.
 */
export async function chooseFeature(input: CommandInput, args: CommandArgs): Promise<FeatureContext | { error: string }> {
  let text = args.text;
  let requested = args.options.feature;
  if (requested === undefined) {
    const { word, rest } = firstWord(text);
    if (word !== '' && featuresMatching(await listFeatures(input.workspace), word).length === 1 && /\d/.test(word)) {
      requested = word;
      text = rest;
    }
  }
  const found = await resolveFeature({
    workspace: input.workspace,
    env: input.env,
    ...(requested !== undefined ? { requested } : {}),
    ...(input.session.artifacts.feature !== undefined ? { sessionFeature: input.session.artifacts.feature } : {}),
  });
  if ('error' in found) return found;
  return { feature: found.feature, how: found.how, files: featureFiles(found.feature), text };
}

/** A document's text for a prompt (clipped), or '' when the file does not exist. */
export async function documentText(input: CommandInput, path: string): Promise<string> {
  const text = await readText(input.workspace, path);
  return text === undefined ? '' : clipped(text, MAX_DOCUMENT_CHARS, path);
}

export function constitutionText(input: CommandInput): Promise<string> {
  return documentText(input, CONSTITUTION_PATH);
}

/** An error for a command that needs a document the feature does not have yet. */
export async function missing(input: CommandInput, context: FeatureContext, needs: { path: string; command: string }[]): Promise<string | undefined> {
  for (const need of needs) {
    if ((await readText(input.workspace, need.path)) === undefined) {
      return `${context.feature.dir} (${context.how}) has no ${need.path.slice(context.feature.dir.length + 1)} yet: run ${need.command} first.`;
    }
  }
  return undefined;
}
