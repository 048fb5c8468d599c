import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { engines, version } from '../../package.json';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { TestClient } from '../support/acp-client';
import { filesUnder, installOffline, offlineNpmEnv, packCrow } from '../support/npm-package';
import { skipBecause } from '../support/skip-reasons';

const ACPX = resolve(__dirname, '../../node_modules/.bin/acpx');

/** What the package may hold: the crow binary's bundles, the built-in definitions, README, LICENSE. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^dist\/(crow|crow-cli|crow-trace|markdown|otlp|bedrock|vertex)\.js$/,
  /^dist\/builtin-definitions\.json$/,
  /^dist\/webview\/(viewer\.js|viewer\.css|eval-report\.js)$/,
  /^(agents|commands|prompts)\/.+\.(md|hbs|toml)$/,
  // crow eval's built-in task suite: its fixtures (a task's files, hidden tests, solution) are data.
  /^eval\/tasks\/[^/]+\/(?!.*\.map$).+$/,
  // The JSON Schema of config.toml, for TOML editors (#:schema).
  /^schemas\/config\.schema\.json$/,
];

describe('the npm package (npx crow-agent acp), packed and installed offline', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let prefix: string;
  let home: string;
  let installed: string;

  before(async function () {
    const packed = packCrow();
    prefix = mkdtempSync(join(tmpdir(), 'crow-npm-project-'));
    home = mkdtempSync(join(tmpdir(), 'crow-npm-home-'));
    const install = installOffline(packed.tarball, prefix, home);
    assert.equal(install.code, 0, `npm install --offline of the tarball fails:\n${install.output}`);
    installed = join(prefix, 'node_modules', 'crow-agent');
    server = await FakeLlmServer.start();
  });
  after(async () => {
    await server?.close();
    for (const folder of [prefix, home]) if (folder) rmSync(folder, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  it('holds the crow bin, engines and nothing that runs or downloads at install', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.name, 'crow-agent');
    assert.equal(manifest.version, version);
    assert.deepEqual(manifest.bin, { crow: 'dist/crow.js' });
    assert.deepEqual(manifest.engines, { node: engines.node });
    for (const key of ['scripts', 'dependencies', 'peerDependencies', 'bundleDependencies', 'bundledDependencies']) {
      assert.equal(manifest[key], undefined, `the packed package.json has no ${key}`);
    }
    // ripgrep's platform binaries and the OS keychain binding only, optional: npm skips them where it cannot fetch them (as here, offline).
    const optional = Object.keys((manifest.optionalDependencies ?? {}) as Record<string, string>);
    assert.ok(optional.every((name) => name.startsWith('@vscode/ripgrep-') || name === '@napi-rs/keyring'), optional.join(', '));
    assert.deepEqual(readdirSync(join(prefix, 'node_modules')).filter((name) => !name.startsWith('.')), ['crow-agent'], 'nothing else was installed');
  });

  it('holds only the files the binary runs from, and is small', () => {
    const files = filesUnder(installed);
    const stray = files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file.path)));
    assert.deepEqual(stray.map((file) => file.path), [], 'no sources, tests, source maps, .vsix or extension bundles');
    for (const needed of ['dist/crow.js', 'dist/crow-cli.js', 'dist/crow-trace.js', 'dist/builtin-definitions.json', 'agents/base/builder.md', 'prompts/system.hbs', 'README.md', 'LICENSE', 'schemas/config.schema.json']) {
      assert.ok(files.some((file) => file.path === needed), `the package holds ${needed}`);
    }
    const unpacked = files.reduce((sum, file) => sum + file.size, 0);
    const packedSize = statSync(packCrow().tarball).size;
    console.log(`      crow-agent-${version}.tgz: ${(packedSize / 1e6).toFixed(2)} MB packed, ${(unpacked / 1e6).toFixed(2)} MB unpacked, ${files.length} files`);
    assert.ok(unpacked < 10e6, `unpacked under 10 MB (${unpacked} bytes)`);
  });

  it('requires no package from outside itself, except optional pieces each loader does without', () => {
    // Each is asked for inside a try, or is only the text of a message or of generated code.
    const optional = new Map([
      // The OS keychain binding (an optional dependency): crow login keeps keys in a private file without it.
      ['@napi-rs/keyring', 'dist/crow-cli.js'],
      // ws: native speed-ups, used when present.
      ['bufferutil', 'dist/crow-cli.js'],
      ['utf-8-validate', 'dist/crow-cli.js'],
      // The AWS SDK's error message telling how to register its CRT signer (SigV4a, which Bedrock calls do not use).
      ['@aws-sdk/signature-v4-crt', 'dist/bedrock.js'],
      ['@aws-sdk/signature-v4a', 'dist/bedrock.js'],
      // ajv's code generation: the text of generated code (the MCP SDK compiles validators in memory, where these are in scope).
      ['ajv/dist/runtime/validation_error', 'dist/crow-cli.js'],
      ['ajv/dist/runtime/uri', 'dist/crow-cli.js'],
      ['ajv/dist/runtime/ucs2length', 'dist/crow-cli.js'],
      ['ajv/dist/runtime/equal', 'dist/crow-cli.js'],
      ['ajv-formats/dist/formats', 'dist/crow-cli.js'],
    ]);
    const builtins = new Set(builtinModules);
    const found: string[] = [];
    for (const file of filesUnder(join(installed, 'dist')).filter((entry) => entry.path.endsWith('.js') && !entry.path.startsWith('webview/'))) {
      const source = readFileSync(join(installed, 'dist', file.path), 'utf8');
      for (const [, specifier] of source.matchAll(/\brequire\(\s*["']([^"'./][^"']*)["']\s*\)/g)) {
        const name = specifier!.replace(/^node:/, '');
        if (builtins.has(name) || builtins.has(name.split('/')[0]!)) continue;
        if (optional.get(specifier!) === `dist/${file.path}`) continue;
        found.push(`${specifier} in dist/${file.path}`);
      }
    }
    assert.deepEqual(found, [], 'a package the bundles would load from node_modules, which the npm package does not have');
  });

  it('answers initialize in under a second from the installed bin', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'crow-npm-ws-'));
    try {
      // The best of three: the first start also writes the code cache, and the machine is shared.
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const child = spawn(join(prefix, 'node_modules', '.bin', 'crow'), ['acp'], { cwd: workspace, env: offlineNpmEnv(home) });
        const client = new TestClient(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>));
        const init = await client.initialize();
        times.push(Date.now() - started);
        assert.equal(init.agentInfo?.version, version);
        client.close();
        child.stdin.end();
        await new Promise((done) => child.on('close', done));
      }
      console.log(`      spawn → initialize answered: ${times.join(', ')} ms`);
      assert.ok(Math.min(...times) < 1000, `ready in under a second (${times.join(', ')} ms)`);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('searches with the ripgrep npm installs beside it, and without one says what to install', async function () {
    const platformPackage = `ripgrep-${process.platform}-${process.arch}`;
    const source = resolve(__dirname, '../../node_modules/@vscode', platformPackage);
    if (!existsSync(source)) skipBecause(this, `no @vscode/${platformPackage} in node_modules to stand in for the one npm fetches`);
    writeFileSync(join(prefix, 'haystack.txt'), 'hay\nneedle here\nhay\n');
    /** One prompt whose model greps for the needle; the text of the tool result the model got back. */
    const grepOnce = async (env: NodeJS.ProcessEnv): Promise<string> => {
      server.reset();
      server.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'grep', arguments: { pattern: 'needle' } }] },
        { blocks: [{ type: 'text', text: 'Searched.' }] },
      );
      const child = spawn(join(prefix, 'node_modules', '.bin', 'crow'), ['acp'], { cwd: prefix, env });
      const client = new TestClient(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>), { permission: () => 'allow_once' });
      try {
        await client.initialize();
        const { sessionId } = await client.newSession(prefix);
        assert.equal((await client.prompt(sessionId, 'Find the needle')).stopReason, 'end_turn');
      } finally {
        client.close();
        child.stdin.end();
        await new Promise((done) => child.on('close', done));
      }
      return JSON.stringify(server.requestsFor('anthropic')[1]?.body.messages.at(-1));
    };
    // A PATH with node alone (the bin's `#!/usr/bin/env node` needs it) and no rg: what the offline install gives.
    const nodeOnly = join(home, 'node-only');
    mkdirSync(nodeOnly, { recursive: true });
    if (!existsSync(join(nodeOnly, 'node'))) symlinkSync(process.execPath, join(nodeOnly, 'node'));
    const env = offlineNpmEnv(home, { ANTHROPIC_API_KEY: 'test-key-123', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, PATH: nodeOnly });
    assert.match(await grepOnce(env), /Could not start ripgrep.*Install ripgrep, or set CROW_RG_PATH/);
    // Where npm could fetch it, the optional dependency lies beside crow-agent, and the binary finds it there.
    cpSync(source, join(prefix, 'node_modules', '@vscode', platformPackage), { recursive: true });
    try {
      assert.match(await grepOnce(env), /haystack\.txt.*needle here/);
    } finally {
      rmSync(join(prefix, 'node_modules', '@vscode'), { recursive: true, force: true });
    }
  });

  it('runs `npx crow-agent acp` in the project it is installed in, driven by acpx: initialize, session/new, a prompt answered', async function () {
    // acpx cannot be a devDependency (see acp-binary.test.ts); CI installs it (.ci/run).
    if (!existsSync(ACPX)) skipBecause(this, 'no acpx (npm install --no-save acpx@0.19.1)');
    writeFileSync(join(prefix, 'greet.ts'), 'export const greeting = "helo";\n');
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'edit_file', arguments: { path: 'greet.ts', old_string: '"helo"', new_string: '"hello"' } }] },
      { blocks: [{ type: 'text', text: 'Fixed the typo from the npm package.' }] },
    );
    const env = offlineNpmEnv(home, { ANTHROPIC_API_KEY: 'test-key-123', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const child = spawn(ACPX, ['--agent', 'npx --offline crow-agent acp', '--cwd', prefix, '--approve-all', '--format', 'json', 'exec', 'Fix the typo in greet.ts'], { cwd: prefix, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    assert.equal(code, 0, output);
    assert.equal(readFileSync(join(prefix, 'greet.ts'), 'utf8'), 'export const greeting = "hello";\n');
    assert.match(output, /Fixed the typo from the npm package\./);
    for (const method of ['initialize', 'session/new', 'session/prompt']) assert.match(output, new RegExp(`"method":"${method}"`), `acpx sent ${method}`);
    assert.match(output, /"stopReason":"end_turn"/);
  });
});
