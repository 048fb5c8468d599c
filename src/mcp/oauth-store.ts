/**
 * What Crow keeps of signing in to a remote MCP server (OAuth 2.1, the MCP
 * specification's Authorization section), and the interface of where it is
 * kept: a private file per server for the CLI and `crow acp`
 * (oauth-file-store.ts), VS Code's SecretStorage for the extension.
 *
 * Records are keyed by the server's URL, never by its name: a server renamed
 * in config.toml keeps its sign-in, and a name pointed at another URL never
 * presents the first server's token to the second.
 */
import { createHash } from 'node:crypto';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** One server's sign-in. Every field but `serverUrl` is a secret or leads to one: none is ever logged or shown. */
export interface McpAuthRecord {
  /** The server it belongs to, as authKey() spells it; a record that names another is not used. */
  serverUrl: string;
  /** The client Crow registered (RFC 7591) with the authorization server, stamped with that server by the SDK. */
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token stops working, in ms since the epoch (from expires_in when it was received). */
  expiresAt?: number;
  /** Where the authorization server was found (RFC 9728, RFC 8414), so a refresh needs no discovery. */
  discovery?: OAuthDiscoveryState;
}

/** Where sign-ins are kept; every method may be slow (a file, the OS keychain). */
export interface McpTokenStore {
  /** The record of the server at `serverUrl`, or undefined when there is none (or it is not usable). */
  load(serverUrl: string): Promise<McpAuthRecord | undefined>;
  save(record: McpAuthRecord): Promise<void>;
  /** Forgets the server's sign-in; whether there was one. */
  remove(serverUrl: string): Promise<boolean>;
}

/**
 * The URL a record is kept under: parsed (scheme and host lower-cased, a
 * default port dropped) without its fragment, which RFC 8707 §2 keeps out of
 * a resource indicator. Path and query stay: two servers on one host are
 * two resources.
 */
export function authKey(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return url.href;
}

/** A name for the server's record that says nothing of the URL (a file name, a secret's key). */
export function authRecordName(serverUrl: string): string {
  return createHash('sha256').update(authKey(serverUrl)).digest('hex').slice(0, 32);
}

/** The record when `value` is one for `serverUrl` (read back from storage: anything may be there), else undefined. */
export function recordFor(serverUrl: string, value: unknown): McpAuthRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Partial<McpAuthRecord>;
  if (record.serverUrl !== authKey(serverUrl)) return undefined;
  if (record.tokens !== undefined && (typeof record.tokens !== 'object' || typeof record.tokens?.access_token !== 'string')) return undefined;
  if (record.client !== undefined && (typeof record.client !== 'object' || typeof record.client?.client_id !== 'string')) return undefined;
  if (record.expiresAt !== undefined && typeof record.expiresAt !== 'number') return undefined;
  return record as McpAuthRecord;
}
