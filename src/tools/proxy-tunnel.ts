/**
 * CONNECT through the `[sandbox] allow_domains` proxy: a tunnel to an
 * allowed host and port (see proxy-target.ts), to the address judged. The
 * tunnel is held to its target too: a TLS client must not ask for another
 * server name (SNI) than the one it tunnels to, and plain HTTP inside it is
 * served request by request with each Host header checked (see
 * proxy-relay.ts). Anything else (a protocol on a port the user allowed)
 * passes as it is.
 */
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { serveTunnelRequests } from './proxy-relay';
import { bareHost, hostHeaderNames, hostMismatch, isRefusal, judgeTarget, type ProxyRules, type Refusal, type ResolveName, type Target } from './proxy-target';
import { readClientHello } from './tls-client-hello';

/** An HTTP/1 request line's start: a method and a space. */
const HTTP_REQUEST = /^[A-Z]{3,16} /;

export async function openTunnel(request: IncomingMessage, client: Socket, head: Buffer, rules: ProxyRules, resolve: ResolveName): Promise<void> {
  client.on('error', () => undefined);
  const asked = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(request.url ?? '');
  if (!asked) return answer(client, { status: 400, message: `crow: CONNECT takes host:port, not ${request.url}.` });
  const port = Number(asked[2]);
  const host = request.headers.host;
  if (host !== undefined && !hostHeaderNames(host, asked[1]!, port)) return answer(client, hostMismatch(host, request.url!));
  const target = await judgeTarget(asked[1]!, port, rules, resolve);
  if (isRefusal(target)) return answer(client, target);
  const upstream = connect(target.port, target.address, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    watchFirstBytes(client, upstream, head, target);
  });
  upstream.on('error', (err) => answer(client, { status: 502, message: `crow: could not reach ${target.host}: ${err.message}` }));
  client.on('close', () => upstream.destroy());
}

/** Answers a CONNECT that opens no tunnel, and closes. */
function answer(client: Socket, refusal: Refusal): void {
  const body = `${refusal.message}\n`;
  const reason = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[refusal.status];
  client.end(`HTTP/1.1 ${refusal.status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Decides what the tunnel carries from the client's first bytes: TLS (its
 * server name checked), plain HTTP (served request by request), or, when
 * neither or when the server speaks first, bytes passed as they are.
 */
function watchFirstBytes(client: Socket, upstream: Socket, head: Buffer, target: Target): void {
  let seen = head;
  const stopWatching = (): void => {
    client.off('data', onClient);
    upstream.off('data', onServer);
  };
  const passThrough = (first?: Buffer): void => {
    stopWatching();
    if (seen.length > 0) upstream.write(seen);
    if (first) client.write(first);
    upstream.pipe(client);
    client.pipe(upstream);
  };
  const decide = (): void => {
    if (seen.length === 0) return;
    if (HTTP_REQUEST.test(seen.subarray(0, 17).toString('latin1'))) {
      stopWatching();
      upstream.destroy();
      client.pause();
      return serveTunnelRequests(client, seen, target);
    }
    const hello = readClientHello(seen);
    if (hello.kind === 'more') return;
    // A client that asks for another server than it tunnels to would reach whatever else that address serves.
    if (hello.kind === 'hello' && hello.serverName !== undefined && bareHost(hello.serverName) !== target.host) {
      stopWatching();
      upstream.destroy();
      return void client.destroy();
    }
    passThrough();
  };
  const onClient = (chunk: Buffer): void => {
    seen = Buffer.concat([seen, chunk]);
    decide();
  };
  // The server speaks first (SSH, SMTP): no HTTP or TLS client there.
  const onServer = (chunk: Buffer): void => passThrough(chunk);
  client.on('data', onClient);
  upstream.on('data', onServer);
  decide();
}
