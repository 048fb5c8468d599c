/**
 * Who may connect to `crow acp-bridge`. A client of the bridge drives an
 * agent that acts as the user, so every connection must present the
 * bridge's token (a `token` query parameter, for browsers, which cannot set
 * headers; or `Authorization: Bearer TOKEN`), and a connection that comes
 * with an Origin (every browser page sends one) must come from an origin
 * the user listed. Web pages of other sites, and other local users without
 * the token, get nothing.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { sameSecret } from './access-token';
import { UsageError } from './cli-io';

/** Shorter tokens can be guessed by whoever can try many connections. */
const MIN_TOKEN_CHARS = 16;

export interface BridgeAccess {
  token: string;
  /** Origins (scheme://host:port) whose pages may connect; none by default. */
  origins: ReadonlySet<string>;
}

/** Why a connection is refused, as the HTTP answer to its upgrade request. */
export interface Refusal {
  status: 401 | 403;
  reason: string;
}

/** The token in `path` (surrounding whitespace ignored); a UsageError says what is wrong with the file. */
export function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--token-file ${path}: ${(err as Error).message}`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new UsageError(
      `--token-file ${path} must hold one token of at least ${MIN_TOKEN_CHARS} characters and no spaces, e.g. made with: head -c 24 /dev/urandom | base64 > ${path}`,
    );
  }
  return token;
}

/** --allow-origin values as origins; a UsageError names one that is not an http(s) origin. */
export function allowedOrigins(values: readonly string[]): Set<string> {
  return new Set(
    values.map((value) => {
      const url = URL.parse(value);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        throw new UsageError(`--allow-origin ${value}: give the origin of the page that may connect, e.g. http://localhost:3000`);
      }
      return url.origin;
    }),
  );
}

/** Undefined when the upgrade request may become a connection; else the answer that refuses it. */
export function refusal(request: IncomingMessage, access: BridgeAccess): Refusal | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && !access.origins.has(URL.parse(origin)?.origin ?? origin)) {
    return { status: 403, reason: `the page at ${origin} is not allowed (allow it with --allow-origin ${origin})` };
  }
  const given = presentedToken(request);
  if (given === undefined) return { status: 401, reason: 'no token (give ?token=... or an Authorization: Bearer header)' };
  if (!sameSecret(given, access.token)) return { status: 401, reason: 'a wrong token' };
  return undefined;
}

function presentedToken(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  return new URL(request.url ?? '/', 'ws://bridge').searchParams.get('token') ?? undefined;
}
