import type { ImportedServer, McpImportSource } from '../config/mcp-import';
import type { McpOAuthSettings, McpServerSettings } from '../config/settings';
import type { PermissionCategory } from '../vocabulary/permission-types';

/** How to reach a server: a command over stdio, streamable HTTP, or the older HTTP+SSE transport. */
export type McpTransportConfig =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** One MCP server of a session, ready to connect: values resolved, never written back anywhere. */
export interface McpServerConfig {
  /** The name tools are namespaced by and reports say. */
  name: string;
  transport: McpTransportConfig;
  /** What the permission policy must allow before one of its tools runs. */
  permission: PermissionCategory;
  /**
   * Its tools' readOnlyHint may lower `permission` to read (network when
   * open-world): set only for a server of the person's own configuration
   * (not routed by the project's config.toml, not an ACP client's) whose
   * permission they left unset. Other servers' hints never loosen anything.
   */
  trustReadOnlyHints?: true;
  /** Where the server was configured, so a report can say what to fix. */
  source: McpServerSource;
  startupTimeoutMs?: number;
  toolTimeoutMs?: number;
  /** A client registered beforehand for signing in (OAuth), from config.toml; absent: Crow registers itself when the server asks. */
  oauth?: McpOAuthSettings;
  /** Why it cannot start as configured (an unset variable, a missing command); reported instead of started. */
  problem?: string;
}

/** Crow's own config.toml, the ACP client that started the session, or another tool's file (see config/mcp-import.ts). */
export type McpServerSource = 'config.toml' | 'client' | { tool: McpImportSource; file: string };

/** MCP tools run commands of someone else's making: by default the policy asks first. */
export const DEFAULT_MCP_PERMISSION: PermissionCategory = 'execute';

/**
 * The enabled servers of [mcp_servers.NAME], with the variables they name
 * read from `env`: unset `env` variables are left out, an unset header
 * variable is a problem (the server would only refuse us).
 */
export function serversFromSettings(servers: Record<string, McpServerSettings> | undefined, env: NodeJS.ProcessEnv): McpServerConfig[] {
  return Object.entries(servers ?? {})
    .filter(([, server]) => server.enabled !== false)
    .map(([name, server]) => ({
      name,
      transport: transportOf(server, env),
      permission: server.permission ?? DEFAULT_MCP_PERMISSION,
      ...(server.permission === undefined && server.projectRouted !== true ? { trustReadOnlyHints: true as const } : {}),
      source: 'config.toml' as const,
      ...seconds('startupTimeoutMs', server.startupTimeoutSec),
      ...seconds('toolTimeoutMs', server.toolTimeoutSec),
      ...(server.oauth ? { oauth: server.oauth } : {}),
      ...problemOf(name, server, env),
    }));
}

/**
 * The servers other tools' files give a session (already judged: see
 * importedMcpServers): the default permission, their read-only hints
 * trusted only from the person's own (user) files, and a problem for one
 * that cannot start as written, reported when the session starts it.
 */
export function serversFromImports(imported: readonly ImportedServer[]): McpServerConfig[] {
  return imported.map((server) => ({
    name: server.name,
    transport: server.transport ?? { type: 'stdio', command: '', args: [], env: {} },
    permission: DEFAULT_MCP_PERMISSION,
    ...(server.scope === 'user' ? { trustReadOnlyHints: true as const } : {}),
    source: { tool: server.source, file: server.file },
    ...(server.problem !== undefined ? { problem: `as written in ${server.file}, ${server.problem}` } : {}),
  }));
}

/** Servers the client gives a session replace configured ones of the same name. */
export function mergeServers(configured: readonly McpServerConfig[], given: readonly McpServerConfig[]): McpServerConfig[] {
  const names = new Set(given.map((server) => server.name));
  return [...configured.filter((server) => !names.has(server.name)), ...given];
}

function transportOf(server: McpServerSettings, env: NodeJS.ProcessEnv): McpTransportConfig {
  if (server.url !== undefined) {
    const headers = Object.entries(server.headersEnv ?? {}).flatMap(([header, variable]) => {
      const value = env[variable];
      return value ? [[header, value] as const] : [];
    });
    return { type: 'http', url: server.url, headers: Object.fromEntries(headers) };
  }
  const passed = (server.env ?? []).flatMap((variable) => {
    const value = env[variable];
    return value !== undefined ? [[variable, value] as const] : [];
  });
  return { type: 'stdio', command: server.command ?? '', args: server.args ?? [], env: Object.fromEntries(passed) };
}

function problemOf(name: string, server: McpServerSettings, env: NodeJS.ProcessEnv): { problem?: string } {
  const table = `[mcp_servers.${name}]`;
  if (server.command === undefined && server.url === undefined) {
    return { problem: `${table} has neither command (a server over stdio) nor url (streamable HTTP)` };
  }
  if (server.command !== undefined && server.url !== undefined) {
    return { problem: `${table} has both command and url (the global and the project config.toml each set one); keep one` };
  }
  const unset = Object.entries(server.headersEnv ?? {}).find(([, variable]) => !env[variable]);
  if (unset) return { problem: `header ${unset[0]} takes its value from the environment variable ${unset[1]}, which is not set` };
  return {};
}

function seconds<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: Math.round(value * 1000) } as Record<K, number>);
}
