import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AgentContext, ClientCapabilities, McpServer, SessionInfo } from '@agentclientprotocol/sdk';
import { mergeServers } from '../../mcp/server-config';
import { ACPSession } from '../../session/acp-session';
import { type AskFn, PermissionGate } from '../../tools/permissions';
import { protectedPathsFor } from '../../tools/protected-paths';
import type { AgentCatalog, CatalogFor, CommandsFor } from './agent-catalog';
import type { AcpLogger } from './acp-log';
import { serversFromClient } from './acp-mcp-servers';
import { LiveSession } from './live-session';
import { errorText, requestErrors } from './request-errors';
import type { AcpSessionStore } from './session-store';

export interface SessionTableOptions {
  catalogFor: CatalogFor;
  commandsFor: CommandsFor;
  store: AcpSessionStore;
  logger: AcpLogger;
  /** What the client offered at initialize. */
  capabilities: () => ClientCapabilities | undefined;
}

/**
 * The sessions open on one connection, by id. A session's permission gate
 * asks through whichever live session holds its id, so a stored session
 * reopened later asks through the connection that reopened it.
 */
export class SessionTable {
  private readonly live = new Map<string, LiveSession>();

  constructor(private readonly options: SessionTableOptions) {}

  /** A new session; `mcpServers` are the ones the client gives it, besides the configured ones. */
  create(cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): LiveSession {
    const catalog = this.catalog(cwd);
    const id = randomUUID();
    const session = new ACPSession({ id, cwd, agentName: catalog.defaultAgent(), permissions: this.gate(id, catalog, cwd) });
    return this.open(session, catalog, client, mcpServers);
  }

  /** The session live on this connection (keeping its MCP servers), else the stored one made live here. */
  reopen(id: string, cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): LiveSession {
    const live = this.live.get(id);
    if (live) return live;
    const catalog = this.catalog(cwd);
    let session: ACPSession;
    try {
      session = this.options.store.load(id, { permissions: this.gate(id, catalog, cwd) });
    } catch {
      throw requestErrors.unknownSession(id);
    }
    if (session.cwd !== cwd) this.options.logger.log('warn', 'session reopened from another folder', { session: id, stored: session.cwd, cwd });
    return this.open(session, catalog, client, mcpServers);
  }

  get(id: string): LiveSession {
    const live = this.live.get(id);
    if (!live) throw requestErrors.unknownSession(id);
    return live;
  }

  /** Cancels a live session's prompt and stops serving it; it stays stored. */
  close(id: string): void {
    this.get(id).close();
    this.live.delete(id);
  }

  /** Closes a session if live and forgets it. */
  delete(id: string): void {
    const live = this.live.get(id);
    live?.close();
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
    for (const live of this.live.values()) live.close();
    this.live.clear();
  }

  private catalog(cwd: string): AgentCatalog {
    checkFolder(cwd);
    try {
      return this.options.catalogFor(cwd);
    } catch (err) {
      throw requestErrors.internal(`Cannot read the agents and settings for ${cwd}: ${errorText(err)}`);
    }
  }

  private open(session: ACPSession, catalog: AgentCatalog, client: AgentContext, mcpServers: readonly McpServer[]): LiveSession {
    const live = new LiveSession(session, {
      client,
      capabilities: this.options.capabilities(),
      catalog,
      mcpServers: mergeServers(catalog.mcpServers?.() ?? [], serversFromClient(mcpServers)),
      commands: this.options.commandsFor(session.cwd),
      logger: this.options.logger,
      keeper: this.options.store.attach(session),
    });
    this.live.set(session.id, live);
    return live;
  }

  private gate(id: string, catalog: AgentCatalog, cwd: string): PermissionGate {
    const ask: AskFn = (request, signal) => this.live.get(id)?.ask(request, signal) ?? Promise.resolve('reject_once');
    return new PermissionGate({ policy: catalog.permissionPolicy(), ask, protectedPaths: protectedPathsFor(cwd) });
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
