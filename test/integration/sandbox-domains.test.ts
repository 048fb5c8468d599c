/**
 * `[sandbox] allow_domains`: `npm install` inside the sandbox reaches a
 * registry on a named domain (a local server stands in for it: no internet
 * here) through Crow's filtering proxy, while every other host, the
 * host's own loopback included, stays out of reach. The proxy decides on
 * what is reached: a Host header or TLS server name naming another host, a
 * port other than 443 and 80 and a name that leads to loopback are refused
 * unless the user's settings allow them. Through the real binary; the
 * stand-in servers listen on loopback, which `localhost` names whatever the
 * resolver says (RFC 6761), so allowing it needs allow_private_addresses.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { SANDBOX_PROXY_PORT } from '../../src/tools/domain-proxy';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed } from '../support/sandbox';

const PACKAGE = 'crow-fixture-pad';

/** A package tarball made with npm pack, and the integrity npm checks it against. */
function packedFixture(folder: string): { tarball: Buffer; integrity: string; shasum: string } {
  const source = join(folder, 'source');
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, 'package.json'), JSON.stringify({ name: PACKAGE, version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(source, 'index.js'), "module.exports = (text) => `  ${text}`;\n");
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', folder], { cwd: source, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  const tarball = readFileSync(join(folder, name));
  return {
    tarball,
    integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
    shasum: createHash('sha1').update(tarball).digest('hex'),
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

describeSandboxed('[sandbox] allow_domains: named domains through the proxy, nothing else', function () {
  this.timeout(90_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;
  let registry: Server;
  let elsewhere: Server;
  let registryHits: string[];
  let elsewhereHits: string[];
  let registryPort: number;
  let elsewherePort: number;

  before(async () => {
    llm = await FakeLlmServer.start();
    const fixtures = mkdtempSync(join(tmpdir(), 'crow-registry-'));
    const packed = packedFixture(fixtures);
    registry = createServer((request, response) => {
      registryHits.push(request.url ?? '');
      const base = `http://localhost:${registryPort}`;
      if (request.url === `/${PACKAGE}`) {
        const dist = { tarball: `${base}/${PACKAGE}/-/${PACKAGE}-1.0.0.tgz`, integrity: packed.integrity, shasum: packed.shasum };
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ name: PACKAGE, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name: PACKAGE, version: '1.0.0', dist } } }));
      } else if (request.url === `/${PACKAGE}/-/${PACKAGE}-1.0.0.tgz`) {
        response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        response.end(packed.tarball);
      } else {
        response.writeHead(404).end('{}');
      }
    });
    elsewhere = createServer((request, response) => {
      elsewhereHits.push(request.url ?? '');
      response.end('reached\n');
    });
    registryPort = await listen(registry);
    elsewherePort = await listen(elsewhere);
    rmSync(fixtures, { recursive: true, force: true });
  });
  after(async () => {
    await llm.close();
    registry.close();
    elsewhere.close();
  });
  beforeEach(() => {
    llm.reset();
    registryHits = [];
    elsewhereHits = [];
    home = mkdtempSync(join(tmpdir(), 'crow-domains-home-'));
    root = mkdtempSync(join(tmpdir(), 'crow-domains-ws-'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { [PACKAGE]: '1.0.0' } }));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  /** Runs `command` with the bash tool under `sandbox` (the [sandbox] table's lines); what the model was told, and the run. */
  async function runCommand(sandbox: string, command: string): Promise<{ told: string; code: number | null; stderr: string }> {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), `[sandbox]\n${sandbox}\n`);
    llm.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command } }] }, { blocks: [{ type: 'text', text: 'Done.' }] });
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test-0123456789', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const run = await runCrow(['run', 'Run it', '--cwd', root, '--provider', 'anthropic', '--model', 'claude-test'], env, root);
    const told = run.code === 0 ? JSON.stringify(llm.requestsFor('anthropic').at(-1)?.body.messages.at(-1)) : '';
    return { told, code: run.code, stderr: run.stderr };
  }

  it('npm install reaches the allowed registry; another host gets 403, and nothing is reached directly', async () => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'crow-agent', 'config.toml'),
      `[sandbox]\nallow_domains = ["localhost"]\nallow_ports = [${registryPort}]\nallow_private_addresses = true\n`,
    );
    const install = `npm install --registry http://localhost:${registryPort}/ --no-audit --no-fund --loglevel=error && node -e "console.log(require('${PACKAGE}')('installed'))"`;
    const other = `curl -s -m 5 http://127.0.0.1:${elsewherePort}/via-proxy; echo " curl: $?"`;
    const direct = `(exec 3<>/dev/tcp/127.0.0.1/${registryPort}) 2>/dev/null && echo direct-reached || echo direct-refused`;
    llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: `${install}; ${other}; ${direct}` } }] },
      { blocks: [{ type: 'text', text: 'Installed.' }] },
    );
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test-0123456789', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const run = await runCrow(['run', 'Install the dependencies', '--cwd', root, '--provider', 'anthropic', '--model', 'claude-test'], env, root);
    assert.equal(run.code, 0, run.stderr);
    const told = JSON.stringify(llm.requestsFor('anthropic')[1]!.body.messages.at(-1));
    assert.match(told, /  installed/, `npm install did not work: ${told}`);
    assert.ok(existsSync(join(root, 'node_modules', PACKAGE, 'index.js')));
    assert.ok(registryHits.some((url) => url.endsWith('.tgz')), 'the tarball came from the registry');
    assert.match(told, /127\.0\.0\.1 is not one of them/, 'the other host was refused by the proxy, saying how to allow it');
    assert.deepEqual(elsewhereHits, [], 'a host not in allow_domains was reached');
    assert.match(told, /direct-refused/, 'the network is otherwise off');
  });

  it('refuses a Host header that names another host than the request, plain or in a CONNECT (domain fronting)', async () => {
    const plain = `curl -s -m 5 http://localhost:${registryPort}/fronted -H 'Host: elsewhere.example'; echo " curl: $?"`;
    const tunnelled = `curl -s -S -m 5 -p --proxy-header 'Host: elsewhere.example' http://localhost:${registryPort}/fronted-tunnel 2>&1; echo " curl: $?"`;
    const { told, code, stderr } = await runCommand('allow_domains = ["localhost"]', `${plain}; ${tunnelled}`);
    assert.equal(code, 0, stderr);
    assert.match(told, /the request is for localhost:\d+ but its Host header says elsewhere\.example: the sandbox's proxy sends a request only to the host it is for/);
    assert.match(told, /CONNECT tunnel failed, response 400/);
    assert.deepEqual(registryHits, [], 'neither request reached the server');
  });

  it('refuses an allowed name that leads to loopback, unless allow_private_addresses says so', async () => {
    const command = `curl -s -m 5 http://localhost:${registryPort}/by-name; echo " curl: $?"; curl -s -m 5 http://127.0.0.1:${registryPort}/by-address; echo " curl: $?"`;
    const { told, code, stderr } = await runCommand('allow_domains = ["localhost", "127.0.0.1"]', command);
    assert.equal(code, 0, stderr);
    assert.match(told, /localhost is a loopback address\. The sandbox's proxy does not reach loopback, private, link-local or cloud metadata addresses; .*allow_private_addresses = true under \[sandbox\]/);
    assert.match(told, /127\.0\.0\.1 is a loopback address/);
    assert.deepEqual(registryHits, [], 'the host\'s own services stay out of reach');
  });

  it('reaches ports 443 and 80 only, unless allow_ports lists another', async () => {
    const command = `curl -s -m 5 http://localhost:${registryPort}/port; echo " curl: $?"; curl -s -S -m 5 -p http://localhost:${elsewherePort}/port-tunnel 2>&1; echo " curl: $?"`;
    const { told, code, stderr } = await runCommand(`allow_domains = ["localhost"]\nallow_private_addresses = true\nallow_ports = [${registryPort}]`, command);
    assert.equal(code, 0, stderr);
    assert.deepEqual(registryHits, ['/port'], 'a listed port is reached');
    assert.match(told, /CONNECT tunnel failed, response 403/);
    assert.deepEqual(elsewhereHits, [], 'a port not listed is not');
    const unlisted = await runCommand('allow_domains = ["localhost"]\nallow_private_addresses = true', `curl -s -m 5 http://localhost:${registryPort}/default-ports; echo " curl: $?"`);
    assert.match(unlisted.told, new RegExp(`reaches localhost on ports 443, 80 only, not ${registryPort}\\. If the command needs that port, ask the user to add ${registryPort} to \\[sandbox\\] allow_ports`));
    assert.deepEqual(registryHits, ['/port']);
  });

  it('cuts off a TLS client in a tunnel that asks the allowed host\'s address for another server name', async () => {
    const received: string[] = [];
    const raw = createTcpServer((socket) => socket.on('data', (chunk: Buffer) => received.push(chunk.toString('latin1'))).on('error', () => undefined));
    const rawPort = await new Promise<number>((done) => raw.listen(0, '127.0.0.1', () => done((raw.address() as AddressInfo).port)));
    try {
      // CONNECT through the sandbox's proxy, then TLS asking for evil.example (SNI), then for localhost.
      const script = [
        "const net = require('net'); const tls = require('tls');",
        'const hello = (name) => new Promise((done) => {',
        `  const socket = net.connect(${SANDBOX_PROXY_PORT}, '127.0.0.1', () => socket.write('CONNECT localhost:${rawPort} HTTP/1.1\\r\\nHost: localhost:${rawPort}\\r\\n\\r\\n'));`,
        "  socket.once('data', (answer) => {",
        "    const secure = tls.connect({ socket, servername: name, rejectUnauthorized: false });",
        "    secure.on('error', () => undefined);",
        "    socket.on('close', () => done(name + ': closed'));",
        "    setTimeout(() => { socket.destroy(); done(name + ': open'); }, 1500);",
        '  });',
        '});',
        "hello('evil.example').then((a) => hello('localhost').then((b) => console.log(a + '; ' + b)));",
      ].join('\n');
      writeFileSync(join(root, 'sni.js'), script);
      const { told, code, stderr } = await runCommand(`allow_domains = ["localhost"]\nallow_private_addresses = true\nallow_ports = [${rawPort}]`, 'node sni.js');
      assert.equal(code, 0, stderr);
      assert.match(told, /evil\.example: closed/);
      const all = received.join('');
      assert.ok(all.includes('localhost'), 'the ClientHello that names localhost reached the server');
      assert.ok(!all.includes('evil.example'), 'the one that names evil.example did not');
    } finally {
      raw.close();
    }
  });
});
