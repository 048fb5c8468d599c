import type { McpServer } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { DEFAULT_MCP_PERMISSION, type McpServerConfig, type McpTransportConfig } from '../../mcp/server-config';

/**
 * The MCP servers a client gives a session (session/new, load or resume),
 * in our terms. Their tools ask before they run, like any MCP tool.
 */
export function serversFromClient(servers: readonly McpServer[]): McpServerConfig[] {
  return servers.map((server) => ({ name: server.name, transport: transportOf(server), permission: DEFAULT_MCP_PERMISSION, source: 'client' }));
}

/** A list the protocol lets a client send as null for empty. */
const listOf = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((list) => list ?? []);
const NameValue = z.object({ name: z.string(), value: z.string() }).loose();

/**
 * One MCP server as the protocol's schema has it (McpServer: http, sse, or
 * stdio without a type), for the requests the SDK does not parse for us
 * (session/fork, unstable). Anything else is invalid params, never a
 * server half read.
 */
export const McpServerParams = z.union([
  z.object({ type: z.literal('http'), name: z.string(), url: z.string(), headers: listOf(NameValue) }).loose(),
  z.object({ type: z.literal('sse'), name: z.string(), url: z.string(), headers: listOf(NameValue) }).loose(),
  z.object({ name: z.string(), command: z.string(), args: listOf(z.string()), env: listOf(NameValue) }).loose(),
]);

/** Streamable HTTP or SSE with the client's headers, or a command with the environment the client set. */
function transportOf(server: McpServer): McpTransportConfig {
  if ('url' in server) {
    return { type: server.type, url: server.url, headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) };
  }
  const env = Object.fromEntries(server.env.map((variable) => [variable.name, variable.value]));
  return { type: 'stdio', command: server.command, args: server.args, env };
}
