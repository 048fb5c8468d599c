/**
 * One HTTP(S) GET, no redirects followed, through Node's http and https
 * modules so the address guard decides where the connection goes: the host
 * is judged before connecting, and a name's addresses are judged by the
 * lookup the socket connects with (see address-guard.ts). The answer is a
 * WHATWG Response, like fetch()'s.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { checkHost, guardedLookup } from './address-guard';

export interface GuardedGetOptions {
  signal: AbortSignal;
  headers: Record<string, string>;
  /** Reach loopback, private, link-local and metadata addresses too (the user's setting). */
  allowPrivateAddresses: boolean;
}

/** Statuses whose response has no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * GETs `url` (http: or https:) without following a redirect. Rejects with
 * a BlockedAddressError when the guard refuses the host or an address it
 * resolves to, and with the socket's error when the request fails.
 */
export function guardedGet(url: URL, options: GuardedGetOptions): Promise<Response> {
  if (!options.allowPrivateAddresses) {
    try {
      checkHost(url.hostname);
    } catch (err) {
      return Promise.reject(err);
    }
  }
  // node:https is required here, on a fetch, not when the tools load: a run that fetches nothing starts without it.
  const send = url.protocol === 'https:' ? (require('node:https') as typeof import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'GET',
      headers: { 'accept-encoding': 'gzip, br', ...options.headers },
      signal: options.signal,
      agent: false,
      ...(options.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
    });
    request.once('error', reject);
    request.once('response', (message) => {
      try {
        resolve(toResponse(message));
      } catch (err) {
        message.destroy();
        reject(err);
      }
    });
    request.end();
  });
}

function toResponse(message: IncomingMessage): Response {
  const status = message.statusCode ?? 0;
  if (status < 200 || status > 599) throw new Error(`the server answered with HTTP status ${status}, which is not a valid response`);
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i]!, message.rawHeaders[i + 1]!);
  if (NULL_BODY_STATUSES.has(status)) {
    message.resume();
    return new Response(null, { status, statusText: message.statusMessage ?? '', headers });
  }
  const body = Readable.toWeb(decoded(message)) as WebReadableStream<Uint8Array>;
  return new Response(body as ReadableStream<Uint8Array>, { status, statusText: message.statusMessage ?? '', headers });
}

/** The body with its content-encoding undone, as fetch() does. */
function decoded(message: IncomingMessage): Readable {
  const encoding = (message.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (!decoder) return message;
  message.on('error', (err) => decoder.destroy(err));
  // A reader that stops early destroys the decoder; the connection goes with it.
  decoder.on('close', () => message.destroy());
  return message.pipe(decoder);
}
