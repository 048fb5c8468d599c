/**
 * What the bridge lets through from a client to the agent. An MCP server
 * given with a `command` (a stdio server) in `session/new`, `session/load`,
 * `session/resume` or any other request's `mcpServers` is a program the
 * agent starts as the user who runs the bridge: from a bridge client it is
 * refused with a JSON-RPC error unless the bridge was started with
 * --allow-client-mcp. The agent gets exactly the message that was checked:
 * it is parsed and written again as compact JSON (one line), so a lenient
 * or first-key-wins parser on the other side cannot read something else
 * into it; text that is not JSON is answered with a parse error.
 */

/** What to do with one client message: the line to send the agent (if any) and the answers to send the client. */
export interface Screened {
  forward?: string;
  replies: string[];
  /** Why the message was not forwarded, for the bridge's log. */
  refused?: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function screenClientMessage(text: string, allowClientMcp: boolean): Screened {
  let message: Json;
  try {
    message = JSON.parse(text) as Json;
  } catch {
    const message = 'Parse error: crow acp-bridge passes on only JSON-RPC messages in JSON.';
    return { replies: [errorReply(null, -32700, message)], refused: message };
  }
  const requests = Array.isArray(message) ? message : [message];
  const reason = allowClientMcp ? undefined : requests.map(refusalOf).find((found) => found !== undefined);
  if (!reason) return { forward: JSON.stringify(message), replies: [] };
  // A batch with a refused request is refused whole: each of its requests gets the reason.
  const ids = requests.flatMap((request) => (isObject(request) && 'id' in request ? [request.id!] : []));
  return { replies: ids.map((id) => errorReply(id, -32602, reason.message, reason.data)), refused: reason.message };
}

/** Why `request` may not pass; undefined when it carries no MCP server with a command. */
function refusalOf(request: Json): { message: string; data: Json } | undefined {
  if (!isObject(request) || typeof request.method !== 'string' || !isObject(request.params)) return undefined;
  const servers = request.params.mcpServers;
  if (!Array.isArray(servers)) return undefined;
  const names = servers.filter(runsACommand).map((server) => (isObject(server) && typeof server.name === 'string' ? server.name : '(unnamed)'));
  if (names.length === 0) return undefined;
  const message =
    `crow acp-bridge refuses MCP servers that run a command (${names.map((name) => `"${name}"`).join(', ')}) from its clients in ${request.method}: ` +
    'a page or program that reaches the bridge could run anything as the user who started it. ' +
    'Configure such servers where the agent runs, or start the bridge with --allow-client-mcp if you trust every client that holds its token.';
  return { message, data: { method: request.method, refusedMcpServers: names } };
}

/** A stdio server: one with a command, or typed so. */
function runsACommand(server: Json): boolean {
  return isObject(server) && ('command' in server || server.type === 'stdio');
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorReply(id: Json, code: number, message: string, data?: Json): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
}
