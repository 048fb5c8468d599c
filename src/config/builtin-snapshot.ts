/**
 * The built-in agent and slash command definitions parsed at build time:
 * `npm run build` writes dist/builtin-definitions.json beside the bundles,
 * with each built-in file's definition and a hash of the text it was
 * parsed from. A bundle reading a built-in file whose text has that hash
 * takes the stored definition instead of parsing YAML front matter,
 * checking the schema and compiling the template again (tens of ms at every
 * start of `crow run`). Any other text (an edited file, another package
 * root) is parsed as ever; so is everything when the snapshot is missing or
 * unreadable, and when running from the sources (no snapshot beside them).
 * A file with problems is not stored: its problems are found at run time.
 *
 * The built-in prompt templates (prompts/*.hbs) are stored the same way,
 * precompiled by handlebars: the bundle turns a stored spec into the
 * template instead of parsing and compiling the text (about 7 ms for the
 * system prompt at every start).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MarkdownFile } from './markdown-files';

/** The snapshot's file name, beside the bundle that reads it. */
export const BUILTIN_SNAPSHOT = 'builtin-definitions.json';

/** A definition, naming the file it came from. */
interface Located {
  file: string;
}

/**
 * By path relative to the package root ('/'-separated): the hash of the
 * text and its definition (file name left out), or for a prompt template,
 * its precompiled spec (JavaScript source of an object literal).
 */
export type BuiltinSnapshot = Record<string, { sha256: string; definition?: Located; template?: string; inputSchema?: Record<string, unknown> }>;

/** The snapshot entry for `file` under `root`, defined as `definition` (undefined: it has problems, and is not stored). */
export function snapshotEntry(root: string, file: MarkdownFile, definition: Located | undefined): [string, BuiltinSnapshot[string]] | undefined {
  if (!definition || definition.file !== file.path) return undefined;
  return [key(root, file.path), { sha256: hash(file.text), definition: { ...definition, file: '' } }];
}

/**
 * The definitions the snapshot in `folder` (the bundle's folder) holds for
 * the files of `root`: the stored definition of a file whose text is the
 * one parsed at build time, else undefined (parse it). Reads the snapshot once.
 */
export function builtinDefinitions(root: string, folder: string): <T extends Located>(file: MarkdownFile) => T | undefined {
  const snapshot = snapshotIn(folder);
  return <T extends Located>(file: MarkdownFile): T | undefined => {
    const entry = snapshot?.[key(root, file.path)];
    if (!entry?.definition || entry.sha256 !== hash(file.text)) return undefined;
    return { ...structuredClone(entry.definition), file: file.path } as T;
  };
}

/** The snapshot entry for a built-in prompt template at `path` under `root`, precompiled as `spec`. */
export function templateEntry(root: string, path: string, text: string, spec: string): [string, BuiltinSnapshot[string]] {
  return [key(root, path), { sha256: hash(text), template: spec }];
}

/** Snapshots read, by file: a process reads and parses each once (agents, commands, prompts and tools all look in it). */
const snapshots = new Map<string, BuiltinSnapshot | undefined>();

function snapshotIn(folder: string): BuiltinSnapshot | undefined {
  const file = join(folder, BUILTIN_SNAPSHOT);
  if (!snapshots.has(file)) snapshots.set(file, readSnapshot(file));
  return snapshots.get(file);
}

/** The precompiled spec the snapshot in `folder` holds for the template at `path` under `root`, when `text` is the text it was compiled from. */
export function builtinTemplate(root: string, folder: string, path: string, text: string): string | undefined {
  const entry = snapshotIn(folder)?.[key(root, path)];
  return typeof entry?.template === 'string' && entry.sha256 === hash(text) ? entry.template : undefined;
}

/**
 * The snapshot entry for the JSON Schema of the built-in tool `name`, derived at build time from its zod
 * parameters (deriving it at run time builds every schema of the tools a run offers, about 5 ms of a start).
 * Checked against a hash of the tool's description, so another tool of that name is derived as ever.
 */
export function toolSchemaEntry(name: string, description: string, inputSchema: Record<string, unknown>): [string, BuiltinSnapshot[string]] {
  return [toolKey(name), { sha256: hash(description), inputSchema }];
}

/** The JSON Schema the snapshot in `folder` holds for the tool `name` described as `description`, else undefined (derive it). */
export function builtinToolSchema(folder: string, name: string, description: string): Record<string, unknown> | undefined {
  const entry = snapshotIn(folder)?.[toolKey(name)];
  return entry?.inputSchema && entry.sha256 === hash(description) ? structuredClone(entry.inputSchema) : undefined;
}

/** Tools are stored by name, under a prefix no file of the package root has. */
function toolKey(name: string): string {
  return `tool:${name}`;
}

function readSnapshot(file: string): BuiltinSnapshot | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as BuiltinSnapshot) : undefined;
  } catch {
    return undefined;
  }
}

function key(root: string, path: string): string {
  return relative(root, path).split('\\').join('/');
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
