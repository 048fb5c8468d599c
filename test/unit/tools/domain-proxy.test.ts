/**
 * The `[sandbox] allow_domains` proxy decides on what is reached: the name,
 * the address it resolves to (once), the port, and a Host header or TLS
 * server name that must name the target. Names resolve through a table
 * here (no DNS in tests), to a local server standing in for a site.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { type DomainProxy, startDomainProxy } from '../../../src/tools/domain-proxy';
import type { ProxyRules } from '../../../src/tools/proxy-target';

function listening<T extends Server | TcpServer>(server: T): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

/** A plain request through the proxy's socket: its status and body. */
function viaProxy(proxy: DomainProxy, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // As a client of a proxy sends it: the Host header names the URL's host, unless the test says otherwise.
    const sent = 'Host' in headers ? headers : { Host: URL.parse(url)?.host ?? '', ...headers };
    const request = httpRequest({ socketPath: proxy.socket, path: url, headers: sent, setHost: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Sends a CONNECT (with these extra header lines) and resolves the socket, paused, with the proxy's answer head once it came. */
function tunnel(proxy: DomainProxy, target: string, extra = ''): Promise<{ socket: Socket; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.socket);
    let answer = '';
    socket.on('error', reject);
    const onData = (chunk: Buffer): void => {
      answer += chunk.toString('latin1');
      const end = answer.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      socket.pause();
      const rest = answer.slice(end + 4);
      if (rest.length > 0) socket.unshift(Buffer.from(rest, 'latin1'));
      resolve({ socket, answer: answer.slice(0, end) });
    };
    socket.on('data', onData);
    socket.on('end', () => resolve({ socket, answer }));
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${extra}\r\n`);
  });
}

function until(condition: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 5_000;
    const check = (): void => {
      if (condition()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(check, 10);
    };
    check();
  });
}

describe('the allow_domains proxy', () => {
  let site: Server;
  let sitePort: number;
  let raw: TcpServer;
  let rawPort: number;
  let hits: { url: string; host: string }[];
  let rawBytes: Buffer;
  let lookups: string[];
  let proxies: { close(): void }[];
  /** Where each test name resolves. */
  const TABLE: Record<string, string[]> = {
    'site.test': ['127.0.0.1'],
    'rebind.test': ['93.184.215.14', '127.0.0.1'],
    'public.test': ['93.184.215.14'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'private.test': ['10.1.2.3'],
    'cgnat.test': ['100.64.0.9'],
    'linklocal.test': ['169.254.10.10'],
    'metadata.test': ['169.254.169.254'],
    'ula.test': ['fd12::1'],
    'zero.test': ['0.0.0.0'],
    'unspecified6.test': ['::'],
    'multicast.test': ['239.1.1.1'],
  };
  const resolve = async (name: string): Promise<LookupAddress[]> => {
    lookups.push(name);
    const found = TABLE[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const start = async (rules: Partial<ProxyRules>): Promise<DomainProxy> => {
    const proxy = await startDomainProxy({ domains: ['site.test'], ports: [sitePort, rawPort], privateAddresses: true, ...rules }, resolve);
    proxies.push(proxy);
    return proxy;
  };

  before(async () => {
    site = createServer((request, response) => {
      hits.push({ url: request.url ?? '', host: request.headers.host ?? '' });
      response.end('site answered');
    });
    sitePort = await listening(site);
    raw = createTcpServer((socket) => socket.on('data', (chunk: Buffer) => (rawBytes = Buffer.concat([rawBytes, chunk]))).on('error', () => undefined));
    rawPort = await listening(raw);
  });
  after(() => {
    site.close();
    raw.close();
  });
  beforeEach(() => {
    hits = [];
    rawBytes = Buffer.alloc(0);
    lookups = [];
    proxies = [];
  });
  afterEach(() => proxies.forEach((proxy) => proxy.close()));

  describe('plain requests', () => {
    it('reach an allowed name at the address it resolved to, once, with the Host header that names it', async () => {
      const proxy = await start({});
      const answer = await viaProxy(proxy, `http://site.test:${sitePort}/page?x=1`, { 'Proxy-Authorization': 'Basic eA==' });
      assert.deepEqual(answer, { status: 200, body: 'site answered' });
      assert.deepEqual(hits, [{ url: '/page?x=1', host: `site.test:${sitePort}` }]);
      assert.deepEqual(lookups, ['site.test'], 'resolved once');
    });

    it('refuse a Host header that names another host (domain fronting), saying so', async () => {
      const proxy = await start({});
      for (const host of ['elsewhere.example', `elsewhere.example:${sitePort}`, `site.test:${sitePort + 1}`, 'site.test', 'site.test@evil', '']) {
        const answer = await viaProxy(proxy, `http://site.test:${sitePort}/`, { Host: host });
        assert.equal(answer.status, 400, host);
        assert.match(answer.body, /the request is for site\.test:\d+ but its Host header says .*: the sandbox's proxy sends a request only to the host it is for/);
      }
      assert.deepEqual(hits, []);
      assert.deepEqual(lookups, [], 'refused before any lookup');
    });

    it('refuse a name that is not allowed, and an https:// URL sent as a plain request', async () => {
      const proxy = await start({});
      const other = await viaProxy(proxy, `http://other.test:${sitePort}/`);
      assert.equal(other.status, 403);
      assert.match(other.body, /only the domains of \[sandbox\] allow_domains, and other\.test is not one of them/);
      assert.equal((await viaProxy(proxy, `https://site.test:${sitePort}/`)).status, 400);
      assert.deepEqual(hits, []);
    });

    it('refuse a port that is not allowed, naming the setting', async () => {
      const proxy = await start({ ports: [443, 80] });
      const answer = await viaProxy(proxy, `http://site.test:${sitePort}/`);
      assert.equal(answer.status, 403);
      assert.match(answer.body, new RegExp(`reaches site\\.test on ports 443, 80 only, not ${sitePort}\\. .*add ${sitePort} to \\[sandbox\\] allow_ports`));
      assert.deepEqual(hits, []);
    });

    it('refuse a name that resolves to any address not public, whatever its other addresses, unless private addresses are allowed', async () => {
      const names: [string, RegExp][] = [
        ['site.test', /resolves to 127\.0\.0\.1, a loopback address/],
        ['rebind.test', /resolves to 127\.0\.0\.1, a loopback address/],
        ['mapped.test', /resolves to ::ffff:127\.0\.0\.1, a loopback address/],
        ['private.test', /a private address/],
        ['cgnat.test', /a carrier-grade NAT address/],
        ['linklocal.test', /a link-local address/],
        ['metadata.test', /a cloud metadata address/],
        ['ula.test', /a private address/],
        ['zero.test', /an unspecified address/],
        ['unspecified6.test', /an unspecified address/],
        ['multicast.test', /a multicast address/],
        ['localhost', /localhost is a loopback address/],
        ['api.localhost', /api\.localhost is a loopback address/],
        ['127.0.0.1', /127\.0\.0\.1 is a loopback address/],
        ['[::1]', /::1 is a loopback address/],
      ];
      const proxy = await start({ domains: names.map(([name]) => name.replace(/^\[|\]$/g, '')), privateAddresses: false });
      for (const [name, why] of names) {
        const answer = await viaProxy(proxy, `http://${name}:${sitePort}/`);
        assert.equal(answer.status, 403, name);
        assert.match(answer.body, why, name);
        assert.match(answer.body, /does not reach loopback, private, link-local or cloud metadata addresses; .*allow_private_addresses = true under \[sandbox\]/, name);
      }
      assert.deepEqual(hits, []);
      const allowed = await start({ domains: ['site.test'], privateAddresses: true });
      assert.equal((await viaProxy(allowed, `http://site.test:${sitePort}/`)).status, 200, 'allowed when the user says so');
    });

    it('say when a name does not resolve', async () => {
      const proxy = await start({ domains: ['*.test'] });
      const answer = await viaProxy(proxy, `http://nowhere.test:${sitePort}/`);
      assert.equal(answer.status, 502);
      assert.match(answer.body, /could not resolve nowhere\.test: getaddrinfo ENOTFOUND/);
    });
  });

  describe('CONNECT tunnels', () => {
    it('open to an allowed name and port, and carry bytes both ways', async () => {
      const proxy = await start({});
      const { socket, answer } = await tunnel(proxy, `site.test:${rawPort}`);
      assert.match(answer, /^HTTP\/1\.1 200 /);
      socket.write('hello over the tunnel');
      await until(() => rawBytes.toString() === 'hello over the tunnel', 'the bytes upstream');
      socket.destroy();
    });

    it('refuse a port, an address and a name as plain requests are refused, and a Host header naming another host', async () => {
      const cases: [Partial<ProxyRules>, string, string, RegExp][] = [
        [{ ports: [443, 80] }, `site.test:${rawPort}`, '', /^HTTP\/1\.1 403 [^]*ports 443, 80 only/],
        [{ privateAddresses: false }, `site.test:${rawPort}`, '', /^HTTP\/1\.1 403 [^]*resolves to 127\.0\.0\.1, a loopback address/],
        [{}, `other.test:${rawPort}`, '', /^HTTP\/1\.1 403 [^]*other\.test is not one of them/],
        [{}, `site.test:${rawPort}`, 'Host: elsewhere.example\r\n', /^HTTP\/1\.1 400 [^]*Host header says elsewhere\.example/],
      ];
      for (const [rules, target, extra, expected] of cases) {
        const proxy = await start(rules);
        const socket = connect(proxy.socket);
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        const ended = new Promise((done) => socket.on('close', done));
        socket.write(`CONNECT ${target} HTTP/1.1\r\n${extra || `Host: ${target}\r\n`}\r\n`);
        await ended;
        assert.match(answer, expected, `${target} ${JSON.stringify(rules)}`);
      }
      assert.equal(rawBytes.length, 0);
    });

    it('close a TLS tunnel whose client asks for another server name, before a byte reaches the server', async () => {
      const proxy = await start({});
      for (const [servername, passes] of [
        ['evil.example', false],
        ['site.test', true],
      ] as const) {
        rawBytes = Buffer.alloc(0);
        const { socket, answer } = await tunnel(proxy, `site.test:${rawPort}`);
        assert.match(answer, /^HTTP\/1\.1 200 /);
        const closed = new Promise((done) => socket.on('close', done));
        const secure = tlsConnect({ socket, servername, rejectUnauthorized: false });
        secure.on('error', () => undefined);
        if (passes) {
          await until(() => rawBytes.length > 0 && rawBytes.includes(Buffer.from('site.test')), 'the ClientHello upstream');
          assert.equal(rawBytes[0], 0x16, 'a TLS handshake record reached the server');
          secure.destroy();
        } else {
          await closed;
          assert.equal(rawBytes.length, 0, 'nothing of a ClientHello for evil.example reached the server');
        }
      }
    });

    it('serve plain HTTP inside a tunnel request by request, each Host header checked', async () => {
      const proxy = await start({});
      const { socket, answer } = await tunnel(proxy, `site.test:${sitePort}`);
      assert.match(answer, /^HTTP\/1\.1 200 /);
      let said = '';
      socket.on('data', (chunk: Buffer) => (said += chunk.toString())).resume();
      socket.write(`GET /first HTTP/1.1\r\nHost: site.test:${sitePort}\r\n\r\n`);
      await until(() => said.includes('site answered'), 'the first answer');
      socket.write(`GET /fronted HTTP/1.1\r\nHost: elsewhere.example\r\n\r\n`);
      await until(() => said.includes('400 Bad Request'), 'the refusal');
      assert.match(said, /the request is for site\.test:\d+ but its Host header says elsewhere\.example/);
      assert.deepEqual(hits, [{ url: '/first', host: `site.test:${sitePort}` }]);
      socket.destroy();
    });

    it('pass a protocol whose server speaks first', async () => {
      const banner = createTcpServer((socket) => socket.end('SSH-2.0-stand-in\r\n'));
      const bannerPort = await listening(banner);
      try {
        const proxy = await start({ ports: [bannerPort] });
        const { socket, answer } = await tunnel(proxy, `site.test:${bannerPort}`);
        assert.match(answer, /^HTTP\/1\.1 200 /);
        let said = '';
        socket.on('data', (chunk: Buffer) => (said += chunk.toString())).resume();
        await until(() => said.includes('SSH-2.0-stand-in'), 'the banner');
        socket.destroy();
      } finally {
        banner.close();
      }
    });
  });
});
