/**
 * The loopback redirect of a native app's sign-in (RFC 8252 §7.3): a small
 * HTTP server on 127.0.0.1 (the IP literal, not "localhost", §8.3) on a free
 * port, or the one a registration names, waiting for the authorization
 * server to send the browser back with a code. It takes exactly one
 * callback, the one whose `state` is the sign-in's (RFC 6749 §10.12: a
 * callback with another state may be forged, and is refused without ending
 * the wait); then it stops listening. It can also start the sign-in: an
 * unguessable /start/… address that sends the browser on to the
 * authorization page, for a door whose opener rewrites what it opens (a
 * VS Code workbench in a browser turned `resource=http%3A%2F%2F…` into
 * `http:/…`); the browser then follows the address exactly as written.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CALLBACK_PATH = '/callback';

export interface RedirectListener {
  /** The redirect URI to register and send: http://127.0.0.1:PORT/callback. */
  redirectUrl: string;
  /** The authorization code, once the right callback came; rejects with what the authorization server said, or when aborted. */
  code: Promise<string>;
  /** A loopback address that sends the browser on to `authorizationUrl` (until the sign-in is over). */
  launch(authorizationUrl: URL): string;
  /** Stops listening (also done once the code came). */
  close(): void;
}

export interface ListenOptions {
  state: string;
  /** Tried first; a free port when absent or taken. */
  port?: number;
  signal: AbortSignal;
}

/** The authorization server said no (RFC 6749 §4.1.2.1), in words safe to show. */
export class SignInDeclined extends Error {
  override name = 'SignInDeclined';
}

export async function listenForRedirect(options: ListenOptions): Promise<RedirectListener> {
  let settle: { resolve(code: string): void; reject(err: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Rejections are the caller's to see when it awaits `code`; this only keeps an early one quiet.
  code.catch(() => undefined);
  let done = false;
  const startPath = `/start/${randomBytes(16).toString('hex')}`;
  let start: URL | undefined;
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === startPath && start && !done) {
      response.writeHead(302, { Location: start.href, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', Connection: 'close' });
      response.end();
      return;
    }
    const outcome = answer(request, response, options.state, done);
    if (outcome === undefined) return;
    done = true;
    stop();
    if ('code' in outcome) settle!.resolve(outcome.code);
    else settle!.reject(outcome.error);
  });
  const stop = (): void => {
    server.close();
    server.closeIdleConnections();
  };
  const port = await listen(server, options.port);
  const abort = (): void => {
    done = true;
    stop();
    settle!.reject(new Error('Cancelled while waiting for the sign-in.'));
  };
  if (options.signal.aborted) abort();
  else options.signal.addEventListener('abort', abort, { once: true });
  void code.finally(() => options.signal.removeEventListener('abort', abort)).catch(() => undefined);
  const launch = (authorizationUrl: URL): string => {
    start = authorizationUrl;
    return `http://127.0.0.1:${port}${startPath}`;
  };
  return { redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`, code, close: stop, launch };
}

async function listen(server: Server, port: number | undefined): Promise<number> {
  const attempt = (wanted: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(wanted, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  if (port === undefined) return attempt(0);
  try {
    return await attempt(port);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return attempt(0);
  }
}

/** Answers one request; the sign-in's outcome when this was the callback, undefined when the wait goes on. */
function answer(request: IncomingMessage, response: ServerResponse, state: string, done: boolean): { code: string } | { error: Error } | undefined {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
    page(response, 404, 'Not here', 'This address only takes the sign-in\'s return.');
    return undefined;
  }
  if (done) {
    page(response, 410, 'Already done', 'This sign-in is over. Go back to Crow.');
    return undefined;
  }
  const params = url.searchParams;
  if (!sameText(params.get('state') ?? '', state)) {
    page(response, 400, 'Not this sign-in', 'This link is not the sign-in Crow is waiting for, so it was ignored.');
    return undefined;
  }
  const error = params.get('error');
  if (error !== null) {
    page(response, 200, 'Not signed in', 'The authorization server did not sign you in. Go back to Crow to see why.');
    const description = params.get('error_description');
    return { error: new SignInDeclined(`the authorization server said ${shown(error)}${description ? `: ${shown(description)}` : ''}`) };
  }
  const code = params.get('code');
  if (!code) {
    page(response, 400, 'No code', 'The authorization server sent the browser back without a code.');
    return { error: new Error('the authorization server sent the browser back without a code') };
  }
  page(response, 200, 'Signed in', 'You are signed in. You can close this tab and go back to Crow.');
  return { code };
}

/** Text of the authorization server's, as Crow shows it: one short line, printable characters only. */
function shown(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, ' ').trim();
  return JSON.stringify(clean.length > 200 ? `${clean.slice(0, 200)}…` : clean);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function page(response: ServerResponse, status: number, title: string, text: string): void {
  response.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'",
    'Referrer-Policy': 'no-referrer',
    Connection: 'close',
  });
  response.end(`<!doctype html><meta charset="utf-8"><title>Crow: ${title}</title><h1>${title}</h1><p>${text}</p>\n`);
}
