/**
 * The document templates commands start from. A project's own Spec Kit
 * templates win (`.specify/templates/overrides/NAME-template.md`, then
 * `.specify/templates/NAME-template.md`); otherwise ours, which are prompts
 * (`prompts/speckit/templates/NAME.hbs`, overridable like any prompt).
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
  for (const path of [`${SPECIFY_DIR}/templates/overrides/${name}-template.md`, templatePath(name)]) {
    const text = await readText(workspace, path);
    if (text !== undefined && text.trim() !== '') return { text: withCommandNames(text), source: path };
  }
  return { text: builtinTemplate(prompts, name), source: 'built-in' };
}

/** Spec Kit's `__SPECKIT_COMMAND_PLAN__` tokens (left in templates `specify init` did not process) as our command names. */
function withCommandNames(text: string): string {
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
