import assert from 'node:assert/strict';
import { concurrencyKind, providerConcurrency } from '../../../src/agents/provider-queue';
import { resolveSettings } from '../../../src/config/provider-config';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('subagents at once per provider ([limits] concurrency)', () => {
  let home: string;
  beforeEach(() => (home = mkdtempSync(join(tmpdir(), 'crow-concurrency-'))));
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const settingsWith = (toml: string, trusted = true) => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), toml);
    return resolveSettings(join(home, 'project'), {}, { XDG_CONFIG_HOME: join(home, 'config') }, { trusted });
  };
  const PROVIDERS = `
[providers.ollama]
type = "openai"
base_url = "http://127.0.0.1:11434/v1"
default_model = "qwen3"
[providers.gateway]
type = "anthropic"
base_url = "https://llm-gateway.example.com"
api_key_env = "GATEWAY_KEY"
[providers.box]
type = "anthropic"
base_url = "http://192.168.1.20:8080"
api_key_env = "BOX_KEY"
`;

  it("defaults to seed 002's limits: 1 for a server of your own, 3 for Anthropic, 5 for OpenAI", () => {
    const settings = settingsWith(PROVIDERS);
    assert.deepEqual(
      ['ollama', 'gateway', 'box', 'anthropic', 'openai'].map((name) => [name, concurrencyKind(settings.providers[name]), providerConcurrency(settings, name)]),
      [
        ['ollama', 'local', 1],
        ['gateway', 'anthropic', 3],
        ['box', 'local', 1],
        ['anthropic', 'anthropic', 3],
        ['openai', 'openai', 5],
      ],
    );
  });

  it('takes a number per provider name first, then per kind, then the older [subagents] concurrency', () => {
    const settings = settingsWith(`[subagents]\nconcurrency = 7\n[limits.concurrency]\nlocal = 2\ngateway = 4\n${PROVIDERS}`);
    assert.equal(providerConcurrency(settings, 'ollama'), 2);
    assert.equal(providerConcurrency(settings, 'box'), 2);
    assert.equal(providerConcurrency(settings, 'gateway'), 4);
    assert.equal(providerConcurrency(settings, 'anthropic'), 7, '[subagents] concurrency still applies where [limits] says nothing');
  });

  it("an untrusted project may set it (it changes when money is spent, not how much), but not raise a spending limit beside it", () => {
    mkdirSync(join(home, 'project', '.crow'), { recursive: true });
    writeFileSync(join(home, 'project', '.crow', 'config.toml'), '[limits]\nconcurrency = { anthropic = 1 }\nmax_cost_per_prompt = 99.0\n');
    const settings = settingsWith('[limits]\nmax_cost_per_prompt = 1.0\n', false);
    assert.equal(settings.projectTrusted, false);
    assert.equal(providerConcurrency(settings, 'anthropic'), 1);
    assert.equal(settings.limits?.maxCostPerPrompt, 1);
  });
});
