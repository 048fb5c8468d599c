/**
 * The configuration table: every setting a person can set, once. Its rows
 * (keys/*-keys.ts) give each key's schema, default, trust class, VS Code
 * setting, environment variable and help; from them come the settings
 * file's schema (settings-file.ts), the trust check (project-trust.ts),
 * `crow config`, VS Code's settings contributions, the JSON Schema of
 * config.toml and the reference in docs/configuration.md (`npm run
 * gen:config` writes those three; test/unit/config/config-keys.test.ts
 * fails when they differ from the table).
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { INTEGRATION_KEYS } from './keys/integration-keys';
import type { ConfigKey } from './keys/key-types';
import { MODEL_KEYS } from './keys/model-keys';
import { SAFETY_KEYS } from './keys/safety-keys';
import { NameSchema } from './keys/value-schemas';

export type { ConfigKey, TrustRule } from './keys/key-types';

/** Every row, in the order the settings editor and the reference show them. */
export const CONFIG_KEYS = [...MODEL_KEYS, ...SAFETY_KEYS, ...INTEGRATION_KEYS] as const;

/** A row with its literal types (its key, its VS Code setting's name and type). */
export type ConfigRow = (typeof CONFIG_KEYS)[number];
type FileRow = Exclude<ConfigRow, { file: false }>;

/** The rows of config.toml (VS Code-only settings left out). */
export const FILE_KEYS: readonly ConfigKey[] = CONFIG_KEYS.filter((row: ConfigKey) => row.file !== false);

/** The placeholder of a table of named things: `providers.NAME`. */
export const NAMED = 'NAME';

/** The row of a dotted key as the table writes it (`permissions.write`, `providers.NAME`), config.toml's rows only. */
export function fileKey(key: string): ConfigKey | undefined {
  return FILE_KEYS.find((row) => row.key === key);
}

/** The row a path into a document falls under: `providers.local.base_url` is under `providers.NAME`. */
export function rowOf(path: readonly string[]): ConfigKey | undefined {
  for (let length = path.length; length > 0; length--) {
    const exact = fileKey(path.slice(0, length).join('.'));
    if (exact) return exact;
    if (length >= 2) {
      const named = fileKey([...path.slice(0, length - 1), NAMED].join('.'));
      if (named && length - 1 === named.key.split('.').length - 1) return named;
    }
  }
  return undefined;
}

/** The rows one level under a table (`permissions` → read, write, …), or the top-level rows for ''. */
export function rowsUnder(table: string): ConfigKey[] {
  const depth = table === '' ? 0 : table.split('.').length;
  return FILE_KEYS.filter((row) => {
    const parts = row.key.split('.');
    const named = parts.at(-1) === NAMED;
    return parts.length - (named ? 1 : 0) === depth + 1 && (table === '' || row.key.startsWith(`${table}.`));
  });
}

/** The name a row has in its table: `write` for permissions.write, `providers` for providers.NAME. */
export function fieldName(row: ConfigKey): string {
  const parts = row.key.split('.');
  return parts.at(-1) === NAMED ? parts.at(-2)! : parts.at(-1)!;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A row's value schema: its own, a record of named entries, or the table its rows make (with its shorthand). */
export function schemaOf(row: ConfigKey): z.ZodType {
  if (row.schema && row.key.endsWith(`.${NAMED}`)) return z.record(NameSchema(), row.schema());
  if (row.schema) return row.schema();
  const fields = rowsUnder(row.key);
  const table = z.strictObject(Object.fromEntries(fields.map((field) => [fieldName(field), schemaOf(field).optional()])));
  const shorthand = fields.find((field) => fieldName(field) === row.shorthand);
  if (!shorthand) return table;
  return z.union([schemaOf(shorthand), table]).transform((value) => (isTable(value) ? value : { [row.shorthand!]: value }));
}

type Out<R> = R extends { schema: () => infer S } ? (S extends z.ZodType ? z.output<S> : never) : never;
type TopName<K> = K extends `${infer T}.${string}` ? T : K;
type FieldOf<K, T extends string> = K extends `${T}.${infer F}` ? F : never;
type TableOf<T extends string> = { [R in Extract<FileRow, { key: `${T}.${string}` }> as FieldOf<R['key'], T>]?: Out<R> };
type ValueOf<T extends string> = [Extract<FileRow, { key: `${T}.${typeof NAMED}` }>] extends [never]
  ? Extract<FileRow, { key: T }> extends { schema: () => z.ZodType }
    ? Out<Extract<FileRow, { key: T }>>
    : TableOf<T>
  : Record<string, Out<Extract<FileRow, { key: `${T}.${typeof NAMED}` }>>>;

/** One config.toml, as its schema gives it. Every field is optional: a file says only what it changes. */
export type SettingsDocument = { [T in TopName<FileRow['key']>]?: ValueOf<T> };

/** The schema of one config.toml: a table of the table's top-level rows. */
export const SettingsFileSchema = onFirstUse(
  () => z.strictObject(Object.fromEntries(rowsUnder('').map((row) => [fieldName(row), schemaOf(row).optional()]))) as unknown as z.ZodType<SettingsDocument>,
);
