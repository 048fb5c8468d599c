/**
 * Network by domain for sandboxed commands: `[sandbox] allow_domains`.
 *
 * The sandbox keeps its own network namespace (nothing outside reachable,
 * not even the host's loopback). Crow runs an HTTP proxy on a Unix socket in
 * a private folder, which is bound into the sandbox; inside, a small Node
 * bridge listens on the sandbox's own 127.0.0.1:SANDBOX_PROXY_PORT, passes
 * each connection to that socket, and runs the command with HTTP_PROXY and
 * HTTPS_PROXY pointing at it. The proxy answers CONNECT (HTTPS and other
 * tunnels, see proxy-tunnel.ts) and plain HTTP requests (proxy-relay.ts)
 * for the allowed hosts, on the allowed ports, at public addresses only
 * unless the user allows others, each request held to the host it names
 * (proxy-target.ts); anything else gets an HTTP error with a sentence saying
 * why and how to allow it. Programs that ignore the proxy variables reach
 * nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forwardRequest } from './proxy-relay';
import { type ProxyRules, type ResolveName, resolveWithDns } from './proxy-target';
import { openTunnel } from './proxy-tunnel';

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

/** A running proxy for one set of rules. */
export interface DomainProxy {
  /** The private folder holding the proxy's socket and the bridge script; bind it into the sandbox at the same path. */
  folder: string;
  socket: string;
  bridge: string;
}

const proxies = new Map<string, Promise<DomainProxy>>();

/** The proxy for `rules`, started on first use and kept for the life of the process. */
export function domainProxy(rules: ProxyRules): Promise<DomainProxy> {
  const key = JSON.stringify([[...rules.domains].sort(), [...rules.ports].sort(), rules.privateAddresses]);
  let proxy = proxies.get(key);
  if (!proxy) {
    proxy = startDomainProxy(rules, resolveWithDns);
    proxies.set(key, proxy);
    proxy.catch(() => proxies.delete(key));
  }
  return proxy;
}

/** A new proxy for `rules` that looks names up with `resolve`; `close` stops it and removes its folder. */
export async function startDomainProxy(rules: ProxyRules, resolve: ResolveName): Promise<DomainProxy & { close(): void }> {
  const folder = mkdtempSync(join(tmpdir(), 'crow-proxy-'));
  const socket = join(folder, 'proxy.sock');
  const bridge = join(folder, 'bridge.js');
  writeFileSync(bridge, BRIDGE, { mode: 0o600 });
  const server = createServer((request, response) => void forwardRequest(request, response, rules, resolve));
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => void openTunnel(request, client, head, rules, resolve));
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(socket, () => done());
  });
  server.unref();
  const remove = (): void => rmSync(folder, { recursive: true, force: true });
  process.once('exit', remove);
  return {
    folder,
    socket,
    bridge,
    close: () => {
      server.closeAllConnections();
      server.close();
      process.off('exit', remove);
      remove();
    },
  };
}
