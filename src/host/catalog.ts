/**
 * The seam between the session host and the configuration of one folder:
 * what it offers (agents, models, keys, permissions, commands, MCP servers,
 * telemetry) and how a session's composition is built. Every front door
 * gets one from `openFolder` (src/host/folder.ts); tests may bring their own.
 */
import type { ACPAgent } from '../agents/acp-agent';
import type { CompositionRole, RoleModels } from '../agents/role-models';
import type { ACPAgentDefinition } from '../config/agent-definitions';
import type { PromptRegistry } from '../config/prompts';
import type { Settings } from '../config/settings';
import type { McpServerConfig } from '../mcp/server-config';
import type { Redactor } from '../telemetry/redact';
import type { PermissionPolicy } from '../vocabulary/permission-types';
import type { SandboxSetup } from '../tools/sandbox-setup';
import type { SubagentLauncher, Tool } from '../tools/tool';
import type { Workspace } from '../tools/workspace';
import type { CommandCatalog } from './commands';

export type { RoleModels } from '../agents/role-models';

/** One ACP agent a user can pick: a session mode. */
export interface CatalogEntry {
  name: string;
  description: string;
}

/** A model chosen per role; an absent role keeps the catalog's current model. */
export type ModelChoice = Partial<Record<CompositionRole, string>>;

export interface BuildOptions {
  /** Anthropic extended thinking, in tokens; absent: the settings'. */
  thinkingBudget?: number;
  /** Tools of the session's own MCP servers, besides the built-in ones. */
  sessionTools?: readonly Tool[];
}

export interface WorkspaceCatalog {
  /** The ACP agents a user can pick: the session modes. */
  list(): CatalogEntry[];
  defaultAgent(): string;
  /** The agent `name` is: itself, or the built-in agent a seed's name for it stands for (BUILD-SMART, dual, …). */
  agentNamed?(name: string): string;
  /** The definition of the ACP agent `name` (its flow and the base agents it composes); absent or undefined: not known here. */
  definition?(name: string): ACPAgentDefinition | undefined;
  /** Models offered per role of an agent, and the current one, for pickers and config options. */
  models(agent: string): RoleModels[];
  /**
   * Lists the models the servers of the agent's roles serve (see
   * llm/served-models.ts), so that `models` offers those; whether a list
   * was learned now. Never throws; waits at most `waitMs`, the listing going
   * on in the background past it.
   */
  refreshModels?(agent: string, waitMs: number): Promise<boolean>;
  /**
   * Builds the composition for a session in `workspace`, with the chosen
   * models per role. Throws with a message a person can act on (a missing
   * key, an unknown model) when it cannot.
   */
  build(agent: string, workspace: Workspace, models: ModelChoice, options?: BuildOptions): ACPAgent;
  /** Whether the agent's primary model can think with a budget (a thought-level option). */
  thinks?(agent: string): boolean;
  /** Names of required environment keys that are missing. */
  missingKeys(): string[];
  /** The context window of a model in tokens, when known. */
  contextWindow(model: string): number | undefined;
  /** The permission policy of sessions in this folder; "ask" goes to the front door. */
  permissionPolicy(): PermissionPolicy;
  /** Runs subagents for sessions on `workspace` (the task tool); absent: no subagents. */
  subagents?(workspace: Workspace, sessionTools?: readonly Tool[]): SubagentLauncher;
  /** The MCP servers configured for this folder; a front door may add its own per session. */
  mcpServers?(): McpServerConfig[];
  /** The folder's prompt templates (built-in, user, project). */
  prompts(): PromptRegistry;
  /** The folder's resolved settings, for commands with settings of their own (/speckit.*). */
  settings?(): Settings;
  /** Slash commands of this folder; absent: none. */
  commands?(): CommandCatalog;
  /** Where spans go over OTLP/HTTP, when configured. */
  otlpEndpoint?(): string | undefined;
  /** Knows every secret value in play (provider, MCP and search keys), for whatever leaves the process. */
  redactor?(): Redactor;
  /** What the user should be told once about this folder's configuration: skipped definitions, ignored settings. */
  notices?(): string[];
  /** How commands are contained in this folder (the host applies it to the session's workspace); absent: no sandbox. */
  sandbox?(): SandboxSetup | undefined;
}
