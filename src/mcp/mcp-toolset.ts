import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { defineTool } from '../tools/define-tool';
import type { PermissionCategory } from '../vocabulary/permission-types';
import type { Tool, ToolKind } from '../tools/tool';
import type { McpConnection, McpProgress, McpToolInfo } from './mcp-connection';
import { mcpToolName, type McpTool } from './tool-names';
import type { McpServerConfig } from './server-config';
import { toolOutput } from './tool-result';

/** Any JSON object: the server validates arguments against its own schema. */
const ARGUMENTS = onFirstUse(() => z.looseObject({}));

/**
 * A server's tools as our Tools, named `mcp__SERVER__TOOL` (unique among
 * `taken`, which grows), their JSON Schemas passed through. Each call goes
 * the way of every built-in tool: parsed, authorized (see permissionOf; the
 * remembered "always" covers this one tool), run, capped and timed; the
 * progress a server reports shows as the call's step.
 */
export function mcpToolset(connection: McpConnection, config: McpServerConfig, tools: readonly McpToolInfo[], taken: Set<string>): McpTool[] {
  return tools.map((info) => {
    const name = mcpToolName(connection.name, info.name, taken);
    taken.add(name);
    return mcpTool(connection, permissionOf(info, config), info, name);
  });
}

/**
 * What a call of the tool needs the policy to allow. The server's hints are
 * the server's word, hostile unless the person vouched for the server: only
 * a server whose hints are trusted (trustReadOnlyHints) gets a read-only
 * tool (readOnlyHint, not destructiveHint) lowered to read, or network when
 * it reaches the open world; everything else needs the configured category.
 */
export function permissionOf(info: McpToolInfo, config: Pick<McpServerConfig, 'permission' | 'trustReadOnlyHints'>): PermissionCategory {
  const hints = info.annotations;
  if (config.trustReadOnlyHints !== true || hints?.readOnlyHint !== true || isDestructive(info)) return config.permission;
  return hints.openWorldHint === true ? 'network' : 'read';
}

/** The server says the tool may destroy data (destructiveHint): asked every time, from any server, since that only tightens. */
function isDestructive(info: McpToolInfo): boolean {
  return info.annotations?.destructiveHint === true;
}

function mcpTool(connection: McpConnection, permission: PermissionCategory, info: McpToolInfo, name: string): McpTool {
  const server = connection.name;
  const destructive = isDestructive(info);
  const tool: Tool = defineTool({
    name,
    description: `MCP server "${server}": ${info.description ?? info.title ?? info.name}`,
    kind: kindOf(info),
    permission,
    parameters: ARGUMENTS,
    approval: (args) => {
      const summary = tool.summarize(args);
      return {
        title: `${server}: ${info.name} ${summary}`,
        ...(permission === 'execute' ? { command: `${name} ${summary}` } : {}),
        ...(destructive ? { destructive: true as const } : {}),
      };
    },
    execute: async (args, ctx) => {
      const { progress } = ctx;
      const onProgress = progress && ((update: McpProgress) => progress.step({ message: update.message, done: update.progress, total: update.total }));
      return toolOutput(await connection.callTool(info.name, args, ctx.signal, onProgress), ctx.supportsImages);
    },
  });
  return { ...tool, inputSchema: inputSchemaOf(info), mcp: { server, tool: info.name } };
}

/** Read-only tools read (or fetch, when they reach beyond the server); the rest are "other" to clients. */
function kindOf(info: McpToolInfo): ToolKind {
  const hints = info.annotations;
  if (hints?.readOnlyHint !== true) return 'other';
  return hints.openWorldHint === true ? 'fetch' : 'read';
}

/** The server's schema as given, with `properties` present (some providers insist) and no `$schema`. */
function inputSchemaOf(info: McpToolInfo): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...info.inputSchema, properties: info.inputSchema.properties ?? {} };
  delete schema.$schema;
  return schema;
}
