/**
 * A server's elicitation/create in URL mode: a page it wants the person to
 * open (to sign in, pay, consent) outside Crow. The URL is untrusted: only
 * https (http for this machine), no credentials in it, at most
 * URL_MAX_CHARS; the domain a door shows first is the URL's own host as
 * the URL standard reads it (punycode for international names), so
 * "https://bank.com@evil.example" shows evil.example, or is refused.
 */
import { clip } from '../vocabulary/text';
import { ElicitRefusal, shownText } from './elicitation-form';

export const URL_MAX_CHARS = 2_048;

/** What a server asks the person to open, safe to show. */
export interface ElicitUrl {
  server: string;
  message: string;
  /** The URL as parsed and written again. */
  url: string;
  /** Its host: what the person decides on. */
  domain: string;
  /** The server's id for this request (it may say later that it completed). */
  elicitationId: string;
}

/** What the person did: opened it (accept), declined, or dismissed the question (cancel). */
export type UrlAnswer = { action: 'accept' } | { action: 'decline' } | { action: 'cancel' };

export type ElicitUrlFn = (request: ElicitUrl, signal: AbortSignal) => Promise<UrlAnswer>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The request of `params` (elicitation/create's in URL mode), or an ElicitRefusal naming `server`. */
export function elicitUrl(server: string, params: { message?: unknown; url?: unknown; elicitationId?: unknown }): ElicitUrl {
  const refuse = (why: string): never => {
    throw new ElicitRefusal(`MCP server "${server}" asked to open a page Crow will not offer: ${why}`);
  };
  if (typeof params.message !== 'string' || typeof params.url !== 'string' || typeof params.elicitationId !== 'string') return refuse('its request is incomplete');
  if (params.url.length > URL_MAX_CHARS) return refuse(`its URL is over ${URL_MAX_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    return refuse('its URL is not one');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return refuse(`its URL is ${url.protocol.replace(/:$/, '')}, not https`);
  }
  if (url.username !== '' || url.password !== '') return refuse('its URL carries a user name or password, which hides where it leads');
  return {
    server,
    message: shownText(clip(params.message, 2_000)),
    url: url.href,
    domain: url.host,
    elicitationId: clip(params.elicitationId, 200),
  };
}
