/**
 * A /speckit.* command as the project's Spec Kit resolves it (its
 * PresetResolver, for `type: command`): the project's override
 * `.specify/templates/overrides/speckit.NAME.md` first, then the installed
 * presets in `.specify/presets/.registry` order (enabled, lower priority
 * first), each by its manifest (`preset.yml` → `provides.templates`, the
 * entry of `type: command` and that name: its `file`, and no guessing when
 * that file is missing) or else by convention (`commands/speckit.NAME.md`).
 * Below them is the core command, which for Crow is its own.
 *
 * A layer's `strategy` says how it meets the layer below: `replace` (the
 * default) is the whole command; `prepend`, `append` and `wrap` (with
 * `{CORE_TEMPLATE}`) compose with it, down to Crow's own prompt.
 */
import { parse } from 'yaml';
import type { Workspace } from '../tools/workspace';
import { SPECIFY_DIR } from './features';
import { ranked } from './installed-ranking';
import { readText } from './workspace-text';

export type Strategy = 'replace' | 'prepend' | 'append' | 'wrap';
const STRATEGIES: readonly Strategy[] = ['replace', 'prepend', 'append', 'wrap'];
/** A preset manifest or command file larger than this is refused (Spec Kit's own are a few KB). */
export const PRESET_FILE_LIMIT = 256 * 1024;

export interface CommandLayer {
  /** "preset lean" or "the project's override". */
  origin: string;
  /** Workspace-relative path of the command file. */
  path: string;
  /** The file's text, frontmatter included. */
  text: string;
  strategy: Strategy;
}

/** The layers above the core for `command`, highest first, down to (and including) the first that replaces; none when Crow's own runs. */
export async function commandLayers(workspace: Workspace, command: string): Promise<CommandLayer[] | { error: string }> {
  const layers: CommandLayer[] = [];
  const override = `${SPECIFY_DIR}/templates/overrides/${command}.md`;
  const own = await readCapped(workspace, override);
  if (typeof own === 'object') return own;
  if (own !== undefined) return [{ origin: "the project's override", path: override, text: own, strategy: 'replace' }];
  for (const id of await ranked(workspace, `${SPECIFY_DIR}/presets`, 'presets', { registeredOnly: true })) {
    const layer = await presetLayer(workspace, id, command);
    if (layer === undefined) continue;
    if ('error' in layer) return layer;
    layers.push(layer);
    if (layer.strategy === 'replace') break;
  }
  return layers;
}

/**
 * The preset layers above the core for the template `name` (e.g.
 * "plan-template"), highest first, down to the first that replaces: as
 * commandLayers, by each preset's manifest (`type: template`) or by
 * convention (`templates/NAME.md`, then `NAME.md`).
 */
export async function templateLayers(workspace: Workspace, name: string): Promise<CommandLayer[] | { error: string }> {
  const layers: CommandLayer[] = [];
  for (const id of await ranked(workspace, `${SPECIFY_DIR}/presets`, 'presets', { registeredOnly: true })) {
    const layer = await presetLayer(workspace, id, name, 'template');
    if (layer === undefined) continue;
    if ('error' in layer) return layer;
    layers.push(layer);
    if (layer.strategy === 'replace') break;
  }
  return layers;
}

async function presetLayer(workspace: Workspace, id: string, name: string, type: 'command' | 'template' = 'command'): Promise<CommandLayer | { error: string } | undefined> {
  const dir = `${SPECIFY_DIR}/presets/${id}`;
  const manifestPath = `${dir}/preset.yml`;
  const manifest = await readCapped(workspace, manifestPath);
  if (typeof manifest === 'object') return manifest;
  const entry = manifest === undefined ? undefined : declaredEntry(manifest, name, type);
  if (entry !== undefined && 'error' in entry) return { error: `${manifestPath}: ${entry.error} Fix the preset, or disable it (specify preset disable ${id}).` };
  const conventions = type === 'command' ? [`${dir}/commands/${name}.md`] : [`${dir}/templates/${name}.md`, `${dir}/${name}.md`];
  const paths = entry !== undefined ? (entry.file !== undefined ? [`${dir}/${entry.file}`] : []) : conventions;
  for (const path of paths) {
    const text = await readCapped(workspace, path);
    if (typeof text === 'object') return text;
    if (text === undefined || text.trim() === '') continue;
    return { origin: `preset ${id}`, path, text, strategy: entry?.strategy ?? 'replace' };
  }
  return undefined;
}

/**
 * The manifest's entry for `command`: its file (absent when the entry names
 * none usable, so the preset is skipped) and strategy; undefined when the
 * manifest does not declare it; an error when the manifest cannot be read.
 */
function declaredEntry(manifest: string, command: string, type: 'command' | 'template'): { file?: string; strategy: Strategy } | { error: string } | undefined {
  let document: unknown;
  try {
    document = parse(manifest);
  } catch (err) {
    return { error: `not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)}).` };
  }
  const templates = (document as { provides?: { templates?: unknown } } | null)?.provides?.templates;
  if (templates === undefined || templates === null) return undefined;
  if (!Array.isArray(templates)) return { error: 'provides.templates must be a list.' };
  const entry = (templates as unknown[]).find(
    (item): item is Record<string, unknown> => typeof item === 'object' && item !== null && (item as Record<string, unknown>).type === type && (item as Record<string, unknown>).name === command,
  );
  if (entry === undefined) return undefined;
  const strategy = entry.strategy ?? 'replace';
  if (typeof strategy !== 'string' || !(STRATEGIES as readonly string[]).includes(strategy)) {
    return { error: `${command}'s strategy ${JSON.stringify(strategy)} is not one Spec Kit knows (${STRATEGIES.join(', ')}).` };
  }
  const file = entry.file;
  if (typeof file !== 'string' || file.trim() === '') return { strategy: strategy as Strategy };
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file) || file.split(/[\\/]/).includes('..')) {
    return { error: `${command}'s file "${file.slice(0, 200)}" is outside the preset's folder.` };
  }
  return { file: file.replace(/\\/g, '/').replace(/^\.\//, ''), strategy: strategy as Strategy };
}

async function readCapped(workspace: Workspace, path: string): Promise<string | undefined | { error: string }> {
  const info = await workspace.stat(path).catch(() => undefined);
  if (info?.type !== 'file') return undefined;
  if (info.size > PRESET_FILE_LIMIT) return { error: `${path} is ${info.size} bytes, more than the ${PRESET_FILE_LIMIT} a command file may be. Shorten it, or remove the preset.` };
  return readText(workspace, path);
}

/** The layers composed over Crow's own prompt (`core`), bottom up, as Spec Kit composes them; `bodyOf` gives a layer's text to use. */
export function composeLayers(layers: readonly CommandLayer[], core: string, bodyOf: (layer: CommandLayer) => string = (layer) => commandBody(layer.text)): string {
  let text = core;
  for (const layer of [...layers].reverse()) {
    const body = bodyOf(layer);
    if (layer.strategy === 'replace') text = body;
    else if (layer.strategy === 'prepend') text = `${body}\n\n${text}`;
    else if (layer.strategy === 'append') text = `${text}\n\n${body}`;
    else text = body.includes('{CORE_TEMPLATE}') ? body.split('{CORE_TEMPLATE}').join(text) : `${body}\n\n${text}`;
  }
  return text;
}

/** A command file without its frontmatter. */
export function commandBody(text: string): string {
  return text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n?/, '').trim();
}

/** A command file's frontmatter (`scripts`, `description`, …); empty when it has none or it is not YAML. */
export function commandFrontmatter(text: string): Record<string, unknown> {
  const block = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  if (block === undefined) return {};
  try {
    const parsed: unknown = parse(block);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The preset layers composing with Crow's own prompt for one run of a
 * command (set by preset-override.ts, read where the command renders its
 * model prompt: CommandRun.render).
 */
const composing = new WeakMap<object, { layers: readonly CommandLayer[]; template: string; bodyOf: (layer: CommandLayer) => string }>();

export function composeFor(input: object, template: string, layers: readonly CommandLayer[], bodyOf: (layer: CommandLayer) => string): void {
  composing.set(input, { layers, template, bodyOf });
}

/** `rendered` (our prompt `template`) with the run's composing layers applied, when they compose with that prompt. */
export function composedPrompt(input: object, template: string, rendered: string): string {
  const layers = composing.get(input);
  return layers !== undefined && layers.template === template ? composeLayers(layers.layers, rendered, layers.bodyOf) : rendered;
}
