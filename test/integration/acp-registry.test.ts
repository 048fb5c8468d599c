/**
 * The ACP registry's verification of registry/crow-agent, run on the packed
 * npm package. Their CI runs `npx --prefix SANDBOX --yes crow-agent@VERSION
 * acp` (verify_agents.py build_agent_command, lines 365-371 at 3de1678),
 * which downloads the package; here the tarball is installed offline into
 * that sandbox first, so the same command finds it there instead of on the
 * network. The checks themselves are mirrored in test/support/acp-registry.ts;
 * with ACP_REGISTRY_CHECKOUT naming a checkout of
 * github.com/agentclientprotocol/registry, their own Python scripts run too.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { version } from '../../package.json';
import { installOffline, offlineNpmEnv, packCrow } from '../support/npm-package';
import { RawAgent, registryChecks } from '../support/registry-probe';
import { skipBecause } from '../support/skip-reasons';

const ENTRY = resolve(__dirname, '../../registry/crow-agent');
const entry = JSON.parse(readFileSync(join(ENTRY, 'agent.json'), 'utf8')) as { id: string; distribution: { npx: { package: string; args: string[] } } };

/** Their npx command for the entry (verify_agents.py line 370). */
function npxCommand(sandbox: string): string[] {
  return ['npx', '--prefix', sandbox, '--yes', entry.distribution.npx.package, ...entry.distribution.npx.args];
}

describe('the ACP registry verification, on the packed package', function () {
  this.timeout(120_000);
  let root: string;
  let sandbox: string;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-registry-'));
    // verify_agents.py verify_agent (lines 509-523): .sandbox/<distribution>/<id>/.
    sandbox = join(root, '.sandbox', 'npx', entry.id);
    mkdirSync(sandbox, { recursive: true });
    const install = installOffline(packCrow().tarball, sandbox, join(root, 'npm-home'));
    assert.equal(install.code, 0, install.output);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('starts: the launch check of verify_agents.py (verify_npx) with stdin closed', async () => {
    // verify_npx (lines 253-280) and run_process (109-140): stdin is /dev/null; still running after 10 s,
    // exited 0, or an exit whose output mentions input, prompt or stdin all pass.
    const [command, ...args] = npxCommand(sandbox);
    const child = spawn(command!, args, { cwd: sandbox, env: offlineNpmEnv(join(root, 'npm-home')), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill(), 10_000);
    const code = await new Promise<number | null>((done) => child.on('close', done));
    clearTimeout(timer);
    assert.ok(code === 0 || code === null || /input|prompt|stdin/i.test(output), `exit ${code}:\n${output}`);
  });

  it('answers the auth check and the protocol matrix probes', async () => {
    // verify_auth: HOME is the sandbox's auth-home and the sandbox's bin folders lead PATH (at de6cdae5); run_auth_check sets TERM=dumb.
    const home = join(sandbox, 'auth-home');
    const workspace = join(sandbox, 'workspace');
    mkdirSync(workspace, { recursive: true });
    const env = offlineNpmEnv(join(root, 'npm-home'), { TERM: 'dumb' });
    env.HOME = home;
    env.PATH = [join(home, '.local', 'bin'), join(sandbox, 'node_modules', '.bin'), env.PATH].join(delimiter);
    const started = Date.now();
    const [command, ...args] = npxCommand(sandbox);
    const agent = new RawAgent(command!, args, { cwd: sandbox, env });
    try {
      const report = await registryChecks(agent, workspace, started);
      console.log(`      initialize answered after ${report.initializeMs} ms through npx; probes: ${JSON.stringify(report.probes)}`);
      assert.equal(report.authProblem, undefined, 'an auth method of type agent or terminal');
      assert.equal(report.initialize.protocolVersion, 1);
      assert.equal(report.sessionNew, 'success');
      assert.deepEqual(report.advertised, { loadSession: true, list: true, fork: true, resume: true, close: true });
      assert.deepEqual(report.probes, {
        'session/list': 'success',
        'session/fork': 'success',
        'session/resume': 'success',
        // No session/set_model in ACP v1: Crow's models are config options (category "model").
        'session/set_model': 'method_not_found',
        'session/close': 'success',
      });
    } finally {
      await agent.stop();
    }
  });

  it("passes the registry's own scripts, when a checkout of the registry is at hand", function () {
    const checkout = process.env.ACP_REGISTRY_CHECKOUT;
    if (!checkout) skipBecause(this, 'no ACP_REGISTRY_CHECKOUT (a checkout of github.com/agentclientprotocol/registry)');
    if (spawnSync('python3', ['--version']).status !== 0) skipBecause(this, 'no python3');
    // Their scripts find the registry above themselves: a registry of one entry, ours.
    const registry = join(root, 'registry');
    cpSync(join(checkout, '.github', 'workflows'), join(registry, '.github', 'workflows'), { recursive: true });
    cpSync(join(checkout, 'agent.schema.json'), join(registry, 'agent.schema.json'));
    cpSync(ENTRY, join(registry, entry.id), { recursive: true });
    const theirSandbox = join(registry, '.sandbox', 'npx', entry.id);
    mkdirSync(theirSandbox, { recursive: true });
    assert.equal(installOffline(packCrow().tarball, theirSandbox, join(root, 'npm-home')).code, 0);
    const env = { ...offlineNpmEnv(join(root, 'npm-home')), SKIP_URL_VALIDATION: '1' };
    const run = (script: string, args: string[]) => spawnSync('python3', [join(registry, '.github', 'workflows', script), ...args], { cwd: registry, env, encoding: 'utf8', timeout: 100_000 });
    const build = run('build_registry.py', []);
    assert.equal(build.status, 0, `${build.stdout}${build.stderr}`);
    assert.match(build.stdout, new RegExp(`Added agent: ${entry.id} v${version.replace(/\./g, '\\.')}`));
    const launch = run('verify_agents.py', ['--agent', entry.id]);
    assert.equal(launch.status, 0, `${launch.stdout}${launch.stderr}`);
    const auth = run('verify_agents.py', ['--auth-check', '--agent', entry.id]);
    assert.equal(auth.status, 0, `${auth.stdout}${auth.stderr}`);
    assert.match(auth.stdout, /Auth OK/);
    if (existsSync(join(registry, '.github', 'workflows', 'protocol_matrix.py'))) {
      const matrixSandbox = join(registry, '.matrix-sandbox', 'npx', entry.id);
      mkdirSync(matrixSandbox, { recursive: true });
      assert.equal(installOffline(packCrow().tarball, matrixSandbox, join(root, 'npm-home')).code, 0);
      const matrix = run('protocol_matrix.py', ['--agent', entry.id]);
      assert.equal(matrix.status, 0, `${matrix.stdout}${matrix.stderr}`);
      const [row] = (JSON.parse(readFileSync(join(registry, '.protocol-matrix', 'latest.json'), 'utf8')) as { agents: { methodProbes: Record<string, { status: string }> }[] }).agents;
      for (const method of ['session/list', 'session/fork', 'session/resume', 'session/close']) assert.equal(row?.methodProbes[method]?.status, 'success', method);
    }
  });
});
