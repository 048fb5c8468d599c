/**
 * `crow trace SESSION --serve`: the trace viewer (dist/webview/) for people
 * outside VS Code, on 127.0.0.1 only, read-only, with a strict CSP and no
 * remote assets. Traces hold code, prompts and outputs, so every route
 * needs the random token of the URL the server prints (`?token=`) or the
 * cookie the first load with it sets (HttpOnly, SameSite=Strict), which
 * redirects to the clean URL; other requests get 401, and requests naming
 * another Host (DNS rebinding) 403. The browser opener is given another URL
 * (`?code=`), so the token never appears in a process's arguments, where
 * any local user can read it (/proc/PID/cmdline): its code opens the
 * viewer once, within a minute, and only for a connection from a process
 * of the user running crow (loopback-peer.ts), so another user who reads
 * it there gets 401 and leaves it to the person's browser. Routes: `/` (the page, the viewer's stylesheet and script in it), `/viewer.js`, `/viewer.css`,
 * `/spans` (the stored trace: trace.jsonl's whole lines as stored, its last
 * line early, streamed as it is read, with its Content-Length; see
 * trace-pieces.ts) and `/events` (Server-Sent Events: each span record
 * appended to trace.jsonl from the moment the client connects, as a plain
 * message; whether the session is being recorded, as a `recording` event,
 * at once and on each change). A page asks for both at once, naming one
 * `load` in each: what was appended between the two is then sent on its
 * event stream (trace-seams.ts), so nothing falls between them.
 */
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { SpanRecord } from '../../telemetry/span';
import { followTrace, readRecords } from '../../telemetry/trace-follow';
import { openTracePieces, type TracePieces } from '../../telemetry/trace-pieces';
import { newAccessToken, sameSecret } from './access-token';
import { fromThisUser } from './loopback-peer';
import { TraceSeams } from './trace-seams';

export interface TraceServeOptions {
  /** The session's trace.jsonl: read afresh per request of `/spans`, and followed for live updates. */
  traceFile: string;
  /** Whether a live process records the session (SessionStore.isRecording). Default: no. */
  isRecording?(): boolean;
  /** Folder holding the built viewer.js and viewer.css. */
  assetsDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export interface TraceServer {
  /** http://127.0.0.1:PORT/?token=TOKEN: what a person opens; printed, never passed to a program. */
  readonly url: string;
  /** http://127.0.0.1:PORT/?code=CODE, for a browser opener's arguments: good for one load by a process of this user, within ONE_TIME_CODE_MS. */
  oneTimeUrl(): string;
  close(): Promise<void>;
}

/** How long a one-time code waits for its browser. */
const ONE_TIME_CODE_MS = 60_000;

/**
 * The page, with the viewer's stylesheet and script in it: one response
 * before the viewer starts, where fetching them cost a round trip (and the
 * server's turn, twice) before the first paint. The CSP allows exactly
 * those two by their hashes, and no other inline code.
 */
function viewerPage(css: string, js: string): { html: Buffer; csp: string } {
  const [style, script] = [withoutSourceMap(css), withoutSourceMap(js)];
  // A stylesheet or script holding its own end tag would end the element early: never inlined then.
  if (/<\/style/i.test(style) || /<\/script/i.test(script)) throw new Error('The built trace viewer cannot be inlined (it holds a closing tag); rebuild it: npm run build');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Crow trace</title>
<style>${style}</style>
</head>
<body>
<div id="app"></div>
<script>${script}</script>
</body>
</html>
`;
  const csp = `default-src 'none'; script-src 'self' ${hashSource(script)}; style-src 'self' ${hashSource(style)}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html: Buffer.from(html), csp };
}

/** The built files name their source maps, which are not served: inlined, the comment would only send the browser's tools to a 404. */
function withoutSourceMap(code: string): string {
  return code.replace(/\n?(\/\/# sourceMappingURL=\S*|\/\*# sourceMappingURL=\S* \*\/)\s*$/, '\n');
}

function hashSource(code: string): string {
  return `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`;
}

/** Where the built viewer is: next to dist/crow.js when bundled, else dist/webview/ of the checkout. */
export function defaultAssetsDir(): string {
  const candidates = [join(__dirname, 'webview'), join(__dirname, '..', '..', '..', 'dist', 'webview')];
  const found = candidates.find((dir) => existsSync(join(dir, 'viewer.js')));
  if (!found) throw new Error('The trace viewer is not built (no dist/webview/viewer.js); run: npm run build');
  return found;
}

export async function serveTrace(options: TraceServeOptions): Promise<TraceServer> {
  const [js, css] = [readFileSync(join(options.assetsDir, 'viewer.js')), readFileSync(join(options.assetsDir, 'viewer.css'))];
  const page = viewerPage(css.toString('utf8'), js.toString('utf8'));
  const headers = (contentType: string): Record<string, string> => securityHeaders(contentType, page.csp);
  const send = (response: ServerResponse, status: number, message: string): void => sendText(response, status, message, page.csp);
  const assets = {
    '/viewer.js': { type: 'text/javascript; charset=utf-8', body: js },
    '/viewer.css': { type: 'text/css; charset=utf-8', body: css },
    '/': { type: 'text/html; charset=utf-8', body: page.html },
  } as const;
  const clients = new Set<ServerResponse>();
  let recording = false;
  const broadcast = (event: string): void => {
    for (const client of clients) client.write(event);
  };
  const follower = await followTrace({
    file: options.traceFile,
    onRecord: (record) => broadcast(recordEvent(record)),
    isRecording: () => options.isRecording?.() ?? false,
    onRecording: (now) => {
      recording = now;
      broadcast(recordingEvent(now));
    },
  });
  const seams = new TraceSeams((from, to) => readRecords(options.traceFile, from, to));
  let port = 0;
  const token = newAccessToken();
  const cookie = (): string => `crow_trace_${port}`;
  /** Codes not used yet, with when each stops working. */
  const codes = new Map<string, number>();
  /** Whether `given` is a live one-time code presented by a process of this user; true once only. */
  const redeem = (given: string | null, request: IncomingMessage): boolean => {
    // Another user's try does not use the code up: the person's browser still gets in with it.
    if (given === null || !fromThisUser(request.socket)) return false;
    for (const [code, expires] of codes) {
      if (Date.now() >= expires) codes.delete(code);
      else if (sameSecret(given, code)) return codes.delete(code);
    }
    return false;
  };
  const server = createServer((request, response) => {
    if (!allowedHost(request, port)) return send(response, 403, 'Forbidden');
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, 'Method not allowed');
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const given = url.searchParams.get('token');
    if ((given !== null && sameSecret(given, token)) || (path === '/' && redeem(url.searchParams.get('code'), request))) {
      if (path === '/') {
        // The token leaves the address bar (and history); the cookie carries it from here on.
        response.writeHead(303, { ...headers('text/plain; charset=utf-8'), Location: '/', 'Set-Cookie': `${cookie()}=${token}; HttpOnly; SameSite=Strict; Path=/` });
        return void response.end();
      }
    } else if (!sameSecret(cookieValue(request, cookie()) ?? '', token)) {
      return send(response, 401, 'Unauthorized: open the URL that crow trace --serve printed; it carries the token.');
    }
    const load = TraceSeams.loadOf(url);
    if (path === '/spans') return void sendStoredTrace(options.traceFile, request, response, page.csp, (end) => load !== undefined && void seams.spans(load, end));
    if (path === '/events') {
      response.writeHead(200, { ...headers('text/event-stream; charset=utf-8'), Connection: 'keep-alive' });
      response.write(`: following trace.jsonl\n\n${recordingEvent(recording)}`);
      clients.add(response);
      request.on('close', () => clients.delete(response));
      const send = (records: SpanRecord[]): void => void (clients.has(response) && response.write(records.map(recordEvent).join('')));
      if (load !== undefined) void seams.events(load, { from: follower.offset, send });
      return;
    }
    const asset = assets[path as keyof typeof assets];
    if (!asset) return send(response, 404, 'Not found');
    response.writeHead(200, headers(asset.type));
    response.end(asset.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    oneTimeUrl() {
      const code = newAccessToken();
      codes.set(code, Date.now() + ONE_TIME_CODE_MS);
      return `http://127.0.0.1:${port}/?code=${code}`;
    },
    async close() {
      follower.stop();
      for (const client of clients) client.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Streams the stored trace as it is read, waiting for the client to take
 * each piece; a client that goes away stops the reading. A file that could
 * not be opened is a 500 saying why; one that got shorter while it was read
 * ends the connection early, which the viewer reports. `opened` is told
 * where in the file the stored part ends.
 */
async function sendStoredTrace(
  file: string,
  request: IncomingMessage,
  response: ServerResponse,
  csp: string,
  opened: (end: number) => void,
): Promise<void> {
  let trace: TracePieces;
  try {
    trace = await openTracePieces(file);
  } catch (err) {
    return sendText(response, 500, `Could not read the trace: ${(err as Error).message}`, csp);
  }
  opened(trace.end);
  const gone = new AbortController();
  response.once('close', () => gone.abort());
  try {
    response.writeHead(200, { ...securityHeaders('application/x-ndjson; charset=utf-8', csp), 'Content-Length': String(trace.total) });
    if (request.method === 'HEAD') return void response.end();
    for await (const piece of trace.pieces(gone.signal)) {
      if (!response.write(piece)) await once(response, 'drain', { signal: gone.signal });
    }
    response.end();
  } catch {
    response.destroy();
  } finally {
    await trace.close();
  }
}

/** Guards against DNS rebinding: only requests addressed to this loopback server are answered. */
function allowedHost(request: IncomingMessage, port: number): boolean {
  return request.headers.host === `127.0.0.1:${port}` || request.headers.host === `localhost:${port}`;
}

function cookieValue(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function securityHeaders(contentType: string, csp: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

// JSON.stringify writes no CR or LF, which SSE data must not hold.
function recordEvent(record: SpanRecord): string {
  return `data: ${JSON.stringify(record)}\n\n`;
}

function recordingEvent(recording: boolean): string {
  return `event: recording\ndata: ${JSON.stringify({ recording })}\n\n`;
}

function sendText(response: ServerResponse, status: number, message: string, csp: string): void {
  response.writeHead(status, securityHeaders('text/plain; charset=utf-8', csp));
  response.end(message);
}
