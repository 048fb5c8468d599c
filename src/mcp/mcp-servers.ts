import type { Tool } from '../tools/tool';
import type { McpClientRequests } from './client-requests';
import { McpConnection, type McpProblem } from './mcp-connection';
import { mcpToolset } from './mcp-toolset';
import type { McpServerConfig } from './server-config';

export interface McpServersOptions {
  /** Where stdio servers start: the session's workspace. */
  cwd: string;
  /** Told about each server's problems once (could not start, stopped, gave up); a front door logs or shows it. */
  report: (problem: McpProblem) => void;
  /** Waits before successive restarts of a stopped server; see McpConnection. */
  restartDelaysMs?: readonly number[];
  /** What every server's client declares and answers (see McpClientRequests). */
  requests?: McpClientRequests;
}

/**
 * The MCP servers of one session. Nothing starts until the tools are first
 * asked for (when the session's first agent is built); then every server
 * starts at once, and a server that cannot is reported and contributes no
 * tools. Closing the session closes them all.
 */
export class McpServers {
  private readonly connections: { connection: McpConnection; config: McpServerConfig }[];
  private listed: Promise<Tool[]> | undefined;

  constructor(configs: readonly McpServerConfig[], options: McpServersOptions) {
    this.connections = configs.map((config) => ({
      config,
      connection: new McpConnection({
        config,
        cwd: options.cwd,
        report: options.report,
        ...(options.restartDelaysMs ? { restartDelaysMs: options.restartDelaysMs } : {}),
        ...(options.requests ? { requests: options.requests } : {}),
      }),
    }));
  }

  /** Every server's tools, listed once per session (servers in order, names unique). */
  tools(): Promise<Tool[]> {
    this.listed ??= this.list();
    return this.listed;
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map(({ connection }) => connection.close()));
  }

  private async list(): Promise<Tool[]> {
    const listings = await Promise.all(this.connections.map(({ connection }) => connection.listTools()));
    const taken = new Set<string>();
    return this.connections.flatMap(({ connection, config }, i) => mcpToolset(connection, config.permission, listings[i]!, taken));
  }
}
