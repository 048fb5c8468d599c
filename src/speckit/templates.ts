/**
 * The document templates commands start from, resolved as Spec Kit resolves
 * them: the project's overrides (`.specify/templates/overrides/NAME-template.md`),
 * then installed presets (`.specify/presets/ID/templates/`, by the priority
 * in `.specify/presets/.registry`, lower first, disabled ones skipped), then
 * extensions (`.specify/extensions/ID/templates/`, likewise by
 * `.specify/extensions/.registry`), then the core templates
 * (`.specify/templates/NAME-template.md`); otherwise ours, which are prompts
 * (`prompts/speckit/templates/NAME.hbs`, overridable like any prompt).
 * Presets are those the registry lists, each by its manifest (`type:
 * template`) or by convention (preset-commands.ts). A preset's `strategy`
 * composes as Spec Kit's PresetResolver composes templates: `replace` (the
 * default) takes the file whole; `prepend`, `append` and `wrap` (its
 * `{CORE_TEMPLATE}` the layers below) build on the next layer down, which
 * is the next preset, else the extension, core or built-in template.
 */
import type { PromptRegistry } from '../config/prompts';
import type { Workspace } from '../tools/workspace';
import { SPECIFY_DIR } from './features';
import { composeLayers, templateLayers } from './preset-commands';
import { ranked } from './installed-ranking';
import { isFolder, readText } from './workspace-text';

export type TemplateName = 'spec' | 'plan' | 'tasks' | 'checklist' | 'constitution';
const TEMPLATE_NAMES: readonly TemplateName[] = ['constitution', 'spec', 'plan', 'tasks', 'checklist'];

export interface Template {
  text: string;
  /** The project file it came from, or "built-in". */
  source: string;
}

export function templatePath(name: TemplateName): string {
  return `${SPECIFY_DIR}/templates/${name}-template.md`;
}

export async function readTemplate(workspace: Workspace, prompts: PromptRegistry, name: TemplateName): Promise<Template> {
  const file = `${name}-template.md`;
  const override = `${SPECIFY_DIR}/templates/overrides/${file}`;
  const own = await readText(workspace, override);
  if (own !== undefined && own.trim() !== '') return { text: withCommandNames(own), source: override };
  const presets = await templateLayers(workspace, `${name}-template`);
  if ('error' in presets) throw new Error(presets.error);
  const top = presets.at(-1);
  if (top?.strategy === 'replace' && presets.length === 1) return { text: withCommandNames(top.text), source: top.path };
  const unwrapped = presets.find((layer) => layer.strategy === 'wrap' && !layer.text.includes('{CORE_TEMPLATE}'));
  if (unwrapped) {
    throw new Error(`${unwrapped.path} wraps ${file} (strategy: wrap in ${unwrapped.origin}'s preset.yml) but has no {CORE_TEMPLATE} to say where the template below goes. Add it, or disable the preset (specify preset disable ${unwrapped.origin.replace(/^preset /, '')}).`);
  }
  const base = top?.strategy === 'replace' ? { text: '', source: '' } : await baseTemplate(workspace, prompts, name);
  const text = composeLayers(presets, base.text, (layer) => layer.text);
  const source = [...presets].reverse().map((layer) => `${layer.path} (${layer.strategy})`).join(' over ');
  return { text: withCommandNames(text), source: presets.length === 0 ? base.source : top?.strategy === 'replace' ? source : `${source} over ${base.source}` };
}

/** The template below the presets: an extension's, else the core's in .specify/templates/, else ours. */
async function baseTemplate(workspace: Workspace, prompts: PromptRegistry, name: TemplateName): Promise<Template> {
  const file = `${name}-template.md`;
  const layers = [
    ...(await ranked(workspace, `${SPECIFY_DIR}/extensions`, 'extensions')).flatMap((id) => [`${SPECIFY_DIR}/extensions/${id}/templates/${file}`, `${SPECIFY_DIR}/extensions/${id}/${file}`]),
    templatePath(name),
  ];
  for (const path of layers) {
    const text = await readText(workspace, path);
    if (text !== undefined && text.trim() !== '') return { text, source: path };
  }
  return { text: builtinTemplate(prompts, name), source: 'built-in' };
}

/** Spec Kit's `__SPECKIT_COMMAND_PLAN__` tokens (left in templates `specify init` did not process) as our command names. */
export function withCommandNames(text: string): string {
  return text.replace(/__SPECKIT_COMMAND_([A-Z][A-Z0-9_]*)__/g, (_token, name: string) => `/speckit.${name.toLowerCase().replace(/_/g, '.')}`);
}

function builtinTemplate(prompts: PromptRegistry, name: TemplateName): string {
  return prompts.render(`speckit/templates/${name}`, {});
}

/**
 * In a project without `.specify/`, lays out Spec Kit's structure with our
 * templates (`.specify/templates/*-template.md`, `.specify/memory/`), so the
 * project reads like one `specify init` made. A project that has `.specify/`
 * is left as it is. Returns the files written.
 */
export async function ensureLayout(workspace: Workspace, prompts: PromptRegistry): Promise<string[]> {
  if (await isFolder(workspace, SPECIFY_DIR)) return [];
  const written: string[] = [];
  for (const name of TEMPLATE_NAMES) {
    const path = templatePath(name);
    await workspace.writeFile(path, builtinTemplate(prompts, name));
    written.push(path);
  }
  return written;
}
