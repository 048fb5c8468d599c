/**
 * Plain HTTP through the `[sandbox] allow_domains` proxy: requests by
 * absolute URL (`GET http://host/path`), and requests inside a CONNECT
 * tunnel that turned out to carry plain HTTP. Each request goes to the
 * address its target was judged at (see proxy-target.ts), with a Host
 * header that names that target: one that names another host is refused.
 */
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { hostHeaderNames, hostMismatch, isRefusal, judgeTarget, type ProxyRules, type Refusal, type ResolveName, type Target } from './proxy-target';

/** Headers meant for the proxy or for one hop, never passed on (RFC 9110 section 7.6.1). */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);

export function refuse(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, { 'Content-Type': 'text/plain', Connection: 'close' }).end(`${refusal.message}\n`);
}

/** A request by absolute URL: judged, then relayed to the address judged. */
export async function forwardRequest(request: IncomingMessage, response: ServerResponse, rules: ProxyRules, resolve: ResolveName): Promise<void> {
  const url = URL.parse(request.url ?? '');
  if (!url || url.protocol !== 'http:') {
    return refuse(response, { status: 400, message: 'crow: the sandbox proxy takes absolute http:// URLs, and CONNECT for anything else (https:// included).' });
  }
  const port = url.port === '' ? 80 : Number(url.port);
  const host = request.headers.host;
  if (host !== undefined && !hostHeaderNames(host, url.hostname, port, 80)) return refuse(response, hostMismatch(host, url.host));
  const target = await judgeTarget(url.hostname, port, rules, resolve);
  if (isRefusal(target)) return refuse(response, target);
  relay(request, response, target, `${url.pathname}${url.search}`, url.host);
}

/**
 * Serves the plain HTTP requests a client sends inside a tunnel to `target`:
 * each must be in origin form (`GET /path`) with a Host header naming the
 * tunnel's target. `head` is what the client sent before this took over.
 */
export function serveTunnelRequests(client: Socket, head: Buffer, target: Target): void {
  const hostText = target.port === 80 ? target.host : `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  const server = createServer((request, response) => {
    const host = request.headers.host;
    if (!request.url?.startsWith('/')) {
      return refuse(response, { status: 400, message: `crow: a request inside a tunnel to ${hostText} names its path only (GET /path), not ${request.url}.` });
    }
    if (host === undefined || !hostHeaderNames(host, target.host, target.port, 80)) return refuse(response, hostMismatch(host ?? '(none)', hostText));
    relay(request, response, target, request.url, host);
  });
  server.on('clientError', (_err, socket: Socket) => socket.destroy());
  if (head.length > 0) client.unshift(head);
  server.emit('connection', client);
  // Paused by the tunnel while it looked at the first bytes; the server reads the rest.
  client.resume();
}

/** Sends `request` on to `target`'s address, `host` in its Host header, and its answer back. */
function relay(request: IncomingMessage, response: ServerResponse, target: Target, path: string, host: string): void {
  const headers: OutgoingHttpHeaders = {};
  const listed = new Set(String(request.headers.connection ?? '').toLowerCase().split(',').map((name) => name.trim()));
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HOP_HEADERS.has(name) && !listed.has(name)) headers[name] = value;
  }
  headers.host = host;
  const upstream = httpRequest({ host: target.address, port: target.port, method: request.method, path, headers, setHost: false }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  upstream.on('error', (err) => {
    if (!response.headersSent) return refuse(response, { status: 502, message: `crow: could not reach ${target.host}: ${err.message}` });
    response.destroy();
  });
  request.pipe(upstream);
}
