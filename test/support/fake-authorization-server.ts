/**
 * A strict OAuth 2.1 authorization server on loopback, for the tests of
 * signing in to remote MCP servers. It refuses what a real one refuses;
 * each rule names its source where it is enforced:
 *
 * - metadata at /.well-known/oauth-authorization-server with issuer, the
 *   endpoints and code_challenge_methods_supported ["S256"] (RFC 8414 §2, §3;
 *   MCP Authorization 2025-11-25 "Authorization Code Protection");
 * - dynamic registration of public clients with loopback or https redirect
 *   URIs only (RFC 7591 §2, §3; RFC 8252 §7.3, §8.4);
 * - authorization requests: response_type code, a registered client, a
 *   redirect_uri matching a registered one exactly (RFC 6749 §3.1.2.2 —
 *   stricter than RFC 8252 §7.3's any-port loopback, so a client that
 *   registers one port and comes back on another is caught), PKCE S256 only
 *   (RFC 7636 §4.3, OAuth 2.1 §4.1.1), and a `resource` that is the MCP
 *   server's (RFC 8707 §2; MCP Authorization "Resource Parameter
 *   Implementation": clients MUST send it);
 * - codes single-use (a replay revokes what the code gave, RFC 6749 §4.1.2),
 *   short-lived (CODE_TTL_MS; RFC 6749 §4.1.2 says at most ten minutes),
 *   bound to the client, the redirect_uri and the resource (RFC 6749 §4.1.3,
 *   RFC 8707 §2.2), redeemed only with the verifier (RFC 7636 §4.6);
 * - refresh tokens rotate: each is used once, and a used one presented again
 *   revokes its whole family (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2);
 * - access tokens expire (`accessTtlSec`) and carry their audience: the MCP
 *   server (oauth-mcp-server.ts) refuses an expired one or one for another
 *   resource with 401 (RFC 6750 §3.1, MCP Authorization "Token Audience
 *   Binding and Validation").
 *
 * The consent page is a link a browser follows (fake-browser.cjs follows
 * it). `hostile` turns its metadata into what Crow must refuse, or makes its
 * token endpoint quote the code and verifier back in its error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Hostility = 'http-token-endpoint' | 'huge-metadata' | 'http-authorization-endpoint' | 'no-pkce' | 'other-issuer' | 'echo-secrets';

export interface FakeAuthorizationServerOptions {
  /** The MCP server whose tokens it issues: the only `resource` it accepts. */
  resource: string;
  accessTtlSec?: number;
  /** How long a code may be redeemed; default CODE_TTL_MS. */
  codeTtlMs?: number;
  /** Clients registered beforehand (a config.toml client_id). */
  clients?: { client_id: string; redirect_uris: string[] }[];
  hostile?: Hostility;
}

interface Client {
  client_id: string;
  redirect_uris: string[];
}

interface PendingAuthorization {
  client: Client;
  redirectUri: string;
  challenge: string;
  state: string | null;
  resource: string;
  scope: string;
}

interface Grant {
  clientId: string;
  resource: string;
  scope: string;
}

const CODE_TTL_MS = 60_000;

export class FakeAuthorizationServer {
  /** What happened, one line each, in order ("register", "authorize", "token authorization_code", "refused: …"). */
  readonly log: string[] = [];
  /** Every code and token it handed out and every PKCE verifier it was shown, to look for in what Crow stored and printed. */
  readonly secrets: string[] = [];
  private readonly clients = new Map<string, Client>();
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly codes = new Map<string, PendingAuthorization & { expiresAt: number; used: boolean; family?: string }>();
  private readonly accessTokens = new Map<string, Grant & { expiresAt: number; family: string }>();
  /** Refresh tokens by value: live until used once. */
  private readonly refreshTokens = new Map<string, Grant & { family: string; used: boolean }>();
  private readonly revokedFamilies = new Set<string>();
  private accessTtlSec: number;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private readonly options: FakeAuthorizationServerOptions,
  ) {
    this.accessTtlSec = options.accessTtlSec ?? 3600;
    for (const client of options.clients ?? []) this.clients.set(client.client_id, client);
  }

  static async start(options: FakeAuthorizationServerOptions): Promise<FakeAuthorizationServer> {
    let self: FakeAuthorizationServer | undefined;
    const server = createServer((request, response) => {
      void self!.handle(request, response).catch((err: unknown) => json(response, 500, { error: 'server_error', error_description: String(err) }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    self = new FakeAuthorizationServer(server, `http://127.0.0.1:${port}`, options);
    return self;
  }

  /** Access tokens issued from now on live this long. */
  setAccessTtl(seconds: number): void {
    this.accessTtlSec = seconds;
  }

  /** Every access token issued so far stops working. */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** Every refresh token issued so far stops working (the person revoked Crow's access). */
  revokeRefreshTokens(): void {
    for (const token of this.refreshTokens.values()) this.revokedFamilies.add(token.family);
  }

  /** An access token for `resource` as if issued to a client of this server: what another MCP server's token looks like. */
  mint(resource: string): string {
    const token = `at-${randomBytes(24).toString('base64url')}`;
    this.accessTokens.set(token, { clientId: 'elsewhere', resource, scope: '', family: 'minted', expiresAt: Date.now() + 3600_000 });
    return token;
  }

  /** What the token says, for the MCP server: undefined when unknown or revoked. */
  introspect(token: string): (Grant & { expiresAt: number }) | undefined {
    const grant = this.accessTokens.get(token);
    if (!grant || this.revokedFamilies.has(grant.family)) return undefined;
    return grant;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.issuer);
    const route = `${request.method} ${url.pathname}`;
    switch (route) {
      case 'GET /.well-known/oauth-authorization-server':
        return this.metadata(response);
      case 'POST /register':
        return this.register(await body(request), response);
      case 'GET /authorize':
        return this.authorize(url.searchParams, response);
      case 'GET /consent':
        return this.consent(url.searchParams, response);
      case 'POST /token':
        return this.token(new URLSearchParams(await body(request)), response);
      default:
        json(response, 404, { error: 'not_found' });
    }
  }

  private metadata(response: ServerResponse): void {
    const hostile = this.options.hostile;
    const document: Record<string, unknown> = {
      issuer: hostile === 'other-issuer' ? 'https://login.example.test' : this.issuer,
      authorization_endpoint: hostile === 'http-authorization-endpoint' ? 'http://login.example.test/authorize' : `${this.issuer}/authorize`,
      token_endpoint: hostile === 'http-token-endpoint' ? 'http://tokens.example.test/token' : `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['docs.read'],
    };
    if (hostile !== 'no-pkce') document.code_challenge_methods_supported = ['S256'];
    if (hostile === 'huge-metadata') document.service_documentation_padding = 'x'.repeat(2 * 1024 * 1024);
    json(response, 200, document);
  }

  private register(text: string, response: ServerResponse): void {
    let metadata: { redirect_uris?: unknown; token_endpoint_auth_method?: unknown; grant_types?: unknown };
    try {
      metadata = JSON.parse(text) as typeof metadata;
    } catch {
      return this.refuse(response, 400, 'invalid_client_metadata', 'the registration is not JSON (RFC 7591 §3.1)');
    }
    const uris = metadata.redirect_uris;
    // RFC 7591 §2: a client of the authorization code grant registers its redirect URIs.
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((uri) => typeof uri === 'string')) {
      return this.refuse(response, 400, 'invalid_redirect_uri', 'redirect_uris are required (RFC 7591 §2)');
    }
    // RFC 8252 §7.3, §8.3: a native app's redirect is http on a loopback IP literal, else https.
    if (!uris.every((uri: string) => /^http:\/\/127\.0\.0\.1:\d+\//.test(uri) || uri.startsWith('https://'))) {
      return this.refuse(response, 400, 'invalid_redirect_uri', 'redirect URIs are loopback http or https (RFC 8252 §7.3)');
    }
    // RFC 8252 §8.4: a native app is a public client; this server issues no secrets.
    if (metadata.token_endpoint_auth_method !== 'none') {
      return this.refuse(response, 400, 'invalid_client_metadata', 'only public clients (token_endpoint_auth_method none) register here (RFC 8252 §8.4)');
    }
    const client = { client_id: `client-${randomBytes(8).toString('hex')}`, redirect_uris: uris as string[] };
    this.clients.set(client.client_id, client);
    this.log.push('register');
    json(response, 201, { ...metadata, ...client, client_id_issued_at: Math.floor(Date.now() / 1000) });
  }

  private authorize(params: URLSearchParams, response: ServerResponse): void {
    const client = this.clients.get(params.get('client_id') ?? '');
    const redirectUri = params.get('redirect_uri') ?? '';
    // RFC 6749 §4.1.2.1: with an unknown client or a wrong redirect URI, the browser is not sent back at all.
    if (!client) return this.refuse(response, 400, 'invalid_client', 'unknown client_id (RFC 6749 §4.1.2.1)');
    if (!client.redirect_uris.includes(redirectUri)) return this.refuse(response, 400, 'invalid_request', 'redirect_uri is not one registered, exactly (RFC 6749 §3.1.2.2)');
    const back = (error: string, description: string): void => {
      this.log.push(`refused: ${description}`);
      redirect(response, redirectUri, { error, error_description: description, state: params.get('state') });
    };
    if (params.get('response_type') !== 'code') return back('unsupported_response_type', 'response_type must be code (OAuth 2.1 §4.1.1)');
    const challenge = params.get('code_challenge');
    // RFC 7636 §4.3 and OAuth 2.1 §4.1.1: PKCE required, S256 only.
    if (!challenge || params.get('code_challenge_method') !== 'S256') return back('invalid_request', 'PKCE with S256 is required (RFC 7636 §4.3)');
    // RFC 8707 §2 and MCP Authorization: the resource is the MCP server, always named.
    if (params.get('resource') !== this.options.resource) return back('invalid_target', `resource must be ${this.options.resource}, not ${params.get('resource') ?? 'absent'} (RFC 8707 §2)`);
    const id = randomBytes(12).toString('hex');
    this.pending.set(id, { client, redirectUri, challenge, state: params.get('state'), resource: this.options.resource, scope: params.get('scope') ?? '' });
    this.log.push(`authorize scope=${params.get('scope') ?? ''}`);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Consent</title><p>Let Crow read your docs?</p><a id="approve" href="/consent?request=${id}&decision=approve">Allow</a> <a id="deny" href="/consent?request=${id}&decision=deny">Deny</a>\n`);
  }

  private consent(params: URLSearchParams, response: ServerResponse): void {
    const id = params.get('request') ?? '';
    const pending = this.pending.get(id);
    if (!pending) return this.refuse(response, 400, 'invalid_request', 'no such authorization request');
    this.pending.delete(id);
    if (params.get('decision') !== 'approve') {
      this.log.push('denied');
      return redirect(response, pending.redirectUri, { error: 'access_denied', error_description: 'The person said no.', state: pending.state });
    }
    const code = randomBytes(24).toString('base64url');
    this.secrets.push(code);
    this.codes.set(code, { ...pending, expiresAt: Date.now() + (this.options.codeTtlMs ?? CODE_TTL_MS), used: false });
    redirect(response, pending.redirectUri, { code, state: pending.state, iss: this.issuer });
  }

  private token(params: URLSearchParams, response: ServerResponse): void {
    response.setHeader('Cache-Control', 'no-store');
    const client = this.clients.get(params.get('client_id') ?? '');
    // RFC 6749 §3.2.1: a public client identifies itself with client_id.
    if (!client) return this.refuse(response, 401, 'invalid_client', 'unknown client_id (RFC 6749 §3.2.1)');
    switch (params.get('grant_type')) {
      case 'authorization_code':
        return this.redeemCode(client, params, response);
      case 'refresh_token':
        return this.refresh(client, params, response);
      default:
        return this.refuse(response, 400, 'unsupported_grant_type', 'authorization_code or refresh_token (RFC 6749 §5.2)');
    }
  }

  private redeemCode(client: Client, params: URLSearchParams, response: ServerResponse): void {
    if (this.options.hostile === 'echo-secrets') {
      this.secrets.push(params.get('code_verifier') ?? '');
      return this.refuse(response, 400, 'invalid_grant', `no: code ${params.get('code')} with verifier ${params.get('code_verifier')}`);
    }
    const code = this.codes.get(params.get('code') ?? '');
    const grantError = (description: string): void => this.refuse(response, 400, 'invalid_grant', description);
    if (!code || code.client.client_id !== client.client_id) return grantError('unknown code, or another client\'s (RFC 6749 §4.1.3)');
    if (code.used) {
      // RFC 6749 §4.1.2: a code used twice is refused, and what it gave is revoked.
      if (code.family) this.revokedFamilies.add(code.family);
      return grantError('the code was used already (RFC 6749 §4.1.2)');
    }
    code.used = true;
    if (Date.now() > code.expiresAt) return grantError('the code expired (RFC 6749 §4.1.2)');
    if (params.get('redirect_uri') !== code.redirectUri) return grantError('redirect_uri differs from the authorization request\'s (RFC 6749 §4.1.3)');
    if (params.get('resource') !== code.resource) return this.refuse(response, 400, 'invalid_target', 'resource differs from the one authorized (RFC 8707 §2.2)');
    const verifier = params.get('code_verifier') ?? '';
    if (verifier !== '') this.secrets.push(verifier);
    // RFC 7636 §4.1: 43 to 128 characters; §4.6: its S256 is the challenge.
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
      return grantError('code_verifier does not match the code_challenge (RFC 7636 §4.6)');
    }
    code.family = randomBytes(8).toString('hex');
    this.log.push('token authorization_code');
    this.grant(response, { clientId: client.client_id, resource: code.resource, scope: code.scope }, code.family);
  }

  private refresh(client: Client, params: URLSearchParams, response: ServerResponse): void {
    const presented = params.get('refresh_token') ?? '';
    const token = this.refreshTokens.get(presented);
    if (!token || token.clientId !== client.client_id) return this.refuse(response, 400, 'invalid_grant', 'unknown refresh token, or another client\'s (RFC 6749 §6)');
    if (this.revokedFamilies.has(token.family)) return this.refuse(response, 400, 'invalid_grant', 'the refresh token was revoked (RFC 6749 §6)');
    if (token.used) {
      // RFC 9700 §4.14.2: a rotated refresh token presented again means it leaked: the whole family goes.
      this.revokedFamilies.add(token.family);
      return this.refuse(response, 400, 'invalid_grant', 'the refresh token was used already (RFC 9700 §4.14.2)');
    }
    const resource = params.get('resource');
    if (resource !== null && resource !== token.resource) return this.refuse(response, 400, 'invalid_target', 'resource differs from the one authorized (RFC 8707 §2.2)');
    token.used = true;
    this.log.push('token refresh_token');
    this.grant(response, token, token.family);
  }

  private grant(response: ServerResponse, grant: Grant, family: string): void {
    const access = `at-${randomBytes(24).toString('base64url')}`;
    const refresh = `rt-${randomBytes(24).toString('base64url')}`;
    this.secrets.push(access, refresh);
    this.accessTokens.set(access, { ...grant, family, expiresAt: Date.now() + this.accessTtlSec * 1000 });
    this.refreshTokens.set(refresh, { ...grant, family, used: false });
    json(response, 200, { access_token: access, token_type: 'Bearer', expires_in: this.accessTtlSec, refresh_token: refresh, scope: grant.scope });
  }

  private refuse(response: ServerResponse, status: number, error: string, description: string): void {
    this.log.push(`refused: ${description}`);
    json(response, status, { error, error_description: description });
  }
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(value));
}

function redirect(response: ServerResponse, to: string, params: Record<string, string | null>): void {
  const url = new URL(to);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  response.writeHead(302, { Location: url.href });
  response.end();
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
