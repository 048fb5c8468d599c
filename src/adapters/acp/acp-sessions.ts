import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AgentContext, ClientCapabilities, McpServer, SessionInfo } from '@agentclientprotocol/sdk';
import { errorText } from '../../vocabulary/text';
import type { WorkspaceCatalog } from '../../host/catalog';
import { HostError } from '../../host/host-error';
import type { AcpLogger } from './acp-log';
import { serversFromClient } from './acp-mcp-servers';
import { LiveSession } from './live-session';
import { requestErrors } from './request-errors';
import type { AcpSessionStore } from './acp-session-store';

/** The catalog of a session folder (an absolute path). */
export type CatalogFor = (cwd: string) => WorkspaceCatalog | Promise<WorkspaceCatalog>;

export interface SessionTableOptions {
  catalogFor: CatalogFor;
  store: AcpSessionStore;
  logger: AcpLogger;
  /** Undo points for sessions' prompts (crow's data folder and the environment git runs in); absent: none. */
  undo?: { dataHome: string; env: NodeJS.ProcessEnv };
  /** The environment programmatic commands see. */
  env: NodeJS.ProcessEnv;
  /** What the client offered at initialize. */
  capabilities: () => ClientCapabilities | undefined;
}

/** The sessions open on one connection, by id. */
export class SessionTable {
  private readonly live = new Map<string, LiveSession>();

  constructor(private readonly options: SessionTableOptions) {}

  /** A new session; `mcpServers` are the ones the client gives it, besides the configured ones. */
  async create(cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): Promise<LiveSession> {
    return this.open(cwd, client, mcpServers);
  }

  /** The session live on this connection (keeping its MCP servers), else the stored one made live here. */
  async reopen(id: string, cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): Promise<LiveSession> {
    const live = this.live.get(id);
    if (live) return live;
    if (!this.options.store.has(id)) throw requestErrors.unknownSession(id);
    const session = await this.open(cwd, client, mcpServers, id);
    if (session.cwd !== cwd) this.options.logger.log('warn', 'session reopened from another folder', { session: id, stored: session.cwd, cwd });
    return session;
  }

  get(id: string): LiveSession {
    const live = this.live.get(id);
    if (!live) throw requestErrors.unknownSession(id);
    return live;
  }

  /** Cancels a live session's prompt and stops serving it; it stays stored. */
  close(id: string): void {
    void this.get(id).close();
    this.live.delete(id);
  }

  /** Closes a session if live and forgets it. */
  delete(id: string): void {
    const live = this.live.get(id);
    void live?.close();
    this.live.delete(id);
    try {
      this.options.store.delete(id);
    } catch {
      if (!live) throw requestErrors.unknownSession(id);
    }
  }

  list(cwd: string | undefined): SessionInfo[] {
    return this.options.store.list(cwd === undefined ? {} : { cwd }).map((stored) => ({
      sessionId: stored.id,
      cwd: stored.cwd,
      title: stored.title === '' ? null : stored.title,
      updatedAt: new Date(stored.updatedAt).toISOString(),
    }));
  }

  /** The connection is gone: every prompt is cancelled, every session closed. */
  closeAll(): void {
    for (const live of this.live.values()) void live.close();
    this.live.clear();
  }

  private async open(cwd: string, client: AgentContext, mcpServers: readonly McpServer[], stored?: string): Promise<LiveSession> {
    checkFolder(cwd);
    let catalog: WorkspaceCatalog;
    try {
      catalog = await this.options.catalogFor(cwd);
    } catch (err) {
      throw requestErrors.internal(`Cannot read the agents and settings for ${cwd}: ${errorText(err)}`);
    }
    const redactor = catalog.redactor?.();
    if (redactor) this.options.logger.knowSecrets?.(redactor);
    let live: LiveSession;
    try {
      live = await LiveSession.open(
        {
          client,
          capabilities: this.options.capabilities(),
          catalog,
          store: this.options.store,
          logger: this.options.logger,
          mcpServers: serversFromClient(mcpServers),
          ...(this.options.undo ? { undo: this.options.undo } : {}),
          env: this.options.env,
        },
        cwd,
        stored,
      );
    } catch (err) {
      if (stored !== undefined && err instanceof HostError && err.kind === 'unknown-session') throw requestErrors.unknownSession(stored);
      // Another process writes to the stored session: the message names it and what to do.
      if (stored !== undefined && err instanceof HostError && err.kind === 'busy') throw requestErrors.sessionInUse(stored, err.message);
      throw requestErrors.invalidRequest(errorText(err));
    }
    this.live.set(live.id, live);
    return live;
  }
}

function checkFolder(cwd: string): void {
  let folder = false;
  try {
    folder = isAbsolute(cwd) && statSync(cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!folder) throw requestErrors.invalidParams(`cwd "${cwd}" is not an existing folder given as an absolute path.`);
}
