/**
 * `[sandbox] allow_domains`: `npm install` inside the sandbox reaches a
 * registry on a named domain (a local server stands in for it: no internet
 * here) through Crow's filtering proxy, while every other host, the
 * host's own loopback included, stays out of reach. Through the real binary.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../src/testing/fake-llm-server';
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
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[sandbox]\nallow_domains = ["localhost"]\n');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('npm install reaches the allowed registry; another host gets 403, and nothing is reached directly', async () => {
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
});
