/**
 * Crow's VS Code settings (`crow.*`) in the engine's terms. Plain data, no
 * `vscode` import: the extension reads the values it finds explicitly set
 * (user, workspace or folder settings) and passes a lookup; everything not
 * set leaves config.toml in charge. API keys are never settings: they live in
 * SecretStorage (see secrets.ts).
 */
import * as z from 'zod';
import { CONFIG_KEYS, type ConfigKey, type ConfigRow, NAMED, rowOf } from '../../config/config-keys';
import type { VscodeSetting } from '../../config/keys/key-types';
import { formatProblem } from '../../config/config-problems';
import { definedOnly, resolveSettings } from '../../config/provider-config';
import { ConfigError, type Settings } from '../../config/settings';
import { validateDocument, type SettingsDocument } from '../../config/settings-file';
import { valueAtPath, withValueAt } from '../../config/settings-keys';
import { onFirstUse } from '../../vocabulary/first-use';
import { AutoApproveCaps } from '../../tools/permissions';
import { type PermissionCategory } from '../../vocabulary/permission-types';

/** A role of a composition, as the settings name them ("reviewer" is the coagent). */
export type SettingsRole = 'primary' | 'coagent';

export interface RoleSetting {
  provider?: string;
  model?: string;
}

/** The JSON a VS Code setting of each type holds. */
type JsonOf<T> = T extends 'string' ? string : T extends 'number' ? number : T extends 'boolean' ? boolean : T extends 'array' ? string[] : Record<string, unknown>;
/** The table's rows whose VS Code setting is set over the project's config.toml. */
type FileRow = Extract<ConfigRow, { vscode: { name: string } }> extends infer R ? (R extends { file: false } | { vscode: { override: true } } ? never : R) : never;
type NameOf<R> = R extends { vscode: { name: infer N extends string } } ? N : never;
type TopOf<N> = N extends `${infer T}.${string}` ? T : N;
type TypeOf<R> = R extends { vscode: { type: infer T } } ? JsonOf<T> : never;
type ValueAt<T extends string> = [Extract<FileRow, { vscode: { name: T } }>] extends [never]
  ? { [R in Extract<FileRow, { vscode: { name: `${T}.${string}` } }> as NameOf<R> extends `${T}.${infer F}` ? F : never]?: TypeOf<R> }
  : TypeOf<Extract<FileRow, { vscode: { name: T } }>>;

/** The settings that are config.toml keys, named as VS Code names them (`permissions.allowCommands`, `sandbox`), from the table (config-keys.ts). */
export type FileSettings = { [T in TopOf<NameOf<FileRow>>]?: ValueAt<T> };

/** The `crow.*` settings a user set; absent fields were not set anywhere. */
export interface CrowConfiguration extends FileSettings {
  provider?: string;
  model?: string;
  /** Provider name → base URL. */
  baseUrls?: Record<string, string>;
  roles: Partial<Record<SettingsRole, RoleSetting>>;
  autoApprove: Partial<Record<PermissionCategory, number>>;
  /** The chat models VS Code offers Crow's agents (not a setting: what VS Code lists now); they make up provider `vscode`. */
  vscodeModels?: readonly VscodeModelInfo[];
}

/** One of VS Code's chat models, as provider `vscode` lists it (see vscode-models.ts). */
export interface VscodeModelInfo {
  /** `vendor/id`: the model's name in Crow's settings. */
  id: string;
  /** What VS Code calls it, and whose it is (`copilot`, another extension's vendor). */
  name: string;
  vendor: string;
  maxInputTokens: number;
  vision: boolean;
}

/** The provider through which Crow's agents run on VS Code's own models. */
export const VSCODE_PROVIDER = 'vscode';

/**
 * The settings an untrusted folder's workspace settings may still set
 * (VS Code's Restricted Mode): they change how the agent works, like the
 * harmless keys of a project's config.toml (see project-trust.ts), never
 * what it may reach. Every other `crow.*` setting can widen what Crow does
 * and is in package.json's restrictedConfigurations (a test keeps it so).
 */
export const UNRESTRICTED_SETTINGS: readonly string[] = CONFIG_KEYS.flatMap((row: ConfigKey) => (row.vscode && row.trust.kind === 'any' ? [`crow.${row.vscode.name}`] : []));

/** Reads one setting's explicitly set value (`crow.` omitted), undefined when nobody set it. */
export type SettingLookup = (key: string) => unknown;

/** Empty strings and zero counts mean "not set" in the settings UI, as their descriptions say. */
function text(lookup: SettingLookup, key: string): string | undefined {
  const value = lookup(key);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function count(lookup: SettingLookup, key: string): number | undefined {
  const value = lookup(key);
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

function record(lookup: SettingLookup, key: string): Record<string, unknown> | undefined {
  const value = lookup(key);
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The table's rows a VS Code setting sets in config.toml's terms, with the path each sets there (`mcp_servers` for mcp_servers.NAME). */
const FILE_SETTINGS = onFirstUse(() =>
  CONFIG_KEYS.flatMap((row: ConfigKey) => {
    if (!row.vscode || row.file === false || row.vscode.override) return [];
    const path = row.key.split('.').filter((part) => part !== NAMED);
    return [{ setting: row.vscode, name: row.vscode.name.split('.'), path, integer: row.schema !== undefined && (z.toJSONSchema(row.schema(), { unrepresentable: 'any' }) as { type?: string }).type === 'integer' }];
  }),
);

/**
 * A setting's value in config.toml's terms, or undefined when it is not set:
 * a value of the wrong kind, an empty text, a count of 0 (the settings
 * editor's "not set"), an empty list or table unless the row keeps it (an
 * empty allowCommands allows nothing).
 */
function fileValue(value: unknown, setting: VscodeSetting, integer: boolean): unknown {
  if (typeof value === 'string') return setting.type === 'string' && value.trim() !== '' ? value.trim() : undefined;
  if (typeof value === 'number') return setting.type === 'number' && Number.isFinite(value) && value > 0 ? (integer ? Math.floor(value) : value) : undefined;
  if (typeof value === 'boolean') return setting.type === 'boolean' ? value : undefined;
  if (Array.isArray(value)) return setting.type === 'array' && (value.length > 0 || setting.keepEmpty) ? value.map(String) : undefined;
  if (value !== null && typeof value === 'object') return setting.type === 'object' && Object.keys(value).length > 0 ? value : undefined;
  return undefined;
}

export function readConfiguration(lookup: SettingLookup): CrowConfiguration {
  const role = (prefix: string): RoleSetting => definedOnly({ provider: text(lookup, `${prefix}.provider`), model: text(lookup, `${prefix}.model`) });
  const baseUrls = record(lookup, 'baseUrls');
  let settings: Record<string, unknown> = {};
  for (const { setting, name, integer } of FILE_SETTINGS()) {
    const value = fileValue(lookup(setting.name), setting, integer);
    if (value !== undefined) settings = withValueAt(settings, name, value);
  }
  return {
    ...definedOnly({
      provider: text(lookup, 'provider'),
      model: text(lookup, 'model'),
      baseUrls: baseUrls && (Object.fromEntries(Object.entries(baseUrls).map(([name, url]) => [name, String(url)])) as Record<string, string>),
    }),
    roles: definedOnly({ primary: nonEmpty(role('primary')), coagent: nonEmpty(role('reviewer')) }),
    autoApprove: definedOnly({ write: count(lookup, 'autoApprove.maxWrites'), execute: count(lookup, 'autoApprove.maxCommands') }),
    ...(settings as FileSettings),
  };
}

/** The VS Code setting a settings-document field came from (`crow.permissions.allowCommands` for permissions.allow_commands), for error messages. */
function settingName(field: string): string {
  const parts = field.split('.');
  for (let length = parts.length; length > 0; length--) {
    const row = rowOf(parts.slice(0, length));
    // A table's shorthand (sandbox) is set by its shorthand field's setting.
    const setting = row?.vscode ?? (row?.shorthand !== undefined ? rowOf([...parts.slice(0, length), row.shorthand])?.vscode : undefined);
    // A table of named things is one setting: the name stays in the path (crow.mcpServers.db.command).
    const depth = row ? row.key.split('.').length - (row.key.endsWith(`.${NAMED}`) ? 1 : 0) : 0;
    if (setting) return [`crow.${setting.name}`, ...parts.slice(depth)].join('.');
  }
  return field;
}

/**
 * The engine's settings for a workspace: config.toml (user, then project:
 * whole only when `trusted`) under the VS Code settings the user set.
 * Throws a ConfigError naming the setting at fault and what to do.
 */
export function settingsFor(root: string, configuration: CrowConfiguration, env: NodeJS.ProcessEnv, trusted = false): Settings {
  const overrides = definedOnly({ provider: configuration.provider, model: configuration.model });
  const settings = resolveSettings(root, overrides, env, { frontDoor: frontDoorDocument(configuration), trusted });
  for (const [name, url] of Object.entries(configuration.baseUrls ?? {})) {
    const entry = settings.providers[name];
    if (!entry) {
      throw new ConfigError(
        `crow.baseUrls names the provider "${name}", which is not configured. Known providers: ${Object.keys(settings.providers).join(', ')}.`,
      );
    }
    if (!/^https?:\/\//.test(url)) throw new ConfigError(`crow.baseUrls.${name} must be an http(s) URL, not "${url}".`);
    settings.providers[name] = { ...entry, baseUrl: url };
  }
  for (const [role, choice] of Object.entries(configuration.roles)) {
    if (choice.provider !== undefined && !settings.providers[choice.provider]) {
      const setting = role === 'coagent' ? 'crow.reviewer.provider' : 'crow.primary.provider';
      throw new ConfigError(`${setting} names the provider "${choice.provider}", which is not configured. Known providers: ${Object.keys(settings.providers).join(', ')}.`);
    }
  }
  return settings;
}

/** The settings that map onto config.toml fields, as a document validated like the files are. */
export function frontDoorDocument(configuration: CrowConfiguration): SettingsDocument {
  let data: Record<string, unknown> = configuration.vscodeModels ? { providers: { [VSCODE_PROVIDER]: vscodeProvider(configuration.vscodeModels) } } : {};
  for (const { name, path } of FILE_SETTINGS()) {
    const value = valueAtPath(configuration as unknown as Record<string, unknown>, name);
    if (value !== undefined) data = withValueAt(data, path, value);
  }
  const { document, problems } = validateDocument('VS Code settings', data);
  if (problems.length > 0) {
    const lines = problems.map((problem) => formatProblem({ ...problem, ...(problem.field ? { field: settingName(problem.field) } : {}) }));
    throw new ConfigError(`Invalid Crow settings:\n  ${lines.join('\n  ')}`);
  }
  return document;
}

/**
 * Provider `vscode` with the models VS Code offers now, their input
 * windows as context windows (what compaction keeps a prompt under) and
 * whether they read images; the first is its default model.
 */
function vscodeProvider(models: readonly VscodeModelInfo[]): Record<string, unknown> {
  return {
    type: 'vscode',
    ...(models[0] ? { default_model: models[0].id } : {}),
    models: Object.fromEntries(models.map((model) => [model.id, { ...(model.maxInputTokens >= 1 ? { context_window: Math.floor(model.maxInputTokens) } : {}), vision: model.vision, tools: true }])),
  };
}

/** The models and providers the settings choose per role, for assembling a composition. */
export function roleChoices(configuration: CrowConfiguration): {
  models: Partial<Record<SettingsRole, string>>;
  providers: Partial<Record<SettingsRole, string>>;
} {
  const models: Partial<Record<SettingsRole, string>> = {};
  const providers: Partial<Record<SettingsRole, string>> = {};
  for (const [role, choice] of Object.entries(configuration.roles) as [SettingsRole, RoleSetting][]) {
    if (choice.model !== undefined) models[role] = choice.model;
    if (choice.provider !== undefined) providers[role] = choice.provider;
  }
  return { models, providers };
}

/** Caps on automatic approvals per prompt; none when no cap is set. */
export function approvalCaps(configuration: CrowConfiguration): AutoApproveCaps | undefined {
  return Object.keys(configuration.autoApprove).length > 0 ? new AutoApproveCaps(configuration.autoApprove) : undefined;
}

function nonEmpty(choice: RoleSetting): RoleSetting | undefined {
  return Object.keys(choice).length > 0 ? choice : undefined;
}
