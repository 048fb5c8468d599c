/**
 * Crow's VS Code settings (`crow.*`) in the engine's terms. Plain data, no
 * `vscode` import: the extension reads the values it finds explicitly set
 * (user, workspace or folder settings) and passes a lookup; everything not
 * set leaves config.toml in charge. API keys are never settings: they live in
 * SecretStorage (see secrets.ts).
 */
import { CONFIG_KEYS, type ConfigKey, NAMED, rowOf } from '../../config/config-keys';
import { formatProblem } from '../../config/config-problems';
import { definedOnly, resolveSettings } from '../../config/provider-config';
import { ConfigError, type Settings } from '../../config/settings';
import { validateDocument, type SettingsDocument } from '../../config/settings-file';
import { AutoApproveCaps } from '../../tools/permissions';
import { type PermissionCategory } from '../../vocabulary/permission-types';

/** A role of a composition, as the settings name them ("reviewer" is the coagent). */
export type SettingsRole = 'primary' | 'coagent';

export interface RoleSetting {
  provider?: string;
  model?: string;
}

/** The `crow.*` settings a user set; absent fields were not set anywhere. */
export interface CrowConfiguration {
  provider?: string;
  model?: string;
  /** Provider name → base URL. */
  baseUrls?: Record<string, string>;
  roles: Partial<Record<SettingsRole, RoleSetting>>;
  defaultAgent?: string;
  maxIterations?: number;
  permissions?: {
    read?: string;
    write?: string;
    execute?: string;
    network?: string;
    allowCommands?: string[];
  };
  autoApprove: Partial<Record<PermissionCategory, number>>;
  /** As config.toml's sandbox: auto, required or off. */
  sandbox?: string;
  otlpEndpoint?: string;
  /** As config.toml's [mcp_servers]: name → { command, args, env, url, headers_env, ... }. */
  mcpServers?: Record<string, unknown>;
  /** As config.toml's [mcp] import: the tools whose MCP configuration files Crow takes servers from. */
  mcpImport?: string[];
  /** As config.toml's [limits]. */
  limits?: { maxCostPerPrompt?: number; maxCostPerSession?: number; maxTokensPerPrompt?: number };
  /** As config.toml's compaction: auto or off. */
  compaction?: string;
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

/** A positive amount (dollars), where 0 means "not set". */
function amount(lookup: SettingLookup, key: string): number | undefined {
  const value = lookup(key);
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A list of texts, where an empty one means "not set". */
function list(lookup: SettingLookup, key: string): string[] | undefined {
  const value = lookup(key);
  return Array.isArray(value) && value.length > 0 ? value.map(String) : undefined;
}

function record(lookup: SettingLookup, key: string): Record<string, unknown> | undefined {
  const value = lookup(key);
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0
    ? (value as Record<string, unknown>)
    : undefined;
}

export function readConfiguration(lookup: SettingLookup): CrowConfiguration {
  const role = (prefix: string): RoleSetting => definedOnly({ provider: text(lookup, `${prefix}.provider`), model: text(lookup, `${prefix}.model`) });
  const allowCommands = lookup('permissions.allowCommands');
  const permissions = definedOnly({
    read: text(lookup, 'permissions.read'),
    write: text(lookup, 'permissions.write'),
    execute: text(lookup, 'permissions.execute'),
    network: text(lookup, 'permissions.network'),
    allowCommands: Array.isArray(allowCommands) ? allowCommands.map(String) : undefined,
  });
  const baseUrls = record(lookup, 'baseUrls');
  const limits = definedOnly({
    maxCostPerPrompt: amount(lookup, 'limits.maxCostPerPrompt'),
    maxCostPerSession: amount(lookup, 'limits.maxCostPerSession'),
    maxTokensPerPrompt: count(lookup, 'limits.maxTokensPerPrompt'),
  });
  return {
    ...definedOnly({
      provider: text(lookup, 'provider'),
      model: text(lookup, 'model'),
      baseUrls: baseUrls && (Object.fromEntries(Object.entries(baseUrls).map(([name, url]) => [name, String(url)])) as Record<string, string>),
      defaultAgent: text(lookup, 'defaultAgent'),
      maxIterations: count(lookup, 'maxIterations'),
      otlpEndpoint: text(lookup, 'telemetry.otlpEndpoint'),
      sandbox: text(lookup, 'sandbox'),
      mcpServers: record(lookup, 'mcpServers'),
      mcpImport: list(lookup, 'mcp.import'),
      permissions: Object.keys(permissions).length > 0 ? permissions : undefined,
      limits: Object.keys(limits).length > 0 ? limits : undefined,
      compaction: text(lookup, 'compaction'),
    }),
    roles: definedOnly({ primary: nonEmpty(role('primary')), coagent: nonEmpty(role('reviewer')) }),
    autoApprove: definedOnly({ write: count(lookup, 'autoApprove.maxWrites'), execute: count(lookup, 'autoApprove.maxCommands') }),
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
  const { permissions } = configuration;
  const data: Record<string, unknown> = definedOnly({
    default_agent: configuration.defaultAgent,
    max_iterations: configuration.maxIterations,
    sandbox: configuration.sandbox,
    telemetry: configuration.otlpEndpoint !== undefined ? { otlp_endpoint: configuration.otlpEndpoint } : undefined,
    mcp_servers: configuration.mcpServers,
    mcp: configuration.mcpImport !== undefined ? { import: configuration.mcpImport } : undefined,
    compaction: configuration.compaction,
    providers: configuration.vscodeModels && { [VSCODE_PROVIDER]: vscodeProvider(configuration.vscodeModels) },
    limits: configuration.limits && {
      ...definedOnly({
        max_cost_per_prompt: configuration.limits.maxCostPerPrompt,
        max_cost_per_session: configuration.limits.maxCostPerSession,
        max_tokens_per_prompt: configuration.limits.maxTokensPerPrompt,
      }),
    },
    permissions:
      permissions &&
      definedOnly({
        read: permissions.read,
        write: permissions.write,
        execute: permissions.execute,
        network: permissions.network,
        allow_commands: permissions.allowCommands,
      }),
  });
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
