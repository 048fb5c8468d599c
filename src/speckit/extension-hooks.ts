/**
 * Spec Kit extensions as Crow runs them: the hooks `.specify/extensions.yml`
 * registers around each command (`hooks.before_plan`, `hooks.after_plan`,
 * …: extension, command, optional, prompt, description, condition,
 * enabled, priority), and the extensions' own commands
 * (`.specify/extensions/ID/extension.yml` → `provides.commands`), each a
 * markdown prompt.
 *
 * Around a command, enabled hooks run in priority order: an optional hook
 * is offered (its command named, to run when the person wants it); a
 * mandatory one runs, its command's prompt through the session's agent,
 * whose tool calls (the extension's scripts among them) go through the
 * permission policy and the sandbox like any other. A hook with a
 * condition is skipped, saying so: Crow does not evaluate Spec Kit's
 * condition expressions. A mandatory hook that fails stops the command.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import type { Workspace } from '../tools/workspace';
import { type CommandRun, startCommand } from './command-run';
import { fillPlaceholders, scriptKind } from './command-placeholders';
import { commandLayers, composeLayers } from './preset-commands';
import { withCommandNames } from './templates';
import { readText } from './workspace-text';

export const EXTENSIONS_YML = '.specify/extensions.yml';

export interface Hook {
  extension: string;
  command: string;
  optional: boolean;
  prompt?: string;
  description?: string;
  condition?: string;
  priority: number;
}

/** The enabled hooks of `event` (e.g. "before_plan"), by priority; none when the file is missing or unreadable (as Spec Kit skips it). */
export async function hooksFor(workspace: Workspace, event: string): Promise<Hook[]> {
  const text = await readText(workspace, EXTENSIONS_YML);
  if (text === undefined) return [];
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    return [];
  }
  const entries = (document as { hooks?: Record<string, unknown> } | null)?.hooks?.[event];
  if (!Array.isArray(entries)) return [];
  return entries
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && typeof entry.command === 'string' && entry.enabled !== false)
    .map((entry) => ({
      extension: typeof entry.extension === 'string' ? entry.extension : '',
      command: entry.command as string,
      optional: entry.optional !== false,
      ...(typeof entry.prompt === 'string' ? { prompt: entry.prompt } : {}),
      ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
      ...(typeof entry.condition === 'string' && entry.condition.trim() !== '' ? { condition: entry.condition } : {}),
      priority: typeof entry.priority === 'number' ? entry.priority : 10,
    }))
    .sort((a, b) => a.priority - b.priority);
}

/** Whether the git extension's branch creation (its before_specify hook) is installed and enabled. */
export async function hasGitFeatureHook(workspace: Workspace): Promise<boolean> {
  return (await hooksFor(workspace, 'before_specify')).some((hook) => hook.command === GIT_FEATURE);
}

/** The git extension's branch command, which Crow carries out itself (write-commands.ts). */
const GIT_FEATURE = 'speckit.git.feature';

/**
 * Runs the hooks of `event` for the command of `run`, with the command's
 * arguments; an error message when a mandatory hook could not run or failed.
 * `featureBy` names a preset whose command makes the feature itself, so
 * Crow cannot start its branch first.
 */
export async function runHooks(run: CommandRun, event: string, args: string, options: { featureBy?: string } = {}): Promise<string | undefined> {
  for (const hook of await hooksFor(run.input.workspace, event)) {
    const who = hook.extension !== '' ? ` (extension ${hook.extension})` : '';
    if (hook.condition !== undefined) {
      run.say(`Hook ${event}${who}: /${hook.command} skipped: its condition "${hook.condition}" is not evaluated by Crow. Run /${hook.command} yourself if it applies.`);
      continue;
    }
    if (hook.command === GIT_FEATURE && options.featureBy !== undefined) {
      run.say(`Hook ${event}${who}: no git branch started: ${options.featureBy}'s /${run.name} names the feature itself. Run /${hook.command} once it has, if you want the branch.`);
      continue;
    }
    if (hook.command === GIT_FEATURE) {
      run.say(`Hook ${event}${who}: Crow starts the feature's git branch itself, as /${hook.command} would.`);
      continue;
    }
    if (hook.optional) {
      run.say(`Optional hook ${event}${who}: ${hook.prompt ?? hook.description ?? `run /${hook.command}?`} To run it: /${hook.command}`);
      continue;
    }
    const command = await extensionCommandBody(run.input.workspace.root, hook.extension, hook.command);
    if (!command) return `The mandatory hook ${event}${who} names /${hook.command}, which no installed extension provides (see ${EXTENSIONS_YML} and .specify/extensions/). Reinstall the extension or disable the hook.`;
    const prompt = await extensionPrompt(run.input, command, args);
    if ('error' in prompt) return `The mandatory hook ${event}${who} /${hook.command} cannot run: ${prompt.error}`;
    run.say(`Hook ${event}${who}: running /${hook.command}${prompt.by !== undefined ? ` (${prompt.by})` : ''}.`);
    const result = await run.runPrompt(prompt.text);
    if (result.status === 'error' || result.status === 'cancelled' || result.status === 'limit') {
      return `The mandatory hook ${event}${who} /${hook.command} did not finish: ${result.message}`;
    }
  }
  return undefined;
}

/**
 * An extension's command as the project's presets make it, resolved as
 * Spec Kit resolves every command (preset-commands.ts): the project's
 * override, then presets by priority, above the extension's own file. A
 * replacing layer is the command; prepend, append and wrap compose with
 * the extension's text. `by` says which was used, when not the extension's.
 */
async function extensionPrompt(input: CommandInput, command: ExtensionCommandFile, args: string): Promise<{ text: string; by?: string } | { error: string }> {
  const layers = await commandLayers(input.workspace, command.name);
  if ('error' in layers) return layers;
  if (layers.length === 0) return { text: command.prompt(args) };
  const project = await scriptKind(input);
  const text = composeLayers(layers, command.prompt(args), (layer) => fillPlaceholders(layer.text, args, project));
  const top = layers.at(-1)!;
  const by = top.strategy === 'replace'
    ? `${top.origin}'s version (${top.path}), not extension ${command.extension}'s own`
    : `extension ${command.extension}'s own, with ${layers.map((layer) => `${layer.origin}'s ${layer.strategy} (${layer.path})`).join(' and ')}`;
  return { text, by };
}

interface ExtensionCommandFile {
  name: string;
  extension: string;
  description: string;
  file: string;
  prompt(args: string): string;
}

/** The command `name` of the installed extension `extension` (any extension when ''). */
async function extensionCommandBody(root: string, extension: string, name: string): Promise<ExtensionCommandFile | undefined> {
  return extensionCommandFiles(root).find((command) => command.name === name && (extension === '' || command.extension === extension));
}

/** Every command the installed extensions provide, from their extension.yml. */
export function extensionCommandFiles(root: string): ExtensionCommandFile[] {
  const folder = join(root, '.specify', 'extensions');
  if (!existsSync(folder)) return [];
  const commands: ExtensionCommandFile[] = [];
  for (const id of readdirSync(folder).sort()) {
    const manifest = join(folder, id, 'extension.yml');
    if (!/^[a-z0-9-]+$/.test(id) || !existsSync(manifest)) continue;
    let provided: unknown;
    try {
      provided = (parse(readFileSync(manifest, 'utf8')) as { provides?: { commands?: unknown } } | null)?.provides?.commands;
    } catch {
      continue;
    }
    if (!Array.isArray(provided)) continue;
    for (const entry of provided as Record<string, unknown>[]) {
      if (typeof entry?.name !== 'string' || typeof entry.file !== 'string' || entry.file.includes('..')) continue;
      const file = join(folder, id, entry.file);
      if (!existsSync(file)) continue;
      const body = withCommandNames(readFileSync(file, 'utf8').replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, ''));
      commands.push({
        name: entry.name,
        extension: id,
        description: typeof entry.description === 'string' ? entry.description : `Spec Kit extension ${id}`,
        file: `.specify/extensions/${id}/${entry.file}`,
        prompt: (args) => body.replace(/\$ARGUMENTS|\{ARGS\}/g, args),
      });
    }
  }
  return commands;
}

/** The installed extensions' commands as slash commands: each runs its prompt through the session's agent. */
export function extensionCommands(root: string): ProgrammaticCommand[] {
  return extensionCommandFiles(root).map((command) => ({
    name: command.name,
    description: `${command.description} (Spec Kit extension ${command.extension})`,
    argumentHint: '[arguments]',
    run: (input: CommandInput) =>
      startCommand(command.name, input, async (run) => {
        const prompt = await extensionPrompt(input, command, input.args);
        if ('error' in prompt) return void run.finish('error', prompt.error);
        if (prompt.by !== undefined) run.say(`/${command.name}: ${prompt.by}.`);
        const result = await run.runPrompt(prompt.text);
        run.finish(result.status, result.message, result.summary);
      }),
  }));
}
