/**
 * An agent definition's `tools` entries for MCP tools: `mcp:SERVER` for all
 * of a server's tools, `mcp:SERVER:TOOL` for one, by the names the server
 * and its configuration use. Servers are only known per session, so an
 * entry naming none of them simply adds nothing.
 */
const ENTRY = /^mcp:([^:]+)(?::(.+))?$/;

export function isMcpEntry(entry: string): boolean {
  return ENTRY.test(entry);
}

/** The server and, for one tool, its name, of an `mcp:` entry; undefined for other entries. */
export function parseMcpEntry(entry: string): [string, string, string | undefined] | undefined {
  const match = ENTRY.exec(entry);
  return match ? [match[0], match[1]!, match[2]] : undefined;
}
