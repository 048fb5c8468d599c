/**
 * The document templates commands start from, resolved as Spec Kit resolves
 * them: the project's overrides (`.specify/templates/overrides/NAME-template.md`),
 * then installed presets (`.specify/presets/ID/templates/`, by the priority
 * in `.specify/presets/.registry`, lower first, disabled ones skipped), then
 * extensions (`.specify/extensions/ID/templates/`, likewise by
 * `.specify/extensions/.registry`), then the core templates
 * (`.specify/templates/NAME-template.md`); otherwise ours, which are prompts
 * (`prompts/speckit/templates/NAME.hbs`, overridable like any prompt). A
 * layer replaces the ones below it (Spec Kit's prepend, append and wrap
 * strategies of presets are not composed: the preset's file is taken whole).
 */
import type { PromptRegistry } from '../config/prompts';
import type { Workspace } from '../tools/workspace';
import { SPECIFY_DIR } from './features';
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
  const layers = [
    `${SPECIFY_DIR}/templates/overrides/${file}`,
    ...(await ranked(workspace, `${SPECIFY_DIR}/presets`, 'presets')).flatMap((id) => [`${SPECIFY_DIR}/presets/${id}/templates/${file}`, `${SPECIFY_DIR}/presets/${id}/${file}`]),
    ...(await ranked(workspace, `${SPECIFY_DIR}/extensions`, 'extensions')).flatMap((id) => [`${SPECIFY_DIR}/extensions/${id}/templates/${file}`, `${SPECIFY_DIR}/extensions/${id}/${file}`]),
    templatePath(name),
  ];
  for (const path of layers) {
    const text = await readText(workspace, path);
    if (text !== undefined && text.trim() !== '') return { text: withCommandNames(text), source: path };
  }
  return { text: builtinTemplate(prompts, name), source: 'built-in' };
}

/**
 * The ids of the presets or extensions installed under `folder`, in Spec
 * Kit's order: those its `.registry` lists (enabled, by priority, default
 * 10, then by id), and folders it does not list at priority 10 (unless
 * `registeredOnly`: Spec Kit registers a preset's commands only at install).
 */
export async function ranked(workspace: Workspace, folder: string, key: 'presets' | 'extensions', options: { registeredOnly?: boolean } = {}): Promise<string[]> {
  if (!(await isFolder(workspace, folder))) return [];
  let registered: Record<string, { priority?: unknown; enabled?: unknown }> = {};
  const registry = await readText(workspace, `${folder}/.registry`);
  if (registry !== undefined) {
    try {
      const parsed = (JSON.parse(registry) as Record<string, unknown>)[key];
      if (parsed && typeof parsed === 'object') registered = parsed as typeof registered;
    } catch {
      // An unreadable registry ranks nothing: every folder takes the default priority.
    }
  }
  const priority = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 10);
  const ids: [number, string][] = [];
  for (const [id, meta] of Object.entries(registered)) {
    if (/^[a-z0-9-]+$/.test(id) && meta && typeof meta === 'object' && meta.enabled !== false) ids.push([priority(meta.priority), id]);
  }
  for (const entry of options.registeredOnly ? [] : await workspace.readDirectory(folder)) {
    if (entry.type === 'directory' && /^[a-z0-9-]+$/.test(entry.name) && !(entry.name in registered)) ids.push([10, entry.name]);
  }
  return ids.sort(([a, x], [b, y]) => a - b || x.localeCompare(y)).map(([, id]) => id);
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
