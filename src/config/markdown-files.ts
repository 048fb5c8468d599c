/**
 * Markdown files with YAML frontmatter, found in layers: built-in (shipped
 * in the package), global (~/.config/crow-agent/) and project (.crow/).
 * Agent definitions and slash commands are both read this way.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { compareNames } from '../vocabulary/text';
import type { DefinitionError } from './config-problems';
import { configHome, projectConfigDir } from './paths';

/**
 * The folders of `relative` (e.g. "agents/base") in precedence order, lowest
 * first: built-in, then ~/.config/crow-agent/, then the project's .crow/.
 */
export function layerFolders(relative: string, workspaceRoot: string, env: NodeJS.ProcessEnv, builtinRoot: string): string[] {
  return [join(builtinRoot, relative), join(configHome(env), relative), join(projectConfigDir(workspaceRoot), relative)];
}

/** A file every package ships: it marks the folder holding the built-in `agents/` and `commands/`. */
const PACKAGE_MARKER = join('agents', 'base', 'builder.md');

/** The package folder, found by walking up from this file (the source tree, or the bundle in dist/). */
export function findPackageRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, PACKAGE_MARKER))) return dir;
    if (dirname(dir) === dir) throw new Error(`Cannot find ${PACKAGE_MARKER} above ${__dirname}`);
  }
}

export interface MarkdownFile {
  path: string;
  /** The file name without its extension: the default name of what it defines. */
  stem: string;
  text: string;
  /** A definition in seed 000's TOML form (agents/…/NAME.toml) rather than markdown with frontmatter. */
  toml?: true;
}

/** The .md files of a folder, by name; none when the folder does not exist. */
export function readMarkdownFiles(folder: string): MarkdownFile[] {
  return readFiles(folder, ['.md']);
}

/** The agent definitions of a folder: markdown files and seed 000's .toml files, by name. */
export function readDefinitionFiles(folder: string): MarkdownFile[] {
  return readFiles(folder, ['.md', '.toml']);
}

function readFiles(folder: string, extensions: readonly string[]): MarkdownFile[] {
  const extensionOf = (name: string): string | undefined => extensions.find((extension) => name.endsWith(extension));
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => extensionOf(name) !== undefined);
  } catch {
    return [];
  }
  return names
    .map((name) => {
      const extension = extensionOf(name)!;
      const path = join(folder, name);
      return { path, stem: name.slice(0, -extension.length), text: readFileSync(path, 'utf8'), ...(extension === '.toml' ? { toml: true as const } : {}) };
    })
    .sort((a, b) => compareNames(a.stem, b.stem) || (a.toml ? 1 : 0) - (b.toml ? 1 : 0));
}

export type Frontmatter = { data: Record<string, unknown>; body: string } | { problems: DefinitionError[] };

const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Splits "---\nyaml\n---\nbody"; the frontmatter must be a YAML mapping. */
export function splitFrontmatter(file: string, text: string): Frontmatter {
  const source = text.replace(/^\uFEFF/, '');
  const match = FRONTMATTER.exec(source);
  if (!match) {
    return { problems: [{ file, message: 'must start with a YAML frontmatter block between "---" lines (name, description, ...).' }] };
  }
  const document = parseDocument(match[1]!, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return { problems: document.errors.map((error) => ({ file, message: `invalid YAML frontmatter: ${error.message}` })) };
  }
  const data: unknown = document.toJS();
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { problems: [{ file, message: 'the frontmatter must be a mapping of fields (name: ..., description: ...).' }] };
  }
  return { data: data as Record<string, unknown>, body: source.slice(match[0].length).trim() };
}
