import type { CommandArgs } from './command-args';
import { firstWord } from './command-args';
import type { CommandRun } from './command-run';
import { recordFeature, resolveFeature } from './current-feature';
import { CONSTITUTION_PATH, type Feature, featureAt, featureFiles, featuresMatching, listFeatures } from './features';
import type { CommandInput } from '../agents/programmatic-command';
import { field, runRepositoryScript, type ScriptName, type ScriptOutcome, workspacePath } from './repository-scripts';
import { clipped, readText } from './workspace-text';

/** Longest document text put into a prompt; the rest stays in the file for the agent to read. */
export const MAX_DOCUMENT_CHARS = 40_000;

export interface FeatureContext {
  feature: Feature;
  /** How it was chosen, e.g. "from .specify/feature.json". */
  how: string;
  files: ReturnType<typeof featureFiles>;
  /** The command's text without the feature reference. */
  text: string;
  /** What the repository's own script printed, when it chose the feature. */
  script?: ScriptOutcome;
}

/** The repository script a command runs to find its feature (Spec Kit's, when the repository has it), and with what. */
export interface FeatureStep {
  script: ScriptName;
  args: string[];
  /** The command changes nothing: a feature chosen by SPECIFY_FEATURE_DIRECTORY is not recorded in feature.json. */
  readOnly?: boolean;
}

/**
 * The feature an existing-feature command works on. What the user names in
 * the command (`--feature X`, or a first word naming a feature folder)
 * comes first. Then, when the repository has Spec Kit's scripts, the
 * script of `step` decides (it reads SPECIFY_FEATURE_DIRECTORY and
 * feature.json itself; a named feature is passed to it as that variable);
 * otherwise resolveFeature's order, Spec Kit's.
 */
export async function chooseFeature(run: CommandRun, args: CommandArgs, step: FeatureStep): Promise<FeatureContext | { error: string }> {
  const { input } = run;
  let text = args.text;
  let requested = args.options.feature;
  if (requested === undefined) {
    const { word, rest } = firstWord(text);
    if (word !== '' && /\d/.test(word) && featuresMatching(await listFeatures(input.workspace), word).length === 1) {
      requested = word;
      text = rest;
    }
  }
  const found = await resolveFeature({ workspace: input.workspace, env: input.env, ...(requested !== undefined ? { requested } : {}) });
  if (requested !== undefined && 'error' in found) return found;
  const named = 'feature' in found && found.source === 'command' ? found.feature.dir : undefined;
  const script = await runRepositoryScript(run, step.script, step.args, named !== undefined ? { SPECIFY_FEATURE_DIRECTORY: named } : {});
  if (script && 'error' in script) return script;
  if (script) {
    const dir = field(script, 'FEATURE_DIR') ?? field(script, 'SPECS_DIR');
    if (dir === undefined) return { error: `${script.path} printed no FEATURE_DIR: ${JSON.stringify(script.json).slice(0, 200)}. Fix the script, or remove it to let Crow choose the feature.` };
    const feature = featureAt(workspacePath(run, dir));
    return { feature, how: `from ${script.path}`, files: featureFiles(feature), text, script };
  }
  if ('error' in found) return found;
  if (found.source === 'environment' && !step.readOnly) await recordFeature(input.workspace, found.feature.dir);
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

/** The feature of a command that needs its spec, plan and tasks (analyze, converge): chosen as Spec Kit's check-prerequisites --require-tasks chooses it. */
export async function featureWithTasks(run: CommandRun, args: CommandArgs, options: { readOnly?: boolean } = {}): Promise<FeatureContext | string> {
  const context = await chooseFeature(run, args, { script: 'check-prerequisites', args: ['--require-tasks', '--include-tasks'], ...options });
  if ('error' in context) return context.error;
  const { files } = context;
  const absent = await missing(run.input, context, [
    { path: files.spec, command: '/speckit.specify' },
    { path: files.plan, command: '/speckit.plan' },
    { path: files.tasks, command: '/speckit.tasks' },
  ]);
  return absent ?? context;
}
