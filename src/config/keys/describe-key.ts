/**
 * A row of the configuration table in words: the kind of value it takes,
 * its default and what an untrusted project may do with it. `crow config
 * explain` and the reference in docs/configuration.md say the same.
 */
import * as z from 'zod';
import type { ConfigKey, TrustRule } from './key-types';

type JsonSchema = { type?: string; enum?: unknown[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; items?: JsonSchema; format?: string; minimum?: number; exclusiveMinimum?: number; maximum?: number; additionalProperties?: unknown; const?: unknown };

/** The kind of value a schema takes: `allow | ask | deny`, `integer ≥ 1`, `list of text`, `table`. */
export function valueText(schema: z.ZodType): string {
  return kindOf(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as JsonSchema);
}

function kindOf(json: JsonSchema): string {
  if (json.enum) return json.enum.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(' | ');
  const options = json.anyOf ?? json.oneOf;
  if (options) return options.map(kindOf).join(', or ');
  switch (json.type) {
    case 'string':
      return json.format === 'uri' ? 'URL' : 'text';
    case 'integer':
    case 'number': {
      const bounds = [json.minimum !== undefined ? `≥ ${json.minimum}` : json.exclusiveMinimum !== undefined ? `> ${json.exclusiveMinimum}` : '', json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${json.maximum}` : ''].filter(Boolean);
      return [json.type, ...bounds].join(' ');
    }
    case 'boolean':
      return 'true | false';
    case 'array':
      return `list of ${json.items ? kindOf(json.items) : 'values'}`;
    case 'object':
      return 'table';
    default:
      return 'value';
  }
}

/** The default as the reference shows it; '' when there is none. */
export function defaultText(row: ConfigKey): string {
  if (row.defaultText !== undefined) return row.defaultText;
  if (row.default === undefined) return '';
  return typeof row.default === 'string' ? row.default : JSON.stringify(row.default);
}

/** What a project's `.crow/config.toml` may do with the key before the folder is trusted. */
export function trustText(rule: TrustRule): string {
  switch (rule.kind) {
    case 'any':
      return 'any value';
    case 'fields':
      return 'each key by its own rule';
    case 'same':
      return 'only the value you have';
    case 'narrow':
      if ('order' in rule) return `only narrower: ${rule.order.map(String).join(' → ')}`;
      return rule.direction === 'lower' ? 'only lower than yours' : 'only higher than yours';
    case 'subset':
      return 'only entries your list has';
    case 'entries':
      return rule.judge === 'providers'
        ? 'fields of a provider you have, never its type, base_url, api_key_env, region or project_id'
        : 'switch off a server you have; nothing that changes what it runs or reaches';
    case 'never':
      return 'nothing until the folder is trusted';
  }
}
