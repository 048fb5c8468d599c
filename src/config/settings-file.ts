/**
 * The settings file, `config.toml` (global in ~/.config/crow-agent/, per
 * project in .crow/): reading, merging and editing documents. Its schema, in
 * the file's own spelling (snake_case), is the table's (config-keys.ts). Keys are never stored here, only
 * the names of the environment variables that hold them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import type * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { type DefinitionError, problemsFromZod } from './config-problems';
import { fileKey, schemaOf, SettingsFileSchema, type SettingsDocument } from './config-keys';
import { DEFAULT_PROVIDER } from './keys/defaults';
import { configHome, projectConfigDir } from './paths';

export { ApiKeyEnv, PROVIDER_KINDS, type ProviderDocument, type ProviderKind, SERVER_FLAVORS, type ServerFlavor, speaksMessagesApi } from './provider-schema';

const CONFIG_FILE_NAME = 'config.toml';

export { DEFAULT_PROVIDER, DEFAULT_SANDBOX_PORTS, DEFAULT_SANDBOX_TMP_SIZE_MB, DEFAULT_UNDO_TRACK_TIMEOUT_MS } from './keys/defaults';
export { COMPACTION_MODES, NameSchema, PermissionCategorySchema, SANDBOX_MODES, type SandboxMode } from './keys/value-schemas';
export { SettingsFileSchema, type SettingsDocument } from './config-keys';

/** allow / ask / deny per category, and command prefixes that run without asking: the table's [permissions]. Shared by settings and agent definitions. */
export const PermissionsSchema = onFirstUse(() => schemaOf(fileKey('permissions')!) as z.ZodType<NonNullable<SettingsDocument['permissions']>>);

/** The providers that exist without configuration; a [providers.anthropic] table changes fields of the built-in one. */
export const BUILTIN_DOCUMENT: SettingsDocument = {
  provider: DEFAULT_PROVIDER,
  providers: {
    anthropic: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY', default_model: 'claude-sonnet-4-6' },
    openai: { type: 'openai', api_key_env: 'OPENAI_API_KEY', default_model: 'gpt-5.4' },
  },
};

export function globalConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configHome(env), CONFIG_FILE_NAME);
}

export function projectConfigPath(workspaceRoot: string): string {
  return join(projectConfigDir(workspaceRoot), CONFIG_FILE_NAME);
}

/** A file's document and what is wrong with it; a missing file is an empty document. */
export interface SettingsFileResult {
  document: SettingsDocument;
  problems: DefinitionError[];
}

export function readSettingsFile(path: string): SettingsFileResult {
  const raw = readRawDocument(path);
  if ('problem' in raw) return { document: {}, problems: [raw.problem] };
  return validateDocument(path, raw.data);
}

export function validateDocument(path: string, data: Record<string, unknown>): SettingsFileResult {
  // Every field is optional and none has a default: an empty table (a missing file) is valid as it is, with no schema to build.
  if (Object.keys(data).length === 0) return { document: {}, problems: [] };
  const parsed = SettingsFileSchema().safeParse(data);
  if (parsed.success) return { document: parsed.data, problems: [] };
  return { document: {}, problems: problemsFromZod(path, parsed.error, SettingsFileSchema(), data) };
}

/** The TOML table a file holds, unvalidated; `{}` when the file does not exist. */
export function readRawDocument(path: string): { data: Record<string, unknown> } | { problem: DefinitionError } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { data: {} };
    return { problem: { file: path, message: `cannot read the file: ${(err as Error).message}` } };
  }
  try {
    return { data: tomlDocument(text) };
  } catch (err) {
    return { problem: { file: path, message: `not valid TOML: ${(err as Error).message}` } };
  }
}

/** TOML text as plain data (a leading byte-order mark allowed); throws smol-toml's error, which names the line. */
export function tomlDocument(text: string): Record<string, unknown> {
  return plain(parse(text.replace(/^\uFEFF/, ''))) as Record<string, unknown>;
}

/** A document as the TOML text writeDocument writes. Comments of an old file are not kept. */
export function documentText(data: Record<string, unknown>): string {
  return `${stringify(data)}\n`;
}

/**
 * A document as the text that replaces the file at `path`: documentText,
 * after the file's `#:schema` line when its first line is one (the JSON
 * Schema a TOML editor checks it with; other comments are not kept).
 */
export function replacementText(path: string, data: Record<string, unknown>): string {
  let first = '';
  try {
    first = readFileSync(path, 'utf8').replace(/^\uFEFF/, '').split('\n', 1)[0]!.trimEnd();
  } catch {
    // No file yet: nothing to keep.
  }
  return `${first.startsWith('#:schema ') ? `${first}\n` : ''}${documentText(data)}`;
}

/** Writes a document as TOML, creating the folder (the user's own file: a project's is written confined, by the caller). */
export function writeDocument(path: string, data: Record<string, unknown>): void {
  const text = replacementText(path, data);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Later documents win field by field; tables merge, arrays and values replace. */
export function mergeDocuments(...documents: SettingsDocument[]): SettingsDocument {
  return documents.reduce<Record<string, unknown>>((merged, document) => mergeTables(merged, document), {}) as SettingsDocument;
}

function mergeTables(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isTable(current) && isTable(value) ? mergeTables(current, value) : value;
  }
  return merged;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** smol-toml builds null-prototype objects; plain copies print and compare like any other. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (!isTable(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
}
