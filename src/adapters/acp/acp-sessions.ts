import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AgentContext, ClientCapabilities, McpServer, SessionInfo } from '@agentclientprotocol/sdk';
import { errorText } from '../../vocabulary/text';
import type { WorkspaceCatalog } from '../../host/catalog';
import type { McpAuth } from '../../mcp/mcp-connection';
import { HostError } from '../../host/host-error';
import type { AcpLogger } from './acp-log';
import { serversFromClient } from './acp-mcp-servers';
import { LiveSession } from './live-session';
import { requestErrors, shown } from './request-errors';
import type { AcpSessionStore } from './acp-session-store';

/** The catalog of a session folder (an absolute path). */
export type CatalogFor = (cwd: string) => WorkspaceCatalog | Promise<WorkspaceCatalog>;

export interface SessionTableOptions {
  catalogFor: CatalogFor;
  store: AcpSessionStore;
  logger: AcpLogger;
  /** Undo points for sessions' prompts (crow's data folder and the environment git runs in); absent: none. */
  undo?: { dataHome: string; env: NodeJS.ProcessEnv };
  /** How remote MCP servers sign in; absent: a server that asks is reported as unusable. */
  mcpAuth?: McpAuth;
  /** The environment programmatic commands see. */
  env: NodeJS.ProcessEnv;
  /** What the client offered at initialize. */
  capabilities: () => ClientCapabilities | undefined;
  /** Stores a copy of a session (up to its checkpoint `at`, else all of it); returns the copy's id. Absent: session/fork is refused. */
  fork?: (id: string, at?: number) => string;
}

/**
 * The sessions open on one connection, by id. Closing or deleting a
 * session that runs ends its prompt (answered `cancelled`) and waits for
 * it to wind down before answering, so the stored session is whole (or
 * gone) by then; the other sessions go on untouched.
 */
export class SessionTable {
  private readonly live = new Map<string, LiveSession>();
  /** Sessions being closed, until their prompt has wound down: reopening one waits for that. */
  private readonly closing = new Map<string, Promise<void>>();
  /** Stored sessions being made live: a second request for one joins the first, a delete waits for it. */
  private readonly opening = new Map<string, Promise<LiveSession>>();

  constructor(private readonly options: SessionTableOptions) {}

  /** A new session; `mcpServers` are the ones the client gives it, besides the configured ones. */
  async create(cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): Promise<LiveSession> {
    return this.open(cwd, client, mcpServers);
  }

  /** The session live on this connection (keeping its MCP servers), else the stored one made live here. */
  async reopen(id: string, cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): Promise<LiveSession> {
    await this.closing.get(id);
    const live = this.live.get(id) ?? this.opening.get(id);
    if (live) return live;
    if (!this.options.store.has(id)) throw requestErrors.unknownSession(id);
    const opening = this.open(cwd, client, mcpServers, id).finally(() => this.opening.delete(id));
    this.opening.set(id, opening);
    const session = await opening;
    if (session.cwd !== cwd) this.options.logger.log('warn', 'session reopened from another folder', { session: id, stored: session.cwd, cwd });
    return session;
  }

  /**
   * A copy of the stored session `id` (up to its checkpoint `at`, else all
   * of it, a prompt still running in it included as far as it is stored),
   * live here. Everything the client sent is checked before the copy is
   * made, and a copy that cannot be opened is not kept.
   */
  async fork(id: string, at: number | undefined, cwd: string, client: AgentContext, mcpServers: readonly McpServer[]): Promise<LiveSession> {
    const fork = this.options.fork;
    if (!fork) throw requestErrors.invalidRequest('This agent keeps no sessions it can fork.');
    checkFolder(cwd);
    let copy: string;
    try {
      copy = fork(id, at);
    } catch (err) {
      if (err instanceof Error && err.name === 'UnknownSessionError') throw requestErrors.unknownSession(id);
      throw requestErrors.invalidParams(errorText(err));
    }
    try {
      return await this.reopen(copy, cwd, client, mcpServers);
    } catch (err) {
      try {
        this.options.store.delete(copy);
      } catch {
        // Nothing of it was stored, or it is gone already.
      }
      throw err;
    }
  }

  get(id: string): LiveSession {
    const live = this.live.get(id);
    if (!live) throw requestErrors.unknownSession(id);
    return live;
  }

  /** The live session `id`, if any (a session/cancel for one already closed finds none). */
  find(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** Cancels a live session's prompt and stops serving it; it stays stored. */
  close(id: string): Promise<void> {
    return this.shut(this.get(id));
  }

  /** Closes a session if live and forgets it: removed from the store once its prompt has wound down. */
  async delete(id: string): Promise<void> {
    await this.opening.get(id)?.catch(() => undefined);
    const live = this.live.get(id);
    await (live ? this.shut(live) : this.closing.get(id));
    try {
      this.options.store.delete(id);
    } catch (err) {
      if (err instanceof Error && err.name === 'SessionInUseError') throw requestErrors.sessionInUse(id, err.message);
      // A session live here but never stored has nothing to remove.
      if (err instanceof Error && err.name === 'UnknownSessionError') {
        if (live) return;
        throw requestErrors.unknownSession(id);
      }
      throw requestErrors.internal(`Could not delete session ${id}: ${errorText(err)}`);
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
  closeAll(): Promise<void> {
    return Promise.all([...this.live.values()].map((live) => this.shut(live))).then(() => undefined);
  }

  /** Stops serving `live` at once; settles once it is closed (a failure to close is logged, not thrown). */
  private shut(live: LiveSession): Promise<void> {
    this.live.delete(live.id);
    const closed = live
      .close()
      .catch((err: unknown) => this.options.logger.log('warn', 'session did not close cleanly', { session: live.id, error: errorText(err) }))
      .finally(() => {
        if (this.closing.get(live.id) === closed) this.closing.delete(live.id);
      });
    this.closing.set(live.id, closed);
    return closed;
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
          catalogFor: this.options.catalogFor,
          mcpServers: serversFromClient(mcpServers),
          ...(this.options.undo ? { undo: this.options.undo } : {}),
          ...(this.options.mcpAuth ? { mcpAuth: this.options.mcpAuth } : {}),
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
  if (!folder) throw requestErrors.invalidParams(`cwd ${shown(cwd)} is not an existing folder given as an absolute path.`);
}
