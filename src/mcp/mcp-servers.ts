import type { Tool } from '../tools/tool';
import type { McpSpanStart } from './client-features';
import { McpConnection, type McpProblem, type McpToolInfo } from './mcp-connection';
import { mcpToolset } from './mcp-toolset';
import type { McpServerConfig } from './server-config';

export interface McpServersOptions {
  /** Where stdio servers start: the session's workspace. */
  cwd: string;
  /** Told about each server's problems once (could not start, stopped, gave up); a front door logs or shows it. */
  report: (problem: McpProblem) => void;
  /** Waits before successive restarts of a stopped server; see McpConnection. */
  restartDelaysMs?: readonly number[];
  /** The session's workspace folders, offered to every server as its roots; absent: no roots are declared. */
  roots?: () => readonly string[];
  /** Where spans of refreshed listings and the servers' requests go. */
  span?: McpSpanStart;
}

interface Served {
  connection: McpConnection;
  config: McpServerConfig;
  /** Its tools as last listed; undefined before the first listing. */
  listed: McpToolInfo[] | undefined;
}

/**
 * The MCP servers of one session. Nothing starts until the tools are first
 * asked for (when the session's first agent is built); then every server
 * starts at once, and a server that cannot is reported and contributes no
 * tools. A server that says its tools changed is listed again the next
 * time the tools are asked for (once per prompt, however often it says
 * so). Closing the session closes them all.
 */
export class McpServers {
  private readonly served: Served[];
  private tooling: Promise<Tool[]> | undefined;
  /** Servers that said their tools changed since they were last listed, by name. */
  private readonly stale = new Set<string>();
  /** The roots last offered, to tell the servers when they change. */
  private announcedRoots: string | undefined;

  constructor(
    configs: readonly McpServerConfig[],
    private readonly options: McpServersOptions,
  ) {
    this.served = configs.map((config) => ({
      config,
      listed: undefined,
      connection: new McpConnection({
        config,
        cwd: options.cwd,
        report: options.report,
        ...(options.restartDelaysMs ? { restartDelaysMs: options.restartDelaysMs } : {}),
        features: {
          ...(options.roots ? { roots: options.roots } : {}),
          ...(options.span ? { span: options.span } : {}),
          toolsChanged: () => this.stale.add(config.name),
        },
      }),
    }));
  }

  /**
   * Every server's tools (servers in order, names unique): listed on the
   * first call, and again for a server whose tools changed since. The same
   * array while nothing changed, so what was built with it can be kept.
   */
  tools(): Promise<Tool[]> {
    if (this.tooling && this.stale.size === 0) return this.tooling;
    // Word that comes from now on is heeded at a later call.
    const changed = new Set(this.stale);
    this.stale.clear();
    const previous = this.tooling;
    this.tooling = previous ? previous.then((tools) => this.list(changed, tools)) : this.list(changed, undefined);
    return this.tooling;
  }

  /** Tells the running servers when the roots differ from those last offered (checked before each prompt). */
  async checkRoots(): Promise<void> {
    if (!this.options.roots) return;
    const roots = JSON.stringify(this.options.roots());
    const changed = this.announcedRoots !== undefined && this.announcedRoots !== roots;
    this.announcedRoots = roots;
    if (!changed) return;
    this.options.span?.('mcp notifications/roots/list_changed', { 'crow.mcp.servers': this.served.map(({ config }) => config.name) }).end('ok');
    await Promise.all(this.served.map(({ connection }) => connection.rootsChanged()));
  }

  async close(): Promise<void> {
    await Promise.all(this.served.map(({ connection }) => connection.close()));
  }

  /** Lists the servers not listed yet and the `changed` ones; `previous` when that changed nothing. */
  private async list(changed: ReadonlySet<string>, previous: Tool[] | undefined): Promise<Tool[]> {
    const relisting = this.served.filter((served) => served.listed === undefined || changed.has(served.config.name));
    const before = relisting.map((served) => JSON.stringify(served.listed));
    await Promise.all(relisting.map((served) => this.listOne(served, previous !== undefined)));
    const same = previous !== undefined && relisting.every((served, i) => JSON.stringify(served.listed) === before[i]);
    if (same) return previous;
    const taken = new Set<string>();
    return this.served.flatMap(({ connection, config, listed }) => mcpToolset(connection, config, listed ?? [], taken));
  }

  private async listOne(served: Served, refresh: boolean): Promise<void> {
    const { name } = served.config;
    const span = refresh ? this.options.span?.(`mcp tools/list ${name}`, { 'crow.mcp.server': name, 'crow.mcp.reason': 'list_changed' }) : undefined;
    served.listed = await served.connection.listTools();
    span?.set({ 'crow.mcp.tools': served.listed.map((tool) => tool.name) });
    span?.end('ok');
  }
}
