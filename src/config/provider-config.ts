import type { WebSearchConfig } from './web-search-config';
import { formatProblem } from './config-problems';
import { fileKey } from './config-keys';
import { configuredHooks } from './hook-config';
import { judgeProjectSettings, projectRoutedServers } from './project-trust';
import { didYouMean } from '../vocabulary/did-you-mean';
import { resolveModelAlias } from './model-aliases';
import { seedProviders } from './seed-providers';
import {
  BUILTIN_DOCUMENT,
  DEFAULT_PROVIDER,
  globalConfigPath,
  mergeDocuments,
  projectConfigPath,
  PROVIDER_KINDS,
  type ProviderDocument,
  readSettingsFile,
  SANDBOX_MODES,
  type SandboxMode,
  type SettingsDocument,
} from './settings-file';
import {
  ConfigError,
  type ConfigOverrides,
  type McpServerSettings,
  type PermissionSettings,
  type ProviderEntry,
  type Settings,
} from './settings';

/** The variables that move a built-in provider to another base URL. */
export const BASE_URL_VARIABLES: Readonly<Record<string, string>> = fileKey('providers.NAME')!.namedEnv!.variables;

/**
 * Resolves the settings. Precedence, highest first: command-line overrides,
 * the environment (CROW_PROVIDER, CROW_MODEL, ANTHROPIC_BASE_URL,
 * OPENAI_BASE_URL), the project's .crow/config.toml, the user's
 * config.toml, built-in defaults. Hooks add up instead: the user's run,
 * then the project's (see configuredHooks). Checks no keys: see `connectProvider`.
 */
export function resolveSettings(
  workspaceRoot: string,
  overrides: ConfigOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
  options: SettingsSources = {},
): Settings {
  const trusted = options.trusted === true;
  const layers = settingsLayers(workspaceRoot, env, options.frontDoor);
  const merged = mergedLayers(layers, trusted);
  const settings = withProjectRoutes(settingsOf(merged, overrides, env, trusted), projectRoutedServers(merged, layers.baseline));
  const { hooks, notices } = configuredHooks({ ...layers, userFile: globalConfigPath(env) }, workspaceRoot, env, trusted);
  return { ...settings, ...(hooks.length > 0 ? { hooks } : {}), ...(notices.length > 0 ? { hookNotices: notices } : {}) };
}

/**
 * The settings a merged document amounts to (see resolveSettings); throws a
 * ConfigError for what only shows once the files are merged, e.g. a provider
 * without a type or an unknown default provider.
 */
export function settingsOf(document: SettingsDocument, overrides: ConfigOverrides, env: NodeJS.ProcessEnv, trusted: boolean): Settings {
  const providers = providerEntries(document, env);
  const provider = overrides.provider ?? env.CROW_PROVIDER ?? document.provider ?? DEFAULT_PROVIDER;
  const entry = providerNamed(providers, provider, 'Unknown provider');
  providers[provider] = {
    ...entry,
    ...definedOnly({
      baseUrl: overrides.baseUrl ?? baseUrlFromEnv(provider, env) ?? document.base_url,
      apiKeyEnv: document.api_key_env,
    }),
  };
  const model = overrides.model ?? env.CROW_MODEL ?? document.model ?? entry.defaultModel;
  if (model === undefined) {
    throw new ConfigError(`Provider "${provider}" has no default model: set model, CROW_MODEL or providers.${provider}.default_model.`);
  }
  return {
    provider,
    model,
    providers,
    ...definedOnly({
      defaultAgent: document.default_agent,
      maxIterations: document.max_iterations,
      doomLoopThreshold: document.doom_loop_threshold,
      maxRetries: document.max_retries,
      idleTimeoutMs: document.idle_timeout_ms,
      maxOutputTokens: document.max_output_tokens,
      thinkingBudget: document.thinking_budget,
      images: document.images,
      permissions: document.permissions && permissionSettings(document.permissions),
      sandbox: sandboxFromEnv(env) ?? document.sandbox?.mode,
      sandboxDomains: document.sandbox?.allow_domains,
      sandboxPorts: document.sandbox?.allow_ports,
      sandboxPrivateAddresses: document.sandbox?.allow_private_addresses,
      sandboxTmpSizeMb: document.sandbox?.tmp_size_mb,
      webSearch: document.web_search && webSearchSettings(document.web_search),
      webFetch: document.web_fetch && definedOnly({ allowPrivateAddresses: document.web_fetch.allow_private_addresses }),
      otlpEndpoint: document.telemetry?.otlp_endpoint,
      mcpServers: document.mcp_servers && mcpServerSettings(document.mcp_servers),
      mcpImport: document.mcp?.import,
      speckit: document.speckit && definedOnly({ implementAgent: document.speckit.implement_agent, createBranch: document.speckit.create_branch }),
      subagents: document.subagents && definedOnly({ concurrency: document.subagents.concurrency }),
      undo: document.undo && definedOnly({ trackTimeoutMs: document.undo.track_timeout_ms }),
      compaction: document.compaction,
      limits:
        document.limits &&
        definedOnly({
          maxCostPerPrompt: document.limits.max_cost_per_prompt,
          maxCostPerSession: document.limits.max_cost_per_session,
          maxTokensPerPrompt: document.limits.max_tokens_per_prompt,
        }),
      concurrency: document.limits?.concurrency,
    }),
    projectTrusted: trusted,
  };
}

/** The settings with each MCP server the project routes marked so. */
function withProjectRoutes(settings: Settings, routed: ReadonlySet<string>): Settings {
  if (!settings.mcpServers || routed.size === 0) return settings;
  const servers = Object.entries(settings.mcpServers).map(([name, server]) => [name, routed.has(name) ? { ...server, projectRouted: true as const } : server]);
  return { ...settings, mcpServers: Object.fromEntries(servers) };
}

function webSearchSettings(document: NonNullable<SettingsDocument['web_search']>): WebSearchConfig {
  if (document.backend === 'searxng') return { backend: 'searxng', url: document.url };
  return {
    backend: 'brave',
    ...(document.api_key_env !== undefined ? { apiKeyEnv: document.api_key_env } : {}),
    ...(document.base_url !== undefined ? { baseUrl: document.base_url } : {}),
  };
}

function mcpServerSettings(servers: NonNullable<SettingsDocument['mcp_servers']>): Record<string, McpServerSettings> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => {
      const { headers_env, startup_timeout_sec, tool_timeout_sec, oauth, ...same } = server;
      return [
        name,
        {
          ...same,
          ...definedOnly({ headersEnv: headers_env, startupTimeoutSec: startup_timeout_sec, toolTimeoutSec: tool_timeout_sec }),
          ...(oauth ? { oauth: definedOnly({ clientId: oauth.client_id, scopes: oauth.scopes, callbackPort: oauth.callback_port }) } : {}),
        },
      ];
    }),
  );
}

/** A provider entry, a model and the key to reach it: everything needed to build the Provider. */
export interface ProviderConnection {
  entry: ProviderEntry;
  model: string;
  apiKey: string | undefined;
}

/**
 * The provider and model an agent runs on. An agent naming a provider but
 * no model gets that provider's default model; naming neither gets the
 * settings' defaults. `model` is undefined when nothing names one.
 */
export function agentModel(settings: Settings, choice: { provider?: string; model?: string }): { provider: string; model?: string } {
  const provider = choice.provider ?? settings.provider;
  const type = settings.providers[provider]?.type;
  const named = choice.model !== undefined ? resolveModelAlias(choice.model, type) : undefined;
  const fallback = provider === settings.provider ? settings.model : settings.providers[provider]?.defaultModel;
  // An alias as the default model too (crow run --model sonnet, CROW_MODEL=haiku); elsewhere than Anthropic it means the provider's default.
  const model = named ?? (fallback !== undefined ? (resolveModelAlias(fallback, type) ?? settings.providers[provider]?.defaultModel) : undefined);
  return { provider, ...(model !== undefined ? { model } : {}) };
}

/** The connection an agent asks for (see `agentModel`), its key included. `agent` is named in every error. */
export function connectProvider(
  settings: Settings,
  choice: { provider?: string; model?: string },
  env: NodeJS.ProcessEnv,
  agent: string,
): ProviderConnection {
  const { provider, model } = agentModel(settings, choice);
  const entry = providerNamed(settings.providers, provider, `Agent "${agent}" names an unknown provider`);
  if (model === undefined) {
    throw new ConfigError(
      `Agent "${agent}" uses provider "${provider}", which has no default_model: set model in the agent or providers.${provider}.default_model.`,
    );
  }
  return { entry, model, apiKey: providerApiKey(entry, env, agent) };
}

/** The environment variable of the default provider's key, when it is required and missing. */
export function missingDefaultKey(settings: Settings, env: NodeJS.ProcessEnv): string[] {
  const entry = settings.providers[settings.provider]!;
  try {
    providerApiKey(entry, env);
    return [];
  } catch {
    return entry.apiKeyEnv === undefined ? [] : [entry.apiKeyEnv];
  }
}

/** The key from the variable the entry names; undefined when the server needs none. Throws naming the variable. */
export function providerApiKey(entry: ProviderEntry, env: NodeJS.ProcessEnv, agent?: string): string | undefined {
  const key = entry.apiKeyEnv !== undefined ? env[entry.apiKeyEnv] || undefined : undefined;
  if (key !== undefined || entry.apiKeyEnv === undefined) return key;
  if (entry.type === 'openai' && entry.baseUrl !== undefined && isCompatibleServer(entry.baseUrl)) return undefined;
  const who = agent !== undefined ? ` (needed by agent "${agent}")` : '';
  const hint = entry.name === 'openai' ? ' (or point OPENAI_BASE_URL at an OpenAI-compatible server such as Ollama)' : '';
  throw new ConfigError(`No API key for provider "${entry.name}"${who}: run crow login --provider ${entry.name}, or set the environment variable ${entry.apiKeyEnv}${hint}.`);
}

/** Where settings come from besides the files. */
export interface SettingsSources {
  /** A front door's own settings (VS Code's), as a document over the project's file. */
  frontDoor?: SettingsDocument;
  /**
   * Whether the project's `.crow/config.toml` is taken whole. Default: no,
   * only what cannot widen permissions, start processes or move requests
   * (see judgeProjectSettings); the caller decides trust (see folder-trust.ts).
   */
  trusted?: boolean;
}

/**
 * The built-in defaults, the user's config.toml, the project's (whole when
 * trusted, else restricted) and a front door's own settings, merged in that
 * order. Hooks are not merged this way (a table's arrays replace): see
 * configuredHooks, which keeps every layer's.
 */
function mergedLayers(layers: ReturnType<typeof settingsLayers>, trusted: boolean): SettingsDocument {
  const project = trusted ? layers.project : judgeProjectSettings(layers.project, layers.baseline, layers.projectFile).restricted;
  return mergeDocuments(BUILTIN_DOCUMENT, layers.user, project, layers.frontDoor);
}

/**
 * The validated documents of each layer, and the trusted ones merged (what
 * a project is judged against); throws naming every problem in the files.
 */
export function settingsLayers(workspaceRoot: string, env: NodeJS.ProcessEnv, frontDoor: SettingsDocument = {}) {
  // Seed 000's providers/*.toml are the user's too, under their config.toml's own [providers] tables.
  const seed = seedProviders(env);
  if (seed.problems.length > 0) throw new ConfigError(`Invalid settings:\n  ${seed.problems.map(formatProblem).join('\n  ')}`);
  const user = mergeDocuments({ providers: seed.providers }, readValid(globalConfigPath(env)));
  const projectFile = projectConfigPath(workspaceRoot);
  const project = readValid(projectFile);
  return { user, project, projectFile, frontDoor, baseline: mergeDocuments(BUILTIN_DOCUMENT, user, frontDoor) };
}

function readValid(path: string): SettingsDocument {
  const { document, problems } = readSettingsFile(path);
  if (problems.length > 0) throw new ConfigError(`Invalid settings:\n  ${problems.map(formatProblem).join('\n  ')}`);
  return document;
}

function providerEntries(document: SettingsDocument, env: NodeJS.ProcessEnv): Record<string, ProviderEntry> {
  const entries: Record<string, ProviderEntry> = {};
  for (const [name, provider] of Object.entries(document.providers ?? {})) {
    entries[name] = providerEntry(name, provider, baseUrlFromEnv(name, env));
  }
  return entries;
}

function providerEntry(name: string, provider: ProviderDocument, envBaseUrl: string | undefined): ProviderEntry {
  if (provider.type === undefined) {
    throw new ConfigError(`Provider "${name}" has no type: set providers.${name}.type to one of ${PROVIDER_KINDS.join(', ')}.`);
  }
  if (provider.flavor !== undefined && provider.type !== 'openai') {
    throw new ConfigError(`Provider "${name}" sets flavor = "${provider.flavor}", which only applies to type = "openai": remove providers.${name}.flavor.`);
  }
  if (provider.region !== undefined && provider.type !== 'bedrock' && provider.type !== 'vertex') {
    throw new ConfigError(`Provider "${name}" sets region = "${provider.region}", which only applies to type = "bedrock" or "vertex": remove providers.${name}.region.`);
  }
  if (provider.project_id !== undefined && provider.type !== 'vertex') {
    throw new ConfigError(`Provider "${name}" sets project_id, which only applies to type = "vertex": remove providers.${name}.project_id.`);
  }
  const models = Object.fromEntries(
    Object.entries(provider.models ?? {}).map(([model, info]) => [
      model,
      definedOnly({
        contextWindow: info.context_window,
        outputCap: info.output_cap,
        tools: info.tools,
        vision: info.vision,
        thinking: info.thinking,
        temperature: info.temperature,
        inputPerMtok: info.input_per_mtok,
        outputPerMtok: info.output_per_mtok,
        cacheReadPerMtok: info.cache_read_per_mtok,
        cacheWritePerMtok: info.cache_write_per_mtok,
      }),
    ]),
  );
  return {
    name,
    type: provider.type,
    models,
    ...definedOnly({
      baseUrl: envBaseUrl ?? provider.base_url,
      apiKeyEnv: provider.api_key_env,
      flavor: provider.flavor,
      region: provider.region,
      projectId: provider.project_id,
      defaultModel: provider.default_model,
    }),
  };
}

function providerNamed(providers: Record<string, ProviderEntry>, name: string, what: string): ProviderEntry {
  const entry = providers[name];
  if (entry) return entry;
  const names = Object.keys(providers);
  const guess = didYouMean(name, names);
  throw new ConfigError(`${what} "${name}". Known providers: ${names.join(', ')}.${guess ? ` Did you mean "${guess}"?` : ''}`);
}

function baseUrlFromEnv(provider: string, env: NodeJS.ProcessEnv): string | undefined {
  const variable = BASE_URL_VARIABLES[provider];
  return (variable !== undefined && env[variable]) || undefined;
}

/** CROW_SANDBOX, when set: it wins over the files, as CROW_PROVIDER does. */
function sandboxFromEnv(env: NodeJS.ProcessEnv): SandboxMode | undefined {
  const value = env.CROW_SANDBOX?.trim();
  if (!value) return undefined;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new ConfigError(`CROW_SANDBOX="${value}" is not a sandbox mode: use ${SANDBOX_MODES.join(', ')}.`);
}

/** Permission settings in code's spelling. */
export function permissionSettings(permissions: NonNullable<SettingsDocument['permissions']>): PermissionSettings {
  const { allow_commands, ...rules } = permissions;
  return { ...rules, ...definedOnly({ allowCommands: allow_commands }) };
}

/** The object without its undefined fields, so optional fields stay absent rather than present-but-undefined. */
export function definedOnly<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** Servers other than OpenAI's own (Ollama, LM Studio, vLLM) often need no key. */
function isCompatibleServer(url: string): boolean {
  try {
    return new URL(url).hostname !== 'api.openai.com';
  } catch {
    return false;
  }
}
