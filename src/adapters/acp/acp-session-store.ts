import type { HostStore } from '../../host/host-session';

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
export interface AcpSessionStore extends HostStore {
  /** Newest first; only the sessions of `cwd` when given. */
  list(filter?: { cwd?: string }): StoredSessionInfo[];
  /** Whether session `id` is stored (without listing the others). */
  has(id: string): boolean;
  /** Forgets a stored session; throws when there is none. */
  delete(id: string): void;
}
