import type { McpServer } from '@agentclientprotocol/sdk';
import { DEFAULT_MCP_PERMISSION, type McpServerConfig, type McpTransportConfig } from '../../mcp/server-config';

/**
 * The MCP servers a client gives a session (session/new, load or resume),
 * in our terms. Their tools ask before they run, like any MCP tool.
 */
export function serversFromClient(servers: readonly McpServer[]): McpServerConfig[] {
  return servers.map((server) => ({ name: server.name, transport: transportOf(server), permission: DEFAULT_MCP_PERMISSION, source: 'client' }));
}

/** Streamable HTTP or SSE with the client's headers, or a command with the environment the client set. */
function transportOf(server: McpServer): McpTransportConfig {
  if ('url' in server) {
    return { type: server.type, url: server.url, headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) };
  }
  const env = Object.fromEntries(server.env.map((variable) => [variable.name, variable.value]));
  return { type: 'stdio', command: server.command, args: server.args, env };
}
