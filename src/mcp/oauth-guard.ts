/**
 * What Crow accepts from the servers it meets while signing in to a remote
 * MCP server: the server itself, its protected-resource metadata (RFC 9728)
 * and the authorization server it names (RFC 8414, OpenID Connect
 * Discovery). All of them are untrusted; the SDK's client auth follows
 * what they say, so every request it makes for signing in goes through
 * guardAuthFetch, which refuses:
 *
 * - any URL that is not https, but for http on a loopback address when the
 *   MCP server is itself on one (OAuth 2.1 draft §1.5 "Communication
 *   security"; MCP Authorization, "Communication Security": every
 *   authorization server endpoint MUST be served over HTTPS);
 * - a metadata document, registration or token answer past
 *   MAX_AUTH_BODY_BYTES (they are a few kilobytes);
 * - authorization server metadata whose issuer is not the server it was
 *   fetched from (RFC 8414 §3.3), whose endpoints break the first rule, or
 *   that does not offer PKCE with S256 (MCP Authorization 2025-11-25,
 *   "Authorization Code Protection": absent code_challenge_methods_supported,
 *   the client MUST refuse to proceed);
 * - protected-resource metadata naming an authorization server that breaks
 *   the first rule.
 *
 * Headers configured for the MCP server (headers_env) are not sent to any
 * other origin. Redirects the SDK follows stay within one origin
 * (its fetchWithinOrigin); each is a request through here again.
 */
import { BodyLimitError, boundedFetch, type Fetch } from '../llm/bounded-body';
import { authKey } from './oauth-store';

/** The most Crow reads of a metadata document, a registration or a token answer. */
export const MAX_AUTH_BODY_BYTES = 256 * 1024;

/** Something a server said while signing in that Crow will not follow. */
export class McpAuthRefused extends Error {
  override name = 'McpAuthRefused';
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Whether `host` (a URL's hostname) is this machine. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/** Why `url` may not take part in signing in to `serverUrl`, or undefined when it may. */
export function authUrlProblem(url: string, serverUrl: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url.slice(0, 200))} is not a URL`;
  }
  if (parsed.protocol === 'https:') return undefined;
  const shown = `${parsed.protocol}//${parsed.host}`;
  if (parsed.protocol !== 'http:') return `${shown} is not an https address`;
  if (!isLoopbackHost(parsed.hostname)) return `${shown} is plain http, not https: what is sent there (codes, tokens) could be read on the way`;
  if (!isLoopbackHost(new URL(serverUrl).hostname)) return `${shown} is on this machine, but the MCP server is not: a remote server does not send Crow to local ports`;
  return undefined;
}

export interface AuthGuard {
  /** The fetch the SDK's transport and client auth use. */
  fetch: Fetch;
  /** The first thing refused, in words for the person; undefined when nothing was. The SDK swallows some failures of discovery, so this is the reason to tell. */
  refusal(): string | undefined;
}

/**
 * `mcp` carries the MCP server's own messages (to its URL); every other
 * request (discovery, registration, tokens) is checked as the file comment
 * says and made with `raw`.
 */
export function guardAuthFetch(serverUrl: string, fetches: { mcp: Fetch; raw: Fetch }, configuredHeaders: readonly string[]): AuthGuard {
  const server = new URL(authKey(serverUrl));
  let refused: string | undefined;
  const refuse = (reason: string): McpAuthRefused => {
    refused ??= reason;
    return new McpAuthRefused(reason);
  };
  const bounded = boundedFetch(fetches.raw, { bodyBytes: MAX_AUTH_BODY_BYTES, errorBytes: MAX_AUTH_BODY_BYTES });
  const fetch: Fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (authKey(url.href) === server.href) return fetches.mcp(input, init);
    const problem = authUrlProblem(url.href, serverUrl);
    if (problem !== undefined) throw refuse(`Crow did not follow the server to ${problem}`);
    const headers = new Headers(init?.headers);
    if (url.origin !== server.origin) for (const name of configuredHeaders) headers.delete(name);
    const response = await bounded(url, { ...init, headers });
    const kind = metadataKind(url);
    if (kind === undefined || !response.ok) return response;
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      if (err instanceof BodyLimitError) throw refuse(`the metadata at ${url.origin}${url.pathname} is larger than ${MAX_AUTH_BODY_BYTES / 1024} KiB, far more than such a document holds`);
      throw err;
    }
    const problemOf = kind === 'resource' ? resourceMetadataProblem : authorizationMetadataProblem;
    const found = problemOf(parseObject(text), url, serverUrl);
    if (found !== undefined) throw refuse(found);
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch, refusal: () => refused };
}

function metadataKind(url: URL): 'resource' | 'authorization' | undefined {
  if (url.pathname.includes('/.well-known/oauth-protected-resource')) return 'resource';
  if (url.pathname.includes('/.well-known/oauth-authorization-server') || url.pathname.includes('/.well-known/openid-configuration')) return 'authorization';
  return undefined;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // The SDK says what is wrong with a document that is not JSON.
    return {};
  }
}

function resourceMetadataProblem(document: Record<string, unknown>, _url: URL, serverUrl: string): string | undefined {
  const servers = Array.isArray(document.authorization_servers) ? document.authorization_servers : [];
  for (const server of servers) {
    const problem = authUrlProblem(String(server), serverUrl);
    if (problem !== undefined) return `the MCP server names an authorization server Crow will not use: ${problem}`;
  }
  return undefined;
}

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const;

function authorizationMetadataProblem(document: Record<string, unknown>, url: URL, serverUrl: string): string | undefined {
  const from = `the authorization server at ${url.origin}`;
  const issuer = issuerOf(url);
  if (typeof document.issuer !== 'string' || !sameIssuer(document.issuer, issuer)) {
    return `${from} published metadata for another issuer (${JSON.stringify(String(document.issuer).slice(0, 200))}, not ${issuer}; RFC 8414 §3.3)`;
  }
  for (const endpoint of ENDPOINTS) {
    const value = document[endpoint];
    if (value === undefined) continue;
    const problem = authUrlProblem(String(value), serverUrl);
    if (problem !== undefined) return `${from} gives its ${endpoint} an address Crow will not use: ${problem}`;
  }
  const methods = document.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    return `${from} does not say it supports PKCE with S256 (code_challenge_methods_supported), which MCP requires`;
  }
  return undefined;
}

/** The issuer whose metadata lives at `url`: the well-known part taken out (RFC 8414 §3.1, OpenID Connect Discovery §4). */
function issuerOf(url: URL): string {
  for (const marker of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const at = url.pathname.indexOf(marker);
    if (at === -1) continue;
    const path = url.pathname.slice(0, at) + url.pathname.slice(at + marker.length);
    return `${url.origin}${path}`;
  }
  return url.origin;
}

function sameIssuer(a: string, b: string): boolean {
  const trim = (value: string): string => {
    try {
      return new URL(value).href.replace(/\/$/, '');
    } catch {
      return value;
    }
  };
  return trim(a) === trim(b);
}
