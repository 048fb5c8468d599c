import type { Tool } from '../tools/tool';
import { errorText } from '../vocabulary/text';
import type { McpList, McpSpanStart } from './client-features';
import type { McpClientRequests } from './client-requests';
import { completeArgument, type CompletionQuery, type Completions, NO_COMPLETIONS } from './mcp-completions';
import { type McpAuth, McpConnection, type McpProblem, type McpToolInfo } from './mcp-connection';
import { getPrompt, listPrompts, promptCommandName, type GetPromptResult, type McpPrompt } from './mcp-prompts';
import { listResources, readResource, type McpResourceListing, type ReadResourceResult } from './mcp-resources';
import { mcpToolset } from './mcp-toolset';
import { type ChangedResource, ResourceSubscriptions } from './resource-subscriptions';
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
  /** What every server's client declares and answers (see McpClientRequests). */
  requests?: McpClientRequests;
  /** How remote servers sign in (OAuth); without it a server that asks is reported as unusable. */
  auth?: McpAuth;
}

/** A server's prompt offered as the slash command `/name`. */
export interface McpPromptCommand {
  name: string;
  server: string;
  prompt: McpPrompt;
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
 * so), and so is one waiting for the person to sign in. Closing the session closes them all.
 */
export class McpServers {
  private readonly served: Served[];
  private tooling: Promise<Tool[]> | undefined;
  /** Servers that said their tools changed since they were last listed, by name. */
  private readonly stale = new Set<string>();
  /** Each server's resources as listed, by name, until it says they changed. */
  private readonly resourceListings = new Map<string, Promise<McpResourceListing>>();
  /** Each server's prompts as listed, by name, until it says they changed. */
  private readonly promptListings = new Map<string, Promise<McpPrompt[]>>();
  /** The roots last offered, to tell the servers when they change. */
  private announcedRoots: string | undefined;
  /** The attached resources the servers watch for the session. */
  private readonly subscriptions: ResourceSubscriptions;

  constructor(
    configs: readonly McpServerConfig[],
    private readonly options: McpServersOptions,
  ) {
    this.subscriptions = new ResourceSubscriptions(options.span);
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
          listChanged: (list) => this.changed(config.name, list),
          resourceUpdated: (uri) => this.subscriptions.updated(config.name, uri),
        },
        ...(options.requests ? { requests: options.requests } : {}),
        ...(options.auth ? { auth: options.auth } : {}),
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

  /** The names of the session's servers, in order. */
  get names(): string[] {
    return this.served.map(({ config }) => config.name);
  }

  /** What the server offers to read: listed once, again after it says the list changed; none from a server without resources or one unknown. */
  resources(server: string): Promise<McpResourceListing> {
    const served = this.served.find(({ config }) => config.name === server);
    if (!served) return Promise.resolve({ resources: [], templates: [] });
    let listing = this.resourceListings.get(server);
    if (!listing) {
      listing = this.listResourcesOf(served.connection);
      this.resourceListings.set(server, listing);
    }
    return listing;
  }

  /** Reads one resource of `server`; throws, naming the server, when it cannot. */
  async readResource(server: string, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const served = this.served.find(({ config }) => config.name === server);
    if (!served) throw new Error(`There is no MCP server "${server}" in this session (${this.names.join(', ') || 'none'}).`);
    const span = this.options.span?.(`mcp resources/read ${server}`, { 'crow.mcp.server': server, 'crow.mcp.uri': uri });
    try {
      const result = await readResource(served.connection, uri, signal);
      span?.set({ 'crow.mcp.contents': result.contents.length });
      span?.end('ok');
      return result;
    } catch (err) {
      span?.end('error', errorText(err));
      throw err;
    }
  }

  /**
   * Asks `server` to say when the resource at `uri` changes (when it
   * offers subscriptions), and forgets any earlier word that it did: the
   * session has just read it. Never throws.
   */
  async watchResource(server: string, uri: string): Promise<void> {
    this.subscriptions.seen(server, uri);
    const served = this.served.find(({ config }) => config.name === server);
    if (served) await this.subscriptions.subscribe(served.connection, uri);
  }

  /** The watched resources their servers said changed since last asked (each once, however many notices), at most `max`. */
  changedResources(max: number): ChangedResource[] {
    return this.subscriptions.takeChanged(max);
  }

  /** Every server's prompts as slash commands (servers in order): listed once, again after a server says they changed. */
  async promptCommands(): Promise<McpPromptCommand[]> {
    const listings = await Promise.all(this.served.map((served) => this.promptsOf(served.connection)));
    return this.served.flatMap(({ config }, i) => listings[i]!.map((prompt) => ({ name: promptCommandName(config.name, prompt.name), server: config.name, prompt })));
  }

  /** The prompt the server gives for `args`; throws, naming the server, when it cannot. */
  async getPrompt(server: string, prompt: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    const served = this.served.find(({ config }) => config.name === server)!;
    const span = this.options.span?.(`mcp prompts/get ${server}`, { 'crow.mcp.server': server, 'crow.mcp.prompt': prompt, 'crow.mcp.arguments': Object.keys(args) });
    try {
      const result = await getPrompt(served.connection, prompt, args, signal);
      span?.set({ 'crow.mcp.messages': result.messages.length });
      span?.end('ok');
      return result;
    } catch (err) {
      span?.end('error', errorText(err));
      throw err;
    }
  }

  /**
   * What `server` suggests for an argument of its prompt or a variable of its
   * resource template (completion/complete), capped and safe to show; none
   * from a server that is unknown or declares no `completions`. Throws,
   * naming the server, when it fails. For every door's prompt composer.
   */
  async complete(server: string, query: CompletionQuery, signal?: AbortSignal): Promise<Completions> {
    const served = this.served.find(({ config }) => config.name === server);
    if (!served) return NO_COMPLETIONS;
    const ref = query.ref.type === 'ref/prompt' ? query.ref.name : query.ref.uri;
    const span = this.options.span?.(`mcp completion/complete ${server}`, { 'crow.mcp.server': server, 'crow.mcp.ref': ref, 'crow.mcp.argument': query.argument });
    try {
      const completions = await completeArgument(served.connection, query, signal);
      span?.set({ 'crow.mcp.values': completions.values.length, 'crow.mcp.has_more': completions.hasMore });
      span?.end('ok');
      return completions;
    } catch (err) {
      span?.end('error', errorText(err));
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.subscriptions.close((server) => this.served.find(({ config }) => config.name === server)?.connection);
    await Promise.all(this.served.map(({ connection }) => connection.close()));
  }

  /** A server said one of its lists changed: the next use lists it again. */
  private changed(server: string, list: McpList): void {
    if (list === 'tools') this.stale.add(server);
    if (list === 'resources') this.resourceListings.delete(server);
    if (list === 'prompts') this.promptListings.delete(server);
  }

  private promptsOf(connection: McpConnection): Promise<McpPrompt[]> {
    let listing = this.promptListings.get(connection.name);
    if (!listing) {
      listing = listPrompts(connection).catch(() => {
        // Listed again at the next use: a server that failed once may answer later.
        this.promptListings.delete(connection.name);
        return [];
      });
      this.promptListings.set(connection.name, listing);
    }
    return listing;
  }

  private async listResourcesOf(connection: McpConnection): Promise<McpResourceListing> {
    const span = this.options.span?.(`mcp resources/list ${connection.name}`, { 'crow.mcp.server': connection.name });
    try {
      const listing = await listResources(connection);
      span?.set({ 'crow.mcp.resources': listing.resources.length, 'crow.mcp.templates': listing.templates.length });
      span?.end('ok');
      return listing;
    } catch (err) {
      // Listed again at the next use: a server that failed once may answer later.
      this.resourceListings.delete(connection.name);
      span?.end('error', errorText(err));
      return { resources: [], templates: [] };
    }
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
    // One waiting for sign-in is asked again at the next listing: the person may have signed in meanwhile.
    if (served.connection.signedOut) this.stale.add(name);
    span?.set({ 'crow.mcp.tools': served.listed.map((tool) => tool.name) });
    span?.end('ok');
  }
}
