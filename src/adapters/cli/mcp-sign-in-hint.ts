import type { McpServerConfig } from '../../mcp/server-config';

/** How a person at a terminal signs in to a server that asks: `crow mcp login`, with the name config.toml gives it, else its URL (an ACP client's server). */
export function terminalSignInHint(server: McpServerConfig): string {
  const url = server.transport.type === 'stdio' ? '' : server.transport.url;
  return server.source === 'config.toml' ? `run \`crow mcp login ${server.name}\`` : `run \`crow mcp login ${url}\` in a terminal`;
}
