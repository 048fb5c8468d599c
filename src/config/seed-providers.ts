/**
 * Providers in seed 000's files, `~/.config/crow-agent/providers/NAME.toml`
 * ([provider], [auth], [defaults], [models.MODEL]), read as the
 * `[providers.NAME]` tables of config.toml, which win where both name a
 * provider. A key is only ever named by its variable (`api_key = { env =
 * "ANTHROPIC_API_KEY" }`); a key written in the file is refused, as it is
 * in config.toml. Only the user's folder is read: a project's providers
 * would send its requests, with a key, wherever it says.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { didYouMean } from '../vocabulary/did-you-mean';
import { compareNames } from '../vocabulary/text';
import { problemsFromZod, type DefinitionError } from './config-problems';
import { configHome } from './paths';
import { ProviderSchema, type ProviderDocument } from './provider-schema';
import { readRawDocument } from './settings-file';

/** Each table of the seed's file and the keys it takes. */
const TABLES: Record<string, readonly string[]> = {
  provider: ['name', 'type', 'base_url', 'flavor', 'region', 'project_id'],
  auth: ['api_key'],
  defaults: ['model', 'max_tokens'],
  models: [],
};

/** The seed's model keys, as config.toml's model table spells them. */
const MODEL_KEYS: Record<string, string> = {
  context_window: 'context_window',
  max_tokens: 'output_cap',
  supports_tools: 'tools',
  supports_vision: 'vision',
  supports_extended_thinking: 'thinking',
};

export interface SeedProviders {
  providers: Record<string, ProviderDocument>;
  problems: DefinitionError[];
}

/** The providers of the user's `providers/*.toml`, by name; none when the folder does not exist. */
export function seedProviders(env: NodeJS.ProcessEnv): SeedProviders {
  const folder = join(configHome(env), 'providers');
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.toml')).sort(compareNames);
  } catch {
    return { providers: {}, problems: [] };
  }
  const result: SeedProviders = { providers: {}, problems: [] };
  for (const name of names) {
    const file = join(folder, name);
    const read = providerFile(file, name.slice(0, -'.toml'.length));
    if ('problems' in read) {
      result.problems.push(...read.problems);
      continue;
    }
    if (result.providers[read.name] !== undefined) {
      result.problems.push({ file, field: 'provider.name', message: `provider "${read.name}" is already defined by another file in ${folder}.` });
      continue;
    }
    result.providers[read.name] = read.provider;
  }
  return result;
}

function providerFile(file: string, stem: string): { name: string; provider: ProviderDocument } | { problems: DefinitionError[] } {
  const read = readRawDocument(file);
  if ('problem' in read) return { problems: [read.problem] };
  const document = read.data;
  const problems = unknownKeys(file, document);
  if (problems.length > 0) return { problems };
  const table = (name: string): Record<string, unknown> => (document[name] as Record<string, unknown> | undefined) ?? {};
  const { name = stem, ...provider } = table('provider');
  const translated: Record<string, unknown> = { ...provider };
  const key = table('auth').api_key;
  if (key !== undefined) {
    const variable = typeof key === 'object' && key !== null && !Array.isArray(key) ? (key as Record<string, unknown>).env : undefined;
    if (typeof variable !== 'string') {
      return { problems: [{ file, field: 'auth.api_key', message: 'a key is never written in a file: put it in an environment variable and name it, api_key = { env = "MY_API_KEY" }.' }] };
    }
    translated.api_key_env = variable;
  }
  const defaults = table('defaults');
  if (defaults.model !== undefined) translated.default_model = defaults.model;
  const models = modelsOf(table('models'), defaults);
  if (Object.keys(models).length > 0) translated.models = models;
  const parsed = ProviderSchema().safeParse(translated);
  if (!parsed.success) return { problems: problemsFromZod(file, parsed.error, ProviderSchema(), translated) };
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return { problems: [{ file, field: 'provider.name', message: 'use letters, digits, ".", "_" and "-".' }] };
  return { name, provider: parsed.data };
}

/** [models.NAME] in config.toml's spelling; [defaults] max_tokens caps each listed model (and the default one) that sets no cap of its own. */
function modelsOf(models: Record<string, unknown>, defaults: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [model, entry] of Object.entries(models)) {
    out[model] = Object.fromEntries(Object.entries((entry ?? {}) as Record<string, unknown>).map(([key, value]) => [MODEL_KEYS[key] ?? key, value]));
  }
  if (defaults.max_tokens !== undefined) {
    const named = typeof defaults.model === 'string' ? [defaults.model] : [];
    for (const model of new Set([...Object.keys(out), ...named])) out[model] = { output_cap: defaults.max_tokens, ...out[model] };
  }
  return out;
}

function unknownKeys(file: string, document: Record<string, unknown>): DefinitionError[] {
  return Object.entries(document).flatMap(([name, table]): DefinitionError[] => {
    const keys = TABLES[name];
    if (keys === undefined) {
      const guess = didYouMean(name, Object.keys(TABLES));
      return [{ file, field: name, message: `unknown table [${name}]${guess ? ` (did you mean [${guess}]?)` : ''}. A provider file has ${Object.keys(TABLES).map((t) => `[${t}]`).join(', ')}.` }];
    }
    if (typeof table !== 'object' || table === null || Array.isArray(table)) return [{ file, field: name, message: `[${name}] must be a table.` }];
    if (name === 'models') return [];
    return Object.keys(table).flatMap((key) => {
      if (keys.includes(key)) return [];
      const guess = didYouMean(key, keys);
      return [{ file, field: `${name}.${key}`, message: `unknown key${guess ? ` (did you mean "${guess}"?)` : ''}. [${name}] takes ${keys.join(', ')}.` }];
    });
  });
}
