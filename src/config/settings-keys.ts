/**
 * Dotted keys into a settings document, as `crow config get/set` takes them:
 * `max_iterations`, `permissions.write`, `providers.local.base_url`, and
 * quoted parts for names with dots: `providers.openai.models."gpt-4.1".vision`.
 */
import { parse } from 'smol-toml';
import { schemaAt, schemaType } from './config-problems';
import { ConfigError } from './settings';
import { SettingsFileSchema } from './settings-file';

export function parseKeyPath(key: string): string[] {
  const text = key.trim();
  const part = /(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_-]+))(\.?)/y;
  const parts: string[] = [];
  for (;;) {
    const match = part.exec(text);
    if (!match) throw notAKey(key);
    parts.push(match[1] !== undefined ? (JSON.parse(`"${match[1]}"`) as string) : match[2]!);
    if (match[3] === '') break;
  }
  if (part.lastIndex !== text.length) throw notAKey(key);
  return parts;
}

function notAKey(key: string): ConfigError {
  return new ConfigError(`"${key}" is not a settings key: use names joined by dots, e.g. permissions.write or providers.local.base_url.`);
}

export function valueAtPath(document: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = document;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A copy of the document with the value at `path` set, creating tables on the way. */
export function withValueAt(document: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined) throw new ConfigError('An empty settings key.');
  if (rest.length === 0) return { ...document, [key]: value };
  const inner = document[key];
  const table = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ...document, [key]: withValueAt(table, rest, value) };
}

/**
 * The value a command-line word stands for at `path`: text for fields that
 * hold text, otherwise a TOML value (30, true, ["npm test"]), else the text.
 */
export function parseValue(path: readonly string[], text: string): unknown {
  const field = schemaAt(SettingsFileSchema(), path);
  if (field && ['string', 'enum'].includes(schemaType(field))) return text;
  try {
    return parse(`value = ${text}`).value;
  } catch {
    return text;
  }
}
