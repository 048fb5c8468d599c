import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentPolicy } from '../../../src/agents/definition-agent';
import type { BaseAgentDefinition } from '../../../src/config/agent-definitions';
import { policyFromConfig } from '../../../src/config/permission-config';
import { resolveSettings } from '../../../src/config/provider-config';
import { ConfigError } from '../../../src/config/settings';
import { isSecretVariable, secretVariableNames } from '../../../src/config/secret-variables';
import { PermissionGate, type PermissionRequest } from '../../../src/tools/permissions';
import { noticeOnce, sandboxSetup } from '../../../src/tools/sandbox-setup';

describe('sandbox settings', () => {
  let home: string;
  let project: string;
  const env = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: home, XDG_DATA_HOME: join(home, 'data'), PATH: process.env.PATH, ...vars });
  const userConfig = (toml: string): void => {
    mkdirSync(join(home, 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'crow-agent/config.toml'), toml);
  };
  /** An environment where bwrap cannot run, whatever this machine has. */
  const noBwrap = (): Record<string, string> => ({ CROW_BWRAP_PATH: join(home, 'no-bwrap') });

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-sbx-cfg-'));
    project = mkdtempSync(join(tmpdir(), 'crow-sbx-proj-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('reads sandbox = "auto" | "required" | "off" from config.toml and refuses anything else', () => {
    assert.equal(resolveSettings(project, {}, env()).sandbox, undefined);
    userConfig('sandbox = "required"\n');
    assert.equal(resolveSettings(project, {}, env()).sandbox, 'required');
    userConfig('sandbox = "sometimes"\n');
    assert.throws(() => resolveSettings(project, {}, env()), (err: Error) => err instanceof ConfigError && /sandbox/.test(err.message));
  });

  it('names every variable the settings say holds a secret', () => {
    userConfig(
      [
        '[providers.corp]\ntype = "openai"\nbase_url = "http://localhost:9"\napi_key_env = "CORP_LLM_KEY"\n',
        '[mcp_servers.tracker]\ncommand = "tracker"\nenv = ["TRACKER_TOKEN"]\n',
        '[mcp_servers.remote]\nurl = "https://mcp.example.com"\nheaders_env = { Authorization = "REMOTE_MCP_AUTH" }\n',
        '[web_search]\nbackend = "brave"\napi_key_env = "MY_BRAVE"\n',
      ].join('\n'),
    );
    const names = secretVariableNames(resolveSettings(project, {}, env()));
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'BRAVE_API_KEY', 'CORP_LLM_KEY', 'TRACKER_TOKEN', 'REMOTE_MCP_AUTH', 'MY_BRAVE']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    assert.deepEqual(
      ['ANTHROPIC_API_KEY', 'BRAVE_API_KEY', 'CROW_API_KEY', 'CROW_GH_TOKEN', 'crow_secret', 'CROW_HOME', 'HOME'].map(isSecretVariable),
      [true, true, true, true, true, false, false],
    );
  });

  it('reads [sandbox] as a table (mode, allow_domains, tmp_size_mb) or the sandbox = "mode" shorthand, and refuses what is no host name', () => {
    userConfig('[sandbox]\nmode = "required"\nallow_domains = ["Registry.npmjs.org", "*.pypi.org"]\ntmp_size_mb = 256\n');
    const settings = resolveSettings(project, {}, env());
    assert.deepEqual([settings.sandbox, settings.sandboxDomains, settings.sandboxTmpSizeMb], ['required', ['registry.npmjs.org', '*.pypi.org'], 256]);
    assert.deepEqual(sandboxSetup(settings, env()).options.allowDomains, ['registry.npmjs.org', '*.pypi.org']);
    userConfig('sandbox = "off"\n');
    assert.equal(resolveSettings(project, {}, env()).sandbox, 'off');
    assert.equal(sandboxSetup(resolveSettings(project, {}, env()), env()).options.tmpSizeMb, 1024, 'the default cap');
    for (const bad of ['https://registry.npmjs.org', 'registry.npmjs.org:443', 'a/b', '*']) {
      userConfig(`[sandbox]\nallow_domains = ["${bad}"]\n`);
      assert.throws(() => resolveSettings(project, {}, env()), /allow_domains.*host name/s, bad);
    }
  });

  it('takes a weaker mode, more domains or a bigger /tmp from an untrusted project as widenings, and keeps what narrows', () => {
    userConfig('[sandbox]\nallow_domains = ["registry.npmjs.org"]\n');
    mkdirSync(join(project, '.crow'), { recursive: true });
    writeFileSync(join(project, '.crow', 'config.toml'), '[sandbox]\nmode = "off"\nallow_domains = ["registry.npmjs.org", "evil.example"]\ntmp_size_mb = 999999\n');
    const settings = resolveSettings(project, {}, env());
    assert.deepEqual([settings.sandbox, settings.sandboxDomains, settings.sandboxTmpSizeMb], [undefined, ['registry.npmjs.org'], undefined]);
    writeFileSync(join(project, '.crow', 'config.toml'), 'sandbox = "required"\n');
    assert.equal(resolveSettings(project, {}, env()).sandbox, 'required', 'a stricter mode applies at once');
  });

  it('reads allow_ports and allow_private_addresses; a project may narrow the ports but not add one, nor allow private addresses', () => {
    const proxyOptions = (): unknown => {
      const { options } = sandboxSetup(resolveSettings(project, {}, env()), env());
      return [options.allowPorts, options.allowPrivateAddresses];
    };
    assert.deepEqual(proxyOptions(), [[443, 80], false], 'HTTPS and HTTP at public addresses by default');
    userConfig('[sandbox]\nallow_ports = [443, 8443]\nallow_private_addresses = true\n');
    assert.deepEqual(proxyOptions(), [[443, 8443], true]);
    for (const bad of ['allow_ports = [0]', 'allow_ports = [65536]', 'allow_ports = ["443"]', 'allow_private_addresses = "yes"']) {
      userConfig(`[sandbox]\n${bad}\n`);
      assert.throws(() => resolveSettings(project, {}, env()), (err: Error) => err instanceof ConfigError && /sandbox/.test(err.message), bad);
    }
    userConfig('[sandbox]\nallow_domains = ["registry.npmjs.org"]\n');
    mkdirSync(join(project, '.crow'), { recursive: true });
    writeFileSync(join(project, '.crow', 'config.toml'), '[sandbox]\nallow_ports = [443, 22]\nallow_private_addresses = true\n');
    assert.deepEqual(proxyOptions(), [[443], false], 'port 22 and private addresses left out until the folder is trusted');
    userConfig('[sandbox]\nallow_ports = [443, 22]\nallow_private_addresses = true\n');
    assert.deepEqual(proxyOptions(), [[443, 22], true], 'what the user allows too, the project may ask for');
    writeFileSync(join(project, '.crow', 'config.toml'), '[sandbox]\nallow_ports = [443]\nallow_private_addresses = false\n');
    assert.deepEqual(proxyOptions(), [[443], false], 'narrowing applies at once');
  });

  it('knows the credential variables of the vendors\' SDKs and tools by one rule, and leaves ordinary variables alone', () => {
    const secret = [
      'ANTHROPIC_AUTH_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'GOOGLE_API_KEY',
      'GOOGLE_APPLICATION_CREDENTIALS', 'GEMINI_API_KEY', 'AZURE_OPENAI_API_KEY', 'AZURE_CLIENT_SECRET', 'GITHUB_TOKEN', 'GH_TOKEN',
      'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'NPM_TOKEN', 'npm_config__authToken', 'npm_config__auth', 'DB_PASSWORD', 'SSH_PASSPHRASE',
    ];
    const ordinary = ['PATH', 'HOME', 'SSH_AUTH_SOCK', 'TOKENIZERS_PARALLELISM', 'MONKEYPATCH', 'KEYBOARD_LAYOUT', 'LANG', 'TERM', 'CROW_HOME'];
    assert.deepEqual(secret.filter((name) => !isSecretVariable(name)), []);
    assert.deepEqual(ordinary.filter(isSecretVariable), []);
  });

  it('opens the network to commands only when the network permission is allow, in the settings or by a flag', () => {
    assert.equal(sandboxSetup(resolveSettings(project, {}, env()), env()).options.network, false);
    assert.equal(sandboxSetup(resolveSettings(project, {}, env()), env(), true).options.network, true);
    userConfig('[permissions]\nnetwork = "allow"\n');
    assert.equal(sandboxSetup(resolveSettings(project, {}, env()), env()).options.network, true);
    userConfig('[permissions]\nnetwork = "ask"\n');
    assert.equal(sandboxSetup(resolveSettings(project, {}, env()), env()).options.network, false);
  });

  it('protects the user\'s config and data folders and hides the configured key variables', () => {
    userConfig('[providers.corp]\ntype = "openai"\napi_key_env = "CORP_LLM_KEY"\n');
    const { options } = sandboxSetup(resolveSettings(project, {}, env()), env());
    assert.deepEqual(options.protectedPaths, [join(home, 'crow-agent'), join(home, 'data', 'crow-agent')]);
    assert.ok(options.hiddenVariables.includes('CORP_LLM_KEY'));
  });

  it('off: inactive, silent, and never looks for bwrap', () => {
    userConfig('sandbox = "off"\n');
    const setup = sandboxSetup(resolveSettings(project, {}, env()), env({ CROW_BWRAP_PATH: '/' }));
    assert.equal(setup.active, false);
    assert.equal(setup.notice, undefined);
  });

  it('auto where bwrap cannot run: inactive, and says once why and how to silence it', () => {
    const settings = resolveSettings(project, {}, env());
    const setup = sandboxSetup(settings, env(noBwrap()));
    assert.equal(setup.active, false);
    assert.match(setup.notice!, /^Commands run without the sandbox: .*could not be started.*install bubblewrap.*Set sandbox = "off"/);
    assert.equal(noticeOnce(setup), setup.notice);
    assert.equal(noticeOnce(sandboxSetup(settings, env(noBwrap()))), undefined, 'said once per process');
  });

  it('required where bwrap cannot run: says that commands will not run, and both ways out', () => {
    userConfig('sandbox = "required"\n');
    const setup = sandboxSetup(resolveSettings(project, {}, env()), env(noBwrap()));
    assert.equal(setup.active, false);
    assert.match(setup.notice!, /Commands do not run: sandbox = "required", but .*install bubblewrap.*set sandbox = "off"/);
  });
});

describe('permissions with the sandbox', () => {
  const request = (extra: Partial<PermissionRequest> = {}): PermissionRequest => ({
    tool: 'bash',
    callId: 'c1',
    agent: 'build',
    category: 'execute',
    title: 'Run: make',
    command: 'make',
    paths: [],
    alwaysScope: 'commands starting with make',
    ...extra,
  });
  const signal = new AbortController().signal;

  it('lets sandboxed commands run unasked when nothing set execute', async () => {
    const policy = policyFromConfig(undefined, true);
    assert.equal(policy.rules.execute, 'allow');
    const gate = new PermissionGate({ policy });
    assert.deepEqual(await gate.authorize(request({ sandboxed: true }), signal), { allowed: true, how: 'policy' });
  });

  it('still asks for execute tools that run outside the sandbox (MCP tools)', async () => {
    const gate = new PermissionGate({ policy: policyFromConfig(undefined, true) });
    const verdict = await gate.authorize(request({ tool: 'mcp__fx__echo', title: 'fx: echo', command: 'mcp__fx__echo hi' }), signal);
    assert.equal(verdict.allowed, false);
    assert.match(verdict.allowed ? '' : verdict.reason, /Permission needed/);
    const narrowed = new PermissionGate({ policy: policyFromConfig(undefined, true) }).narrow(policyFromConfig(undefined, true));
    assert.equal((await narrowed.authorize(request({ tool: 'mcp__fx__echo' }), signal)).allowed, false, 'a subagent keeps the distinction');
    assert.equal((await narrowed.authorize(request({ sandboxed: true }), signal)).allowed, true);
  });

  it('keeps an execute rule set explicitly, either way', async () => {
    assert.equal(policyFromConfig({ execute: 'ask' }, true).rules.execute, 'ask');
    assert.equal(policyFromConfig(undefined, false).rules.execute, 'ask');
    const allowed = policyFromConfig({ execute: 'allow' }, true);
    assert.equal(allowed.executeBySandbox, undefined);
    assert.equal((await new PermissionGate({ policy: allowed }).authorize(request({ tool: 'mcp__fx__echo' }), signal)).allowed, true, 'an explicit allow covers MCP tools too');
  });

  it('lets an agent definition, requires_approval or an external agent decide over the sandbox default', () => {
    const base = { name: 'x', file: 'x.md', description: '', role: 'primary', systemPrompt: '' } as unknown as BaseAgentDefinition;
    const settings = resolveSettings('/nonexistent-crow-project', {}, { XDG_CONFIG_HOME: '/nonexistent-crow-config' });
    assert.equal(agentPolicy(base, settings, true).rules.execute, 'allow');
    assert.equal(agentPolicy({ ...base, permissions: { execute: 'ask' } }, settings, true).rules.execute, 'ask');
    assert.equal(agentPolicy({ ...base, requiresApproval: ['execute'] }, settings, true).rules.execute, 'ask');
    assert.equal(agentPolicy({ ...base, external: { command: ['other-agent'] } } as BaseAgentDefinition, settings, true).rules.execute, 'ask');
  });
});
