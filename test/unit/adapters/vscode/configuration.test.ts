import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalCaps, readConfiguration, roleChoices, settingsFor } from '../../../../src/adapters/vscode/configuration';
import { isolatedEnv } from '../../../support/isolated-env';

/** A lookup over settings as a user would have set them (keys without "crow."). */
const lookup = (values: Record<string, unknown>) => (key: string) => values[key];

describe('VS Code settings in the engine', () => {
  const home = mkdtempSync(join(tmpdir(), 'crow-vscode-settings-'));
  const sandbox = {
    env: isolatedEnv(home),
    folder(name: string): string {
      const path = join(home, name);
      mkdirSync(path, { recursive: true });
      return path;
    },
  };
  after(() => rmSync(home, { recursive: true, force: true }));

  it('leaves config.toml in charge of everything the user did not set', () => {
    const root = sandbox.folder('plain');
    mkdirSync(join(root, '.crow'), { recursive: true });
    writeFileSync(join(root, '.crow', 'config.toml'), 'provider = "openai"\ndefault_agent = "pair"\n[permissions]\nwrite = "allow"\n');
    const configuration = readConfiguration(lookup({ provider: '', model: '', maxIterations: 0, baseUrls: {}, mcpServers: {} }));
    const settings = settingsFor(root, configuration, sandbox.env, true);
    assert.equal(settings.provider, 'openai');
    assert.equal(settings.defaultAgent, 'pair');
    assert.equal(settings.permissions?.write, 'allow');
    assert.equal(approvalCaps(configuration), undefined);
  });

  it('puts the settings a user set over the files: provider, model, base URLs, agent, permissions, telemetry, MCP servers', () => {
    const root = sandbox.folder('set');
    const configuration = readConfiguration(
      lookup({
        provider: 'openai',
        model: 'gpt-test',
        baseUrls: { openai: 'http://127.0.0.1:9/v1' },
        defaultAgent: 'judge',
        maxIterations: 7,
        'permissions.write': 'allow',
        'permissions.allowCommands': ['npm test'],
        'telemetry.otlpEndpoint': 'http://127.0.0.1:4318/v1/traces',
        mcpServers: { files: { command: 'npx', args: ['-y', 'server'] } },
        'reviewer.provider': 'anthropic',
        'primary.model': 'gpt-primary',
      }),
    );
    const settings = settingsFor(root, configuration, sandbox.env, true);
    assert.equal(settings.provider, 'openai');
    assert.equal(settings.model, 'gpt-test');
    assert.equal(settings.providers.openai?.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(settings.defaultAgent, 'judge');
    assert.equal(settings.maxIterations, 7);
    assert.deepEqual(settings.permissions, { write: 'allow', allowCommands: ['npm test'] });
    assert.equal(settings.otlpEndpoint, 'http://127.0.0.1:4318/v1/traces');
    assert.deepEqual(settings.mcpServers?.files, { command: 'npx', args: ['-y', 'server'] });
    assert.deepEqual(roleChoices(configuration), { models: { primary: 'gpt-primary' }, providers: { coagent: 'anthropic' } });
  });

  it('names the setting at fault, with a suggestion', () => {
    const root = sandbox.folder('bad');
    const bad = (values: Record<string, unknown>) => () => settingsFor(root, readConfiguration(lookup(values)), sandbox.env);
    assert.throws(bad({ mcpServers: { files: { comand: 'npx' } } }), /crow\.mcpServers\.files.*comand.*command/s);
    assert.throws(bad({ 'permissions.write': 'sometimes' }), /crow\.permissions\.write/);
    assert.throws(bad({ baseUrls: { olama: 'http://127.0.0.1:11434/v1' } }), /crow\.baseUrls names the provider "olama".*Known providers: .*openai/);
    assert.throws(bad({ provider: 'opnai' }), /Unknown provider "opnai".*Did you mean "openai"/);
    assert.throws(bad({ 'reviewer.provider': 'nope' }), /crow\.reviewer\.provider names the provider "nope"/);
  });

  it('caps automatic approvals per category as set', () => {
    const caps = approvalCaps(readConfiguration(lookup({ 'autoApprove.maxWrites': 3, 'autoApprove.maxCommands': 0 })));
    assert.ok(caps);
    for (let i = 0; i < 3; i++) caps.count('write');
    assert.equal(caps.exhausted('write'), true);
    assert.equal(caps.exhausted('execute'), false, '0 means no cap');
  });

  it("reads every setting the table maps to config.toml: an empty list of allowed commands allows none, an empty import or a 0 limit is not set, a value of the wrong kind is ignored", () => {
    const root = sandbox.folder('kinds');
    mkdirSync(join(root, '.crow'), { recursive: true });
    writeFileSync(join(root, '.crow', 'config.toml'), '[permissions]\nallow_commands = ["npm test"]\n[mcp]\nimport = ["claude-desktop"]\n[limits]\nmax_cost_per_prompt = 2.5\n');
    const configuration = readConfiguration(
      lookup({ 'permissions.allowCommands': [], 'mcp.import': [], 'limits.maxCostPerPrompt': 0, 'limits.maxTokensPerPrompt': 1200.7, compaction: 'off', sandbox: 5 }),
    );
    const settings = settingsFor(root, configuration, sandbox.env, true);
    assert.deepEqual(settings.permissions?.allowCommands, [], 'an empty list set in VS Code is a choice');
    assert.deepEqual(settings.mcpImport, ['claude-desktop'], 'an empty import leaves the file in charge');
    assert.deepEqual(settings.limits, { maxCostPerPrompt: 2.5, maxTokensPerPrompt: 1200 }, '0 is "no limit set here"; a token count is whole');
    assert.equal(settings.compaction, 'off');
    assert.equal(settings.sandbox, undefined, 'a number where a mode belongs is not a setting');
  });
});
