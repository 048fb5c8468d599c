/**
 * Network by domain for sandboxed commands: `[sandbox] allow_domains`.
 *
 * The sandbox keeps its own network namespace (nothing outside reachable,
 * not even the host's loopback). Crow runs an HTTP proxy on a Unix socket in
 * a private folder, which is bound into the sandbox; inside, a small Node
 * bridge listens on the sandbox's own 127.0.0.1:SANDBOX_PROXY_PORT, passes
 * each connection to that socket, and runs the command with HTTP_PROXY and
 * HTTPS_PROXY pointing at it. The proxy answers CONNECT (HTTPS and other
 * tunnels) and plain HTTP requests for the allowed hosts only; everything
 * else gets 403 with a sentence saying how to allow it. Programs that ignore
 * the proxy variables reach nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the bridge listens inside the sandbox (its own network namespace: no clash with anything). */
export const SANDBOX_PROXY_PORT = 3128;

/** The bridge run inside the sandbox: listens on loopback, relays to the proxy socket, runs the command and exits with it. */
const BRIDGE = `'use strict';
const net = require('net');
const { spawn } = require('child_process');
const { constants } = require('os');
const [socket, port, ...command] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream).on('error', () => upstream.destroy());
  upstream.pipe(client).on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.listen(Number(port), '127.0.0.1', () => {
  delete process.env.ELECTRON_RUN_AS_NODE;
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => { process.stderr.write('crow proxy bridge: ' + err.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 + (constants.signals[signal] || 1) : code));
});
`;

/** A running proxy for one list of domains. */
export interface DomainProxy {
  /** The private folder holding the proxy's socket and the bridge script; bind it into the sandbox at the same path. */
  folder: string;
  socket: string;
  bridge: string;
}

const proxies = new Map<string, DomainProxy & { server: Server }>();

/** The proxy for `domains`, started on first use and kept for the life of the process. */
export async function domainProxy(domains: readonly string[]): Promise<DomainProxy> {
  const key = [...domains].sort().join(' ');
  const known = proxies.get(key);
  if (known) return known;
  const folder = mkdtempSync(join(tmpdir(), 'crow-proxy-'));
  const socket = join(folder, 'proxy.sock');
  const bridge = join(folder, 'bridge.js');
  writeFileSync(bridge, BRIDGE, { mode: 0o600 });
  const allowed = (host: string): boolean => domainAllowed(host, domains);
  const server = createServer((request, response) => forward(request, response, allowed));
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => tunnel(request, client, head, allowed));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  server.unref();
  if (proxies.size === 0) process.once('exit', removeFolders);
  const proxy = { folder, socket, bridge, server };
  proxies.set(key, proxy);
  return proxy;
}

/** Whether `host` is one of `domains`: the same name, or a subdomain of a `*.name` entry. IP literals only when listed as such. */
export function domainAllowed(host: string, domains: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return domains.some((domain) => (domain.startsWith('*.') ? name.endsWith(domain.slice(1)) : name === domain));
}

function removeFolders(): void {
  for (const proxy of proxies.values()) rmSync(proxy.folder, { recursive: true, force: true });
}

function refusal(host: string): string {
  return `crow: the sandbox lets commands reach only the domains of [sandbox] allow_domains, and ${host} is not one of them. If the command needs it, ask the user to add it there.`;
}

/** CONNECT host:port: a tunnel to an allowed host, else 403. */
function tunnel(request: IncomingMessage, client: Socket, head: Buffer, allowed: (host: string) => boolean): void {
  const target = /^\[?([^\]]+?)\]?:(\d+)$/.exec(request.url ?? '');
  client.on('error', () => undefined);
  if (!target || !allowed(target[1]!)) {
    const message = refusal(target?.[1] ?? request.url ?? 'that host');
    client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`);
    return;
  }
  const upstream = connect(Number(target[2]), target[1]!, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', (err) => client.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\ncrow: could not reach ${target[1]}: ${err.message}`));
  client.on('close', () => upstream.destroy());
}

/** A plain HTTP request by absolute URL (`GET http://host/path`): forwarded to an allowed host, else 403. */
function forward(request: IncomingMessage, response: ServerResponse, allowed: (host: string) => boolean): void {
  let url: URL;
  try {
    url = new URL(request.url ?? '');
  } catch {
    response.writeHead(400, { 'Content-Type': 'text/plain' }).end('crow: the sandbox proxy takes absolute http:// URLs and CONNECT only.');
    return;
  }
  if (url.protocol !== 'http:' || !allowed(url.hostname)) {
    response.writeHead(403, { 'Content-Type': 'text/plain' }).end(refusal(url.hostname));
    return;
  }
  const upstream = httpRequest(
    { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || 80, method: request.method, path: `${url.pathname}${url.search}`, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', (err) => {
    if (!response.headersSent) response.writeHead(502, { 'Content-Type': 'text/plain' });
    response.end(`crow: could not reach ${url.hostname}: ${err.message}`);
  });
  request.pipe(upstream);
}
