/**
 * The settings in code's spelling: what every part of Crow reads once files,
 * environment and overrides are resolved (see provider-config.ts), and the
 * error a bad setting raises.
 */
import type { PermissionCategory } from '../vocabulary/permission-types';
import type { HookSettings } from './hook-settings';
import type { McpImportSource } from './mcp-import-formats';
import type { ProviderKind, SandboxMode, ServerFlavor } from './settings-file';
import type { WebSearchConfig } from './web-search-config';

/** What a model can do and what it costs, from [providers.NAME.models.MODEL]. Prices in US dollars per million tokens. */
export interface ModelInfo {
  contextWindow?: number;
  /** The most output tokens the model produces in one answer, thinking included. */
  outputCap?: number;
  tools?: boolean;
  vision?: boolean;
  thinking?: boolean;
  /** Whether the model takes a sampling temperature (false for reasoning models that refuse one). */
  temperature?: boolean;
  inputPerMtok?: number;
  outputPerMtok?: number;
  cacheReadPerMtok?: number;
  cacheWritePerMtok?: number;
}

/** A provider by name: the built-in `anthropic` and `openai`, or a [providers.NAME] table. */
export interface ProviderEntry {
  name: string;
  type: ProviderKind;
  /** Undefined: the vendor's own API. */
  baseUrl?: string;
  /** The environment variable holding the key; undefined for servers that need none. */
  apiKeyEnv?: string;
  /** For an OpenAI-compatible provider, the server it is; undefined: told from the base URL. */
  flavor?: ServerFlavor;
  /** For Bedrock and Vertex AI: the cloud region; undefined: the SDK's variable (AWS_REGION, CLOUD_ML_REGION). */
  region?: string;
  /** For Vertex AI: the Google Cloud project; undefined: ANTHROPIC_VERTEX_PROJECT_ID or the credentials' project. */
  projectId?: string;
  defaultModel?: string;
  models: Record<string, ModelInfo>;
}

export interface PermissionSettings {
  read?: 'allow' | 'ask' | 'deny';
  write?: 'allow' | 'ask' | 'deny';
  execute?: 'allow' | 'ask' | 'deny';
  network?: 'allow' | 'ask' | 'deny';
  allowCommands?: string[];
}

/** [mcp_servers.NAME] oauth: a client registered beforehand with the server's authorization server. */
export interface McpOAuthSettings {
  clientId?: string;
  scopes?: string[];
  /** The loopback redirect's port, when the registration names one. */
  callbackPort?: number;
}

/**
 * An MCP server from [mcp_servers.NAME], as written: variables by name. Which
 * of command and url is set decides the transport (stdio or streamable HTTP).
 */
export interface McpServerSettings {
  command?: string;
  args?: string[];
  /** Names of our environment variables the command also gets. */
  env?: string[];
  url?: string;
  /** HTTP header name → the environment variable holding its value. */
  headersEnv?: Record<string, string>;
  enabled?: boolean;
  /** What the policy must allow before one of its tools runs; default execute. */
  permission?: PermissionCategory;
  startupTimeoutSec?: number;
  toolTimeoutSec?: number;
  /** How to sign in when the server asks (OAuth); absent: Crow registers itself with the authorization server. */
  oauth?: McpOAuthSettings;
  /** Not a setting: the project's config.toml chose what it runs or reaches (see projectRoutedServers). */
  projectRouted?: true;
}

/** The settings in code's spelling, after files, environment and command-line overrides. */
export interface Settings {
  /** The default provider's name, used by agents that name none. */
  provider: string;
  /** The default model, used by agents that name neither provider nor model. */
  model: string;
  /** Every provider by name, the built-in ones included. */
  providers: Record<string, ProviderEntry>;
  defaultAgent?: string;
  maxIterations?: number;
  doomLoopThreshold?: number;
  maxRetries?: number;
  idleTimeoutMs?: number;
  maxOutputTokens?: number;
  thinkingBudget?: number;
  images?: boolean;
  permissions?: PermissionSettings;
  /** Whether commands run in the sandbox; absent means auto. */
  sandbox?: SandboxMode;
  /** Domains commands in the sandbox may reach through Crow's filtering proxy while the network is otherwise off. */
  sandboxDomains?: string[];
  /** The ports the proxy reaches; absent means DEFAULT_SANDBOX_PORTS. */
  sandboxPorts?: number[];
  /** Whether an allowed name may lead the proxy to a loopback, private or link-local address; absent means no. */
  sandboxPrivateAddresses?: boolean;
  /** The size of the sandbox's private /tmp, in megabytes; absent means DEFAULT_SANDBOX_TMP_SIZE_MB. */
  sandboxTmpSizeMb?: number;
  /** The web_search backend, in the tool's own terms. */
  webSearch?: WebSearchConfig;
  /** web_fetch's reach: private addresses only when allowed here. */
  webFetch?: { allowPrivateAddresses?: boolean };
  /** Where to export spans over OTLP/HTTP, when configured. */
  otlpEndpoint?: string;
  /** MCP servers by name, for every session. */
  mcpServers?: Record<string, McpServerSettings>;
  /** The tools whose MCP configuration files sessions take servers from ([mcp] import; see mcp-import.ts). */
  mcpImport?: McpImportSource[];
  /**
   * Whether the project's own configuration was taken whole. When false,
   * what it asks beyond the user's settings (see project-trust.ts) was left
   * out, and its agent definitions may only narrow permissions.
   */
  projectTrusted?: boolean;
  /** Settings of the /speckit.* commands. */
  speckit?: SpeckitSettings;
  /** Subagents of one provider running at once (the task tool, /speckit.implement's workers); absent: a default per provider. */
  subagents?: { concurrency?: number };
  /** How long a command waits for the undo snapshot before it runs without undo. */
  undo?: { trackTimeoutMs?: number };
  /** Whether history is compacted automatically as it nears the context window; absent means auto. */
  compaction?: CompactionMode;
  /** What a prompt, and a session, may spend before the run stops. */
  limits?: Limits;
  /** `[limits] concurrency`: subagents running at once, by provider name or kind (local, anthropic, openai); see providerConcurrency. */
  concurrency?: Record<string, number>;
  /** The hooks in force, in the order they run (the project's only when trusted). */
  hooks?: HookSettings[];
  /** What to tell the user once about hooks brought from Claude Code's settings.json: what was skipped, and why. */
  hookNotices?: string[];
}

export type CompactionMode = 'auto' | 'off';

/**
 * Spending limits, checked before each model call (subagents' calls
 * included). Tokens count every input token (cached ones too) and every
 * output token of the prompt's calls; cost counts calls whose model has
 * prices configured.
 */
export interface Limits {
  /** US dollars one prompt may cost. */
  maxCostPerPrompt?: number;
  /** US dollars a session may cost, earlier prompts included. */
  maxCostPerSession?: number;
  /** Tokens one prompt may use. */
  maxTokensPerPrompt?: number;
}

export interface SpeckitSettings {
  /** The reviewed composition /speckit.implement runs each task through. */
  implementAgent?: string;
  /** Whether /speckit.specify starts a git branch for a new feature (default no: Spec Kit's git extension does, when installed). */
  createBranch?: boolean;
}

/** The name permission-config reads the permission settings under. */
export type ConfigFile = Settings;

export interface ConfigOverrides {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}
