import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectProvider, providerApiKey, resolveSettings, type SettingsSources } from '../../../src/config/provider-config';
import { ConfigError, type ConfigOverrides } from '../../../src/config/settings';
import { PromptRegistry, renderSystemPrompt } from '../../../src/config/prompts';
import { providerFor } from '../../../src/llm';
import type { OpenAIProvider } from '../../../src/llm/openai';

/** These tests are about the files' meaning: the project is trusted (see project-trust.test.ts for untrusted ones). */
const TRUSTED = { trusted: true };

/** The settings with the default provider's key, which must be present: what `crow run` resolves before it builds the default agent. */
function resolveConfig(project: string, overrides: ConfigOverrides, env: NodeJS.ProcessEnv, sources: SettingsSources) {
  const settings = resolveSettings(project, overrides, env, sources);
  return { ...settings, apiKey: providerApiKey(settings.providers[settings.provider]!, env) };
}

/** The default provider those settings build. */
function createProvider(config: ReturnType<typeof resolveConfig>) {
  return providerFor({ entry: config.providers[config.provider]!, model: config.model, apiKey: config.apiKey }, config);
}

describe('provider configuration (config.toml)', () => {
  let home: string;
  let project: string;
  const env = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: home, ...vars });
  const writeConfig = (dir: string, toml: string): void => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.toml'), toml);
  };
  const userConfig = (toml: string): void => writeConfig(join(home, 'crow-agent'), toml);
  const projectConfig = (toml: string): void => writeConfig(join(project, '.crow'), toml);

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-cfg-'));
    project = mkdtempSync(join(tmpdir(), 'crow-proj-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('defaults to Anthropic and reads the key from the environment', () => {
    const config = resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'sk-a' }), TRUSTED);
    assert.equal(config.provider, 'anthropic');
    assert.equal(config.apiKey, 'sk-a');
    assert.equal(config.model, 'claude-sonnet-4-6');
    assert.deepEqual(Object.keys(config.providers), ['anthropic', 'openai']);
  });

  it('names the missing key variable', () => {
    assert.throws(() => resolveConfig(project, {}, env(), TRUSTED), (err: Error) => err instanceof ConfigError && /ANTHROPIC_API_KEY/.test(err.message));
    assert.throws(() => resolveConfig(project, { provider: 'openai' }, env(), TRUSTED), /OPENAI_API_KEY/);
  });

  it('needs no key for an OpenAI-compatible server such as Ollama', () => {
    const config = resolveConfig(project, {}, env({ CROW_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' }), TRUSTED);
    assert.equal(config.apiKey, undefined);
    assert.equal(config.providers.openai!.baseUrl, 'http://localhost:11434/v1');
    assert.equal(createProvider(config).name, 'openai');
  });

  it('layers flags over environment over project over user config', () => {
    userConfig('provider = "openai"\nmodel = "user-model"\nmax_iterations = 7\n');
    projectConfig('model = "project-model"\n');
    const vars = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
    assert.equal(resolveConfig(project, {}, env(vars), TRUSTED).model, 'project-model');
    assert.equal(resolveConfig(project, {}, env(vars), TRUSTED).provider, 'openai');
    assert.equal(resolveConfig(project, {}, env(vars), TRUSTED).maxIterations, 7);
    assert.equal(resolveConfig(project, {}, env({ ...vars, CROW_MODEL: 'env-model' }), TRUSTED).model, 'env-model');
    assert.equal(resolveConfig(project, { model: 'flag-model' }, env({ ...vars, CROW_MODEL: 'env-model' }), TRUSTED).model, 'flag-model');
    assert.equal(resolveConfig(project, { provider: 'anthropic' }, env(vars), TRUSTED).provider, 'anthropic');
  });

  it('reads snake_case settings and merges permissions field by field', () => {
    userConfig('doom_loop_threshold = 4\nthinking_budget = 2048\n[permissions]\nwrite = "allow"\nallow_commands = ["npm test"]\n');
    projectConfig('default_agent = "pair"\n[permissions]\nexecute = "deny"\n');
    const settings = resolveSettings(project, {}, env(), TRUSTED);
    assert.equal(settings.doomLoopThreshold, 4);
    assert.equal(settings.thinkingBudget, 2048);
    assert.equal(settings.defaultAgent, 'pair');
    assert.deepEqual(settings.permissions, { write: 'allow', execute: 'deny', allowCommands: ['npm test'] });
  });

  it('lets web_fetch reach private addresses only when [web_fetch] allow_private_addresses says so', () => {
    const vars = { ANTHROPIC_API_KEY: 'k' };
    assert.equal(resolveSettings(project, {}, env(vars)).webFetch, undefined);
    userConfig('[web_fetch]\nallow_private_addresses = true\n');
    assert.deepEqual(resolveSettings(project, {}, env(vars)).webFetch, { allowPrivateAddresses: true });
    userConfig('[web_fetch]\nallow_private = true\n');
    assert.throws(() => resolveSettings(project, {}, env(vars)), /web_fetch/);
  });

  it('reads the key from the variable api_key_env names', () => {
    projectConfig('api_key_env = "MY_PROXY_KEY"\n');
    assert.equal(resolveConfig(project, {}, env({ MY_PROXY_KEY: 'proxy' }), TRUSTED).apiKey, 'proxy');
    assert.throws(() => resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'x' }), TRUSTED), /MY_PROXY_KEY/);
  });

  it('defines named providers with models, capabilities and prices', () => {
    userConfig(
      [
        '[providers.local]',
        'type = "openai"',
        'base_url = "http://localhost:11434/v1"',
        'default_model = "qwen3"',
        '[providers.local.models.qwen3]',
        'context_window = 32768',
        'vision = false',
        'thinking = true',
        '[providers.anthropic.models."claude-sonnet-4-6"]',
        'input_per_mtok = 3.0',
        'output_per_mtok = 15.0',
        'cache_read_per_mtok = 0.3',
        'cache_write_per_mtok = 3.75',
      ].join('\n'),
    );
    const settings = resolveSettings(project, {}, env(), TRUSTED);
    const local = settings.providers.local!;
    assert.deepEqual(
      { type: local.type, baseUrl: local.baseUrl, apiKeyEnv: local.apiKeyEnv, defaultModel: local.defaultModel },
      { type: 'openai', baseUrl: 'http://localhost:11434/v1', apiKeyEnv: undefined, defaultModel: 'qwen3' },
    );
    assert.deepEqual(local.models.qwen3, { contextWindow: 32768, vision: false, thinking: true });
    assert.equal(settings.providers.anthropic!.apiKeyEnv, 'ANTHROPIC_API_KEY', 'a table for a built-in provider keeps its other fields');
    assert.equal(settings.providers.anthropic!.models['claude-sonnet-4-6']!.outputPerMtok, 15);

    const connection = connectProvider(settings, { provider: 'local' }, env(), 'builder');
    assert.deepEqual([connection.model, connection.apiKey], ['qwen3', undefined]);
    const provider = providerFor(connection, settings);
    assert.deepEqual([provider.name, provider.model, provider.supportsImages], ['openai', 'qwen3', false]);
  });

  it('moves the built-in providers with ANTHROPIC_BASE_URL and OPENAI_BASE_URL, over the files', () => {
    userConfig('[providers.openai]\nbase_url = "http://file.example/v1"\n');
    const settings = resolveSettings(project, {}, env({ OPENAI_BASE_URL: 'http://env.example/v1', ANTHROPIC_BASE_URL: 'http://a.example' }));
    assert.equal(settings.providers.openai!.baseUrl, 'http://env.example/v1');
    assert.equal(settings.providers.anthropic!.baseUrl, 'http://a.example');
  });

  it('names the agent and the variable when a role has no key', () => {
    const settings = resolveSettings(project, {}, env(), TRUSTED);
    assert.throws(
      () => connectProvider(settings, { provider: 'openai' }, env(), 'verifier'),
      (err: Error) => err instanceof ConfigError && /agent "verifier"/.test(err.message) && /OPENAI_API_KEY/.test(err.message),
    );
    assert.throws(
      () => connectProvider(settings, { provider: 'opnai' }, env(), 'verifier'),
      /unknown provider "opnai".*Did you mean "openai"\?/,
    );
  });

  it('rejects bad config files naming the file, the field and a likely fix', () => {
    const vars = env({ ANTHROPIC_API_KEY: 'k' });
    projectConfig('modle = "x"\n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /\.crow\/config\.toml: field "modle": unknown field \(did you mean "model"\?\)/);
    projectConfig('max_iterations = -1\n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /field "max_iterations"/);
    projectConfig('[providers.local]\ntype = "openia"\n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /field "providers\.local\.type".*did you mean "openai"\?/);
    projectConfig('[providers.local.models.m]\nvison = true\n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /"providers\.local\.models\.m\.vison": unknown field \(did you mean "vision"\?\)/);
    projectConfig('max_iterations = \n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /not valid TOML/);
  });

  it('never takes a key in a file', () => {
    const vars = env({ ANTHROPIC_API_KEY: 'k' });
    projectConfig('[providers.local]\ntype = "openai"\napi_key_env = "sk-proj-abc123def456"\n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /api_key_env".*looks like an API key itself/);
    projectConfig('[providers.local]\ntype = "openai"\napi_key = "abc"\n');
    assert.throws(() => resolveConfig(project, {}, vars, TRUSTED), /api_key".*secrets are never stored in configuration files/);
  });

  it('requires a type for a provider that is not built in', () => {
    projectConfig('[providers.local]\nbase_url = "http://localhost:8000/v1"\n');
    assert.throws(() => resolveSettings(project, {}, env(), TRUSTED), /Provider "local" has no type/);
  });

  it('takes the flavor of an OpenAI-compatible server, which builds its provider, and refuses it elsewhere or misspelt', () => {
    userConfig('[providers.box]\ntype = "openai"\nbase_url = "http://gpu-box:8000/v1"\nflavor = "vllm"\ndefault_model = "qwen3"\n');
    const settings = resolveSettings(project, { provider: 'box' }, env(), TRUSTED);
    assert.equal(settings.providers.box!.flavor, 'vllm');
    const provider = providerFor({ entry: settings.providers.box!, model: 'qwen3', apiKey: undefined }, {}) as OpenAIProvider;
    assert.equal(provider.flavor, 'vllm');
    userConfig('[providers.anthropic]\nflavor = "vllm"\n');
    assert.throws(() => resolveSettings(project, {}, env(), TRUSTED), /sets flavor = "vllm", which only applies to type = "openai"/);
    userConfig('[providers.box]\ntype = "openai"\nflavor = "olama"\n');
    assert.throws(() => resolveSettings(project, {}, env(), TRUSTED), /flavor/);
  });

  it('takes Claude on Amazon Bedrock and Google Vertex AI with their region and project, needing no API key', () => {
    userConfig(
      '[providers.aws]\ntype = "bedrock"\nregion = "eu-west-3"\ndefault_model = "anthropic.claude-sonnet-4-5-20250929-v1:0"\n' +
        '[providers.gcp]\ntype = "vertex"\nregion = "us-east5"\nproject_id = "my-project-123"\ndefault_model = "claude-sonnet-4-5@20250929"\n',
    );
    const settings = resolveSettings(project, { provider: 'aws' }, env(), TRUSTED);
    assert.deepEqual([settings.providers.aws!.region, settings.providers.gcp!.region, settings.providers.gcp!.projectId], ['eu-west-3', 'us-east5', 'my-project-123']);
    const connection = connectProvider(settings, { provider: 'aws' }, env(), 'builder');
    assert.equal(connection.apiKey, undefined, 'the AWS credentials are the SDK\'s to find');
    const provider = providerFor(connection, {});
    assert.deepEqual([provider.name, provider.model], ['aws.bedrock', 'anthropic.claude-sonnet-4-5-20250929-v1:0']);
  });

  it('refuses a Vertex AI provider without a region, and region or project_id where they mean nothing', () => {
    userConfig('[providers.gcp]\ntype = "vertex"\ndefault_model = "claude-sonnet-4-5@20250929"\n');
    const settings = resolveSettings(project, { provider: 'gcp' }, env(), TRUSTED);
    assert.throws(
      () => providerFor({ entry: settings.providers.gcp!, model: 'claude-sonnet-4-5@20250929', apiKey: undefined }, {}),
      (error: Error) => error instanceof ConfigError && /has no region: set providers\.gcp\.region .* or CLOUD_ML_REGION/.test(error.message),
    );
    userConfig('[providers.anthropic]\nregion = "us-east-1"\n');
    assert.throws(() => resolveSettings(project, {}, env(), TRUSTED), /sets region = "us-east-1", which only applies to type = "bedrock" or "vertex"/);
    userConfig('[providers.aws]\ntype = "bedrock"\nproject_id = "my-project"\n');
    assert.throws(() => resolveSettings(project, {}, env(), TRUSTED), /sets project_id, which only applies to type = "vertex"/);
    userConfig('[providers.x]\ntype = "azure"\n');
    assert.throws(() => resolveSettings(project, {}, env(), TRUSTED), /type/);
  });

  it('suggests the provider a typo meant', () => {
    assert.throws(() => resolveConfig(project, { provider: 'opneai' }, env(), TRUSTED), /Did you mean "openai"\?/);
  });
});

describe('prompt templates', () => {
  it('renders the system prompt from prompts/system.hbs', () => {
    const text = renderSystemPrompt(new PromptRegistry(), {
      agentName: 'crow',
      workspaceRoot: '/work/project',
      tools: ['read_file', 'task_complete'],
      date: '2026-01-02',
    });
    assert.match(text, /You are crow/);
    assert.match(text, /Workspace root: \/work\/project/);
    assert.match(text, /Today's date: 2026-01-02/);
    assert.match(text, /call task_complete/);
    assert.match(text, /Tools available: read_file, task_complete\./);
  });

  it('leaves out the task_complete instruction when the agent lacks the tool', () => {
    const text = renderSystemPrompt(new PromptRegistry(), { agentName: 'a', workspaceRoot: '/w', tools: ['read_file'] });
    assert.doesNotMatch(text, /task_complete/);
  });

  it('names a missing template', () => {
    assert.throws(() => new PromptRegistry().render('nope', {}), /Prompt template "nope" not found/);
  });
});
