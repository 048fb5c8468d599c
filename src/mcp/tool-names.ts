import { createHash } from 'node:crypto';
import { parseMcpEntry } from '../config/mcp-entries';
import type { Tool } from '../tools/tool';

/** Providers accept tool names of at most this many letters, digits, "_" and "-". */
const MAX_NAME_LENGTH = 64;
const UNSAFE = /[^A-Za-z0-9_-]/g;
const PREFIX = 'mcp';

/** A tool that an MCP server offers, with the names it has there. */
export interface McpTool extends Tool {
  readonly mcp: { server: string; tool: string };
}

export function isMcpTool(tool: Tool): tool is McpTool {
  return 'mcp' in tool;
}

/**
 * The name the model calls an MCP tool by: `mcp__SERVER__TOOL`, other
 * characters replaced by "_". A name too long or already `taken` ends in a
 * hash of both names instead, so it stays unique and within the limit.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const name = `${PREFIX}__${server.replace(UNSAFE, '_')}__${tool.replace(UNSAFE, '_')}`;
  if (name.length <= MAX_NAME_LENGTH && !taken.has(name)) return name;
  const hash = createHash('sha256').update(`${server}\n${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME_LENGTH - hash.length - 1)}_${hash}`;
}

/** The MCP tools among `tools` that `entries` name. */
export function mcpToolsNamed(entries: readonly string[], tools: readonly Tool[]): Tool[] {
  const wanted = entries.flatMap((entry) => {
    const match = parseMcpEntry(entry);
    return match ? [{ server: match[1]!, tool: match[2] }] : [];
  });
  const named = (tool: McpTool): boolean =>
    wanted.some((entry) => entry.server === tool.mcp.server && (entry.tool === undefined || entry.tool === tool.mcp.tool));
  return tools.filter((tool) => isMcpTool(tool) && named(tool));
}
