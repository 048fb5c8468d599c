import type { z } from 'zod';
import { didYouMean } from '../vocabulary/did-you-mean';

/** One thing wrong in a configuration file: where, which field (when known), and what to do. */
export interface DefinitionError {
  file: string;
  /** Dotted path of the field, e.g. "providers.local.type"; absent for problems with the file as a whole. */
  field?: string;
  message: string;
}

/** "FILE: field "x": message", one line per problem. */
export function formatProblem(problem: DefinitionError): string {
  return `${problem.file}: ${problem.field !== undefined ? `field "${problem.field}": ` : ''}${problem.message}`;
}

/** Field names a user might try for a secret; a config file never holds one. */
const SECRET_FIELDS = /^(api_?key|key|token|secret|password)$/i;

/**
 * The problems a failed parse reports, with a "did you mean" for unknown
 * fields and misspelt choices. `schema` is the one that failed, so the
 * fields known at each path can be suggested; `data` is what was parsed.
 */
export function problemsFromZod(file: string, error: z.ZodError, schema: z.ZodType, data: unknown): DefinitionError[] {
  return error.issues.flatMap((issue): DefinitionError[] => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(schema, at);
      return issue.keys.map((key) => ({ file, field: joinPath([...at, key]), message: unknownField(key, known) }));
    }
    const field = at.length > 0 ? joinPath(at) : undefined;
    const message = issue.code === 'invalid_value' ? withGuess(issue.message, valueAt(data, at), issue.values) : issue.message;
    return [{ file, ...(field !== undefined ? { field } : {}), message }];
  });
}

function unknownField(key: string, known: readonly string[]): string {
  if (SECRET_FIELDS.test(key)) {
    return 'secrets are never stored in configuration files: put the key in an environment variable and name that variable with api_key_env.';
  }
  const guess = didYouMean(key, known);
  return guess ? `unknown field (did you mean "${guess}"?)` : `unknown field. Known fields: ${known.join(', ')}.`;
}

function withGuess(message: string, input: unknown, values: readonly unknown[]): string {
  if (typeof input !== 'string') return message;
  const guess = didYouMean(input, values.map(String));
  return `${message}, got "${input}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
}

/** "a.b[2].c", quoting keys that are not plain words (model names such as "gpt-4.1"). */
export function joinPath(path: readonly string[]): string {
  return path
    .map((key, i) => {
      if (/^\d+$/.test(key)) return `[${key}]`;
      const name = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
      return i === 0 ? name : `.${name}`;
    })
    .join('');
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The field names an object schema accepts at `path`, looking through optional, default, record and array layers. */
export function fieldsAt(schema: z.ZodType, path: readonly string[]): string[] {
  let target = schemaAt(schema, path);
  if (target && defOf(target).type === 'union') target = defOf(target).options?.map(unwrap).find((option) => defOf(option).type === 'object');
  return target && defOf(target).type === 'object' ? Object.keys(defOf(target).shape ?? {}) : [];
}

/** The schema of the value at `path`, optional and default layers removed; undefined when the path leads nowhere. */
export function schemaAt(schema: z.ZodType, path: readonly string[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    if (!current) return undefined;
    // A shorthand or a table (sandbox = "off" or [sandbox]): fields are the table's.
    if (defOf(current).type === 'union') current = defOf(current).options?.map(unwrap).find((option) => defOf(option).type === 'object');
    if (!current) return undefined;
    const def = defOf(current);
    if (def.type === 'object') current = def.shape?.[key];
    else if (def.type === 'record') current = def.valueType;
    else if (def.type === 'array') current = def.element;
    else return undefined;
    current = current && unwrap(current);
  }
  return current;
}

/** The kind of value a schema takes ("string", "number", "boolean", "enum", "object", ...). */
export function schemaType(schema: z.ZodType): string {
  return defOf(unwrap(schema)).type;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { def: SchemaDef }).def;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    const inner = def.type === 'pipe' ? def.in : def.innerType;
    if (!inner || !['optional', 'default', 'nullable', 'pipe', 'prefault'].includes(def.type)) return current;
    current = inner;
  }
}
