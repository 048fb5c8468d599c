/**
 * The SDK's OAuthClientProvider for one remote MCP server, on a token store.
 * The SDK's client auth (`auth()`, called by its transports on a 401) does
 * discovery, registration, PKCE, the `resource` parameter and refreshing;
 * this decides what is kept, and when a person must take part:
 *
 * - In a session (no `signIn`), nobody is at a browser: where the SDK would
 *   register a client or send someone to the authorization page, it throws
 *   McpSignInNeeded instead, and the server is reported as needing sign-in.
 *   A stored refresh token is used as is, and a refresh the authorization
 *   server refuses drops the tokens (the person signs in again).
 * - Signing in (`signIn`), stored tokens are not used (the person asked for
 *   a fresh sign-in); the authorization URL is handed to `open`, and the
 *   PKCE verifier stays in memory only.
 *
 * Nothing here is logged; errors carry no token, code or verifier.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { version } from '../../package.json';
import type { McpOAuthSettings } from '../config/settings';
import { authUrlProblem, McpAuthRefused } from './oauth-guard';
import { authKey, type McpAuthRecord, type McpTokenStore } from './oauth-store';

/** The server needs a person to sign in before Crow can use it. */
export class McpSignInNeeded extends Error {
  override name = 'McpSignInNeeded';
}

export interface SignInHooks {
  /** Where the authorization server sends the browser back (oauth-redirect.ts). */
  redirectUrl: string;
  /** The `state` the redirect must bring back. */
  state: string;
  /** Shows the person the authorization page (opens a browser). */
  open(authorizationUrl: URL): Promise<void>;
}

export interface McpOAuthProviderOptions {
  serverUrl: string;
  store: McpTokenStore;
  settings?: McpOAuthSettings;
  /** Present while a person signs in; absent in a session. */
  signIn?: SignInHooks;
  /** Told when a session's tokens were renewed with the refresh token (for its trace; never given the tokens). */
  refreshed?(): void;
}

/** A redirect URI for a session's provider, which never sends anyone anywhere: the SDK only needs one to refresh tokens. */
const UNUSED_REDIRECT = 'http://127.0.0.1/callback';
/** Refreshed this long before the access token runs out, so a call does not start with one about to expire. */
const EXPIRY_MARGIN_MS = 60_000;

export class McpOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  /** The tokens last handed to the SDK, to tell whether a refresh that failed used the stored ones. */
  private handedOut: OAuthTokens | undefined;
  /** Tokens saved by this sign-in; a sign-in uses no others. */
  private fresh: OAuthTokens | undefined;

  constructor(private readonly options: McpOAuthProviderOptions) {}

  get redirectUrl(): string {
    return this.options.signIn?.redirectUrl ?? UNUSED_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.options.settings?.scopes;
    return {
      client_name: 'Crow Agent',
      software_id: 'crow-agent',
      software_version: version,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A native app cannot keep a secret (RFC 8252 §8.4): a public client, proven by PKCE.
      token_endpoint_auth_method: 'none',
      ...(scopes && scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.options.signIn?.state ?? '';
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const configured = this.options.settings?.clientId;
    if (configured !== undefined) return { client_id: configured };
    const client = (await this.record())?.client;
    const signIn = this.options.signIn;
    if (!signIn) {
      if (!client) throw new McpSignInNeeded('Crow has not signed in to it yet');
      return client;
    }
    // A registration is used again only for the redirect URI it was made with (an exact match, RFC 9700 §4.1.3); else Crow registers anew.
    const registered = 'redirect_uris' in (client ?? {}) ? (client as { redirect_uris: string[] }).redirect_uris : [];
    return registered.includes(signIn.redirectUrl) ? client : undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.options.settings?.clientId !== undefined) return;
    await this.update((record) => ({ ...record, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.options.signIn) return this.fresh;
    this.handedOut = (await this.record())?.tokens;
    return this.handedOut;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    if (this.options.signIn) this.fresh = tokens;
    // In a session nothing but a refresh brings tokens.
    else this.options.refreshed?.();
    const expiresAt = tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : undefined;
    await this.update((record) => {
      const { expiresAt: _old, ...rest } = record;
      return { ...rest, tokens, ...(expiresAt !== undefined ? { expiresAt } : {}) };
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const problem = authUrlProblem(authorizationUrl.href, this.options.serverUrl);
    if (problem !== undefined) throw new McpAuthRefused(`Crow did not open the authorization page: ${problem}`);
    const signIn = this.options.signIn;
    if (!signIn) throw new McpSignInNeeded('its authorization server asks you to sign in');
    await signIn.open(authorizationUrl);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no sign-in was started, so there is no PKCE verifier');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'verifier') return;
    if (this.options.signIn && (scope === 'tokens' || scope === 'all')) this.fresh = undefined;
    const handedOut = this.handedOut;
    await this.update((record) => {
      const next = { ...record };
      if (scope === 'client' || scope === 'all') delete next.client;
      if (scope === 'discovery' || scope === 'all') delete next.discovery;
      // Another process may have refreshed meanwhile (refresh tokens rotate): only the tokens that failed are dropped.
      if ((scope === 'tokens' || scope === 'all') && (this.options.signIn || sameTokens(record.tokens, handedOut))) {
        delete next.tokens;
        delete next.expiresAt;
      }
      return next;
    });
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update((record) => ({ ...record, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.record())?.discovery;
  }

  /**
   * `text` without the secrets this provider handled (tokens, the PKCE
   * verifier, the state): a server's error answer may quote what it was sent,
   * and such answers end up in messages.
   */
  scrub(text: string): string {
    const secrets = [this.verifier, this.options.signIn?.state, ...[this.handedOut, this.fresh].flatMap((tokens) => [tokens?.access_token, tokens?.refresh_token])];
    let clean = text;
    for (const secret of secrets) if (secret) clean = clean.split(secret).join('[redacted]');
    return clean;
  }

  /** Whether the store holds tokens for the server (a sign-in may have happened since). */
  async hasTokens(): Promise<boolean> {
    return (await this.record())?.tokens !== undefined;
  }

  /** Whether the stored access token runs out within a minute and a refresh token could renew it. */
  async expiring(): Promise<boolean> {
    const record = await this.record();
    return record?.tokens?.refresh_token !== undefined && record.expiresAt !== undefined && record.expiresAt - EXPIRY_MARGIN_MS <= Date.now();
  }

  private record(): Promise<McpAuthRecord | undefined> {
    return this.options.store.load(this.options.serverUrl);
  }

  private async update(change: (record: McpAuthRecord) => McpAuthRecord): Promise<void> {
    const record = (await this.record()) ?? { serverUrl: authKey(this.options.serverUrl) };
    await this.options.store.save(change(record));
  }
}

function sameTokens(a: OAuthTokens | undefined, b: OAuthTokens | undefined): boolean {
  return a !== undefined && b !== undefined && a.access_token === b.access_token && a.refresh_token === b.refresh_token;
}
