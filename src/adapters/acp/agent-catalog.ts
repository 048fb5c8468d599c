import type { RoleModels } from '../../agents/role-models';
import type { ACPAgent } from '../../agents/acp-agent';
import type { McpServerConfig } from '../../mcp/server-config';
import type { AgentRole } from '../../session/acp-session';
import type { PermissionPolicy } from '../../tools/permissions';
import type { SandboxSetup } from '../../tools/sandbox-setup';
import type { SubagentLauncher } from '../../tools/subagents';
import type { Tool } from '../../tools/tool';
import type { Workspace } from '../../tools/workspace';

/** One ACP agent a user can pick: a session mode. */
export interface CatalogEntry {
  name: string;
  description: string;
}

export type { RoleModels } from '../../agents/role-models';

/** A model chosen per role; an absent role keeps the catalog's current model. */
export type ModelChoice = Partial<Record<AgentRole, string>>;

/**
 * The seam between the ACP server and the configuration layer: what a
 * workspace offers (agents, models, keys, permissions) and how a session's
 * composition is built. The server asks for one catalog per session folder,
 * so project configuration (`.crow/`) can shape it.
 */
export interface AgentCatalog {
  /** The ACP agents a user can pick: the session modes. */
  list(): CatalogEntry[];
  defaultAgent(): string;
  /** Models offered per role of an agent, and the current choice, for config options. */
  models(agent: string): RoleModels[];
  /**
   * Builds the composition for a session in `workspace`, with the chosen
   * models per role and the session's own tools (its MCP servers') besides
   * the built-in ones. Throws with a message a person can act on (a missing
   * key, an unknown model) when it cannot.
   */
  build(agent: string, workspace: Workspace, models: ModelChoice, options?: { thinkingBudget?: number; sessionTools?: readonly Tool[] }): ACPAgent;
  /** Whether the agent's primary model can think with a budget (offered as a thought-level option). */
  thinks?(agent: string): boolean;
  /** Names of required environment keys that are missing, for authenticate/auth methods. */
  missingKeys(): string[];
  /** The context window of a model in tokens, when known; usage updates need it. */
  contextWindow(model: string): number | undefined;
  /** The permission policy of sessions in this workspace; "ask" becomes session/request_permission. */
  permissionPolicy(): PermissionPolicy;
  /** How sessions in this workspace contain their commands; absent: no sandbox. */
  sandbox?(): SandboxSetup | undefined;
  /** Runs subagents for sessions on `workspace` (the task tool), with the session's own tools too; absent: no subagents. */
  subagents?(workspace: Workspace, sessionTools?: readonly Tool[]): SubagentLauncher;
  /** The MCP servers configured for sessions in this workspace (config.toml); a client may add more per session. */
  mcpServers?(): McpServerConfig[];
}

/** The catalog for a session folder (an absolute path). */
export type CatalogFor = (cwd: string) => AgentCatalog;

/** A slash command as clients list it. */
export interface CommandEntry {
  name: string;
  description: string;
}

/**
 * The slash commands of a workspace: `/name args` typed as a prompt becomes
 * the command's prompt, optionally run by the agent the command names.
 * The SlashCommands of src/config satisfy it as is.
 */
export interface CommandCatalog {
  list(): CommandEntry[];
  get(name: string): CommandEntry | undefined;
  /** Expands a command line whose command exists; throws with a readable message when its template fails. */
  expand(line: string, context: { workspaceRoot: string; agentName: string }): { prompt: string; agent?: string };
}

/** The slash commands for a session folder (an absolute path). */
export type CommandsFor = (cwd: string) => CommandCatalog;
