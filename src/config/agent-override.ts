/**
 * Changing one field of an agent definition the way `crow config set
 * agents.…` does: in the user's own copy of it (or the project's, with
 * --project), made from the definition in force when there is none yet,
 * body and comments kept. Nothing here writes: the caller checks the new
 * text first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseDocument } from 'yaml';
import type { z } from 'zod';
import type { AgentDefinition } from './agent-definitions';
import type { AgentKind } from './agent-keys';
import { schemaAt, schemaType } from './config-problems';
import { configHome, projectConfigDir } from './paths';
import { ConfigError } from './settings';

export type OverrideLayer = 'user' | 'project';

export interface OverrideTarget {
  /** The file to write. */
  file: string;
  /** Its text now: its own, or the copied definition's when it does not exist yet. */
  text: string;
  /** Set when the file is new: the definition it copies. */
  copiedFrom?: string;
}

/** The folder of a layer's definitions of a kind: ~/.config/crow-agent/agents/base, .crow/agents/acp, … */
export function definitionFolder(layer: OverrideLayer, kind: AgentKind, root: string, env: NodeJS.ProcessEnv): string {
  return join(layer === 'user' ? configHome(env) : projectConfigDir(root), 'agents', kind);
}

/** Where `definition` (the one in force) is changed in `layer`: its own file when it is that layer's, else a copy named after it. */
export function overrideTarget(definition: AgentDefinition, layer: OverrideLayer, root: string, env: NodeJS.ProcessEnv): OverrideTarget {
  if (definition.origin === layer) return { file: definition.file, text: readFileSync(definition.file, 'utf8') };
  const file = join(definitionFolder(layer, definition.kind, root, env), `${definition.name}.md`);
  if (existsSync(file)) return { file, text: readFileSync(file, 'utf8') };
  return { file, text: readFileSync(definition.file, 'utf8'), copiedFrom: definition.file };
}

const FRONTMATTER = /^(\uFEFF?---[ \t]*\r?\n)([\s\S]*?\r?\n)?(---[ \t]*(?:\r?\n|$))/;

/** The text with one frontmatter field set (comments and the body kept). */
export function withFrontmatterField(file: string, text: string, field: string, value: unknown): string {
  const match = FRONTMATTER.exec(text);
  if (!match) throw new ConfigError(`${file} has no YAML frontmatter between "---" lines to change: fix the file first (crow agents validate).`);
  const document = parseDocument(match[2] ?? '');
  if (document.errors.length > 0) throw new ConfigError(`${file}: invalid YAML frontmatter: ${document.errors[0]!.message}`);
  document.set(field, value);
  return `${match[1]}${document.toString({ lineWidth: 0 })}${match[3]}${text.slice(match[0].length)}`;
}

/** The field's value as the file's frontmatter writes it; undefined when the file does not set it. */
export function frontmatterValue(text: string, field: string): unknown {
  const match = FRONTMATTER.exec(text);
  if (!match) return undefined;
  const data: unknown = parse(match[2] ?? '');
  return data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[field] : undefined;
}

/** What a command-line word stands for in `field`: text for text fields, else YAML (20, true, [read_file, grep]). */
export function fieldValue(schema: z.ZodType, field: string, text: string): unknown {
  const target = schemaAt(schema, [field]);
  if (target && ['string', 'enum'].includes(schemaType(target))) return text;
  try {
    return parse(text) as unknown;
  } catch {
    return text;
  }
}
