/**
 * The built-in agent definitions parsed at build time: `npm run build`
 * writes dist/builtin-agents.json beside the bundles, with each built-in
 * file's parse result and a hash of the text it was parsed from. A bundle
 * reading a built-in file whose text has that hash takes the stored result
 * instead of parsing YAML front matter, checking the schema and compiling
 * the prompt template again (tens of ms at every start of `crow run`).
 * Any other text (an edited file, another package root) is parsed as ever;
 * so is everything when the file is missing or unreadable, and when running
 * from the sources (no snapshot beside them).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AgentDefinition, Parsed } from './agent-definitions';
import type { MarkdownFile } from './markdown-files';

/** The snapshot's file name, beside the bundle that reads it. */
export const BUILTIN_SNAPSHOT = 'builtin-agents.json';

/** By path relative to the package root ('/'-separated): the hash of the text and what parsing it gave. */
export type BuiltinSnapshot = Record<string, { sha256: string; parsed: Parsed<AgentDefinition> }>;

/** The snapshot entry for `file` under `root` parsed as `parsed`; none for a file with problems (those are parsed at run time, to name the file). */
export function snapshotEntry(root: string, file: MarkdownFile, parsed: Parsed<AgentDefinition>): [string, BuiltinSnapshot[string]] | undefined {
  if (!parsed.definition || parsed.definition.file !== file.path) return undefined;
  return [key(root, file.path), { sha256: hash(file.text), parsed: { ...parsed, definition: { ...parsed.definition, file: '' } } }];
}

/**
 * `parse`, answered from the snapshot in `folder` (the bundle's folder) for
 * the files of `root` it holds unchanged. Reads the snapshot once per call.
 */
export function withBuiltinSnapshot<T extends AgentDefinition>(root: string, folder: string, parse: (file: MarkdownFile) => Parsed<T>): (file: MarkdownFile) => Parsed<T> {
  const snapshot = readSnapshot(join(folder, BUILTIN_SNAPSHOT));
  if (!snapshot) return parse;
  return (file) => {
    const entry = snapshot[key(root, file.path)];
    if (!entry?.parsed.definition || entry.sha256 !== hash(file.text)) return parse(file);
    return { problems: [], definition: { ...structuredClone(entry.parsed.definition), file: file.path } } as Parsed<T>;
  };
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
