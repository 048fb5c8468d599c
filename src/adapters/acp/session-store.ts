import type { ACPSession } from '../../session/acp-session';
import type { PermissionGate } from '../../tools/permissions';

/** What session/list shows of a stored session. */
export interface StoredSessionInfo {
  id: string;
  cwd: string;
  /** '' until the first prompt. */
  title: string;
  /** Date.now() of the last change. */
  updatedAt: number;
}

/**
 * Where the ACP server keeps sessions between prompts, connections and
 * processes. The durable SessionStore of src/session satisfies it as is; a
 * test or an embedder may keep sessions elsewhere.
 */
export interface AcpSessionStore {
  /** Starts keeping `session`: its changes are saved from now on. `save` writes now, `close` stops keeping it. */
  attach(session: ACPSession): { save(): void; close(): void };
  /** Newest first; only the sessions of `cwd` when given. */
  list(filter?: { cwd?: string }): StoredSessionInfo[];
  /**
   * Rebuilds a stored session to continue it, asking for permissions
   * through `permissions`. Throws when there is no such session.
   */
  load(id: string, dependencies: { permissions: PermissionGate }): ACPSession;
  /** Forgets a stored session; throws when there is none. */
  delete(id: string): void;
}
