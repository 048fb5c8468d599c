/**
 * Where a setting's value comes from, for `crow config get`: the value in
 * force and the layer that set it, highest first: the environment (CROW_*,
 * a provider's *_BASE_URL), the project's file (when the folder is trusted,
 * or for what an untrusted folder may set), the user's file, the built-in
 * defaults. A flag such as `crow run --model` wins over all of them, for one run.
 */
import { fieldName, rowOf, rowsUnder } from '../../config/config-keys';
import { joinPath } from '../../config/config-problems';
import { judgeProjectSettings } from '../../config/project-trust';
import { settingsLayers } from '../../config/provider-config';
import { BUILTIN_DOCUMENT, globalConfigPath, mergeDocuments, type SettingsDocument } from '../../config/settings-file';
import { valueAtPath } from '../../config/settings-keys';

export interface SettingSource {
  /** The value in force; undefined when nothing sets it and it has no default. */
  value: unknown;
  /** e.g. "default", "user file /home/me/.config/crow-agent/config.toml", "environment (CROW_MODEL)". */
  source: string;
}

/** A key's default as the table gives it (its words when it depends on something), or the table's default of each field of a table. */
function tableDefault(path: readonly string[]): unknown {
  const row = rowOf(path);
  if (!row || path.length !== row.key.split('.').length) return undefined;
  if (row.default !== undefined) return row.defaultText ?? row.default;
  if (row.schema) return undefined;
  const fields = rowsUnder(row.key).filter((field) => field.default !== undefined);
  return fields.length > 0 ? Object.fromEntries(fields.map((field) => [fieldName(field), field.default])) : undefined;
}

export function settingSource(root: string, env: NodeJS.ProcessEnv, path: readonly string[], trusted: boolean): SettingSource {
  const key = joinPath([...path]);
  const layers = settingsLayers(root, env);
  const project = trusted ? layers.project : judgeProjectSettings(layers.project, layers.baseline, layers.projectFile).restricted;
  const fromEnv = environmentValue(key, path, env);
  if (fromEnv) return fromEnv;
  const found = (value: unknown, source: string): SettingSource => ({ value, source });
  if (key === 'hooks' || key === 'claude_hooks') return addedUp(key, layers.user, project, globalConfigPath(env), layers.projectFile);
  const projectValue = valueAtPath(project, [...path]);
  if (projectValue !== undefined) return found(projectValue, `project file ${layers.projectFile}`);
  const userValue = valueAtPath(layers.user, [...path]);
  if (userValue !== undefined) return found(userValue, `user file ${globalConfigPath(env)}`);
  const builtin = valueAtPath(BUILTIN_DOCUMENT, [...path]);
  if (builtin !== undefined) return found(builtin, 'default');
  if (key === 'model') {
    const merged = mergeDocuments(BUILTIN_DOCUMENT, layers.user, project);
    const provider = env.CROW_PROVIDER ?? merged.provider ?? '';
    const model = merged.providers?.[provider]?.default_model;
    if (model !== undefined) return found(model, `default (providers.${provider}.default_model)`);
  }
  const byDefault = tableDefault(path);
  return byDefault !== undefined ? found(byDefault, 'default') : found(undefined, 'not set');
}

/** Hooks (and the Claude Code files they are read from) add up over the files, the user's first, instead of one file winning. */
function addedUp(key: 'hooks' | 'claude_hooks', user: SettingsDocument, project: SettingsDocument, userFile: string, projectFile: string): SettingSource {
  const mine: unknown[] = user[key] ?? [];
  const theirs: unknown[] = project[key] ?? [];
  const sources = [...(mine.length > 0 ? [`user file ${userFile}`] : []), ...(theirs.length > 0 ? [`project file ${projectFile}`] : [])];
  return sources.length === 0 ? { value: undefined, source: 'not set' } : { value: [...mine, ...theirs], source: sources.join(', then ') };
}

/** The variable the table names for a key (CROW_MODEL for model, ANTHROPIC_BASE_URL for providers.anthropic.base_url), when it is set. */
function environmentValue(key: string, path: readonly string[], env: NodeJS.ProcessEnv): SettingSource | undefined {
  const row = rowOf(path);
  const named = row?.namedEnv && path.length === 3 && path[2] === row.namedEnv.field ? row.namedEnv.variables[path[1]!] : undefined;
  // A table's shorthand key (sandbox) is its shorthand field's (sandbox.mode).
  const shorthand = row?.shorthand !== undefined && key === row.key ? rowOf([...path, row.shorthand]) : undefined;
  const variable = named ?? (row?.key === key ? (row.env ?? shorthand?.env) : undefined);
  const value = variable !== undefined ? env[variable]?.trim() : undefined;
  return value ? { value, source: `environment (${variable})` } : undefined;
}
