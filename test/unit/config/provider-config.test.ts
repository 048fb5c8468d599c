import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, resolveConfig } from '../../../src/config/provider-config';
import { PromptRegistry, renderSystemPrompt } from '../../../src/config/prompts';

describe('provider configuration', () => {
  let home: string;
  let project: string;
  const env = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: home, ...vars });
  const writeConfig = (dir: string, config: unknown): void => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-cfg-'));
    project = mkdtempSync(join(tmpdir(), 'crow-proj-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('defaults to Anthropic and reads the key from the environment', () => {
    const config = resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'sk-a' }));
    assert.equal(config.provider, 'anthropic');
    assert.equal(config.apiKey, 'sk-a');
    assert.ok(config.model.length > 0);
  });

  it('names the missing key variable', () => {
    assert.throws(() => resolveConfig(project, {}, env()), (err: Error) => err instanceof ConfigError && /ANTHROPIC_API_KEY/.test(err.message));
    assert.throws(() => resolveConfig(project, { provider: 'openai' }, env()), /OPENAI_API_KEY/);
  });

  it('needs no key for an OpenAI-compatible server such as Ollama', () => {
    const config = resolveConfig(project, {}, env({ CROW_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' }));
    assert.equal(config.apiKey, undefined);
    assert.equal(config.baseUrl, 'http://localhost:11434/v1');
  });

  it('layers flags over environment over project over user config', () => {
    writeConfig(join(home, 'crow-agent'), { provider: 'openai', model: 'user-model', maxIterations: 7 });
    writeConfig(join(project, '.crow'), { model: 'project-model' });
    const vars = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
    assert.equal(resolveConfig(project, {}, env(vars)).model, 'project-model');
    assert.equal(resolveConfig(project, {}, env(vars)).maxIterations, 7);
    assert.equal(resolveConfig(project, {}, env({ ...vars, CROW_MODEL: 'env-model' })).model, 'env-model');
    assert.equal(resolveConfig(project, { model: 'flag-model' }, env({ ...vars, CROW_MODEL: 'env-model' })).model, 'flag-model');
    assert.equal(resolveConfig(project, { provider: 'anthropic' }, env(vars)).provider, 'anthropic');
  });

  it('reads the key from the variable apiKeyEnv names', () => {
    writeConfig(join(project, '.crow'), { apiKeyEnv: 'MY_PROXY_KEY' });
    assert.equal(resolveConfig(project, {}, env({ MY_PROXY_KEY: 'proxy' })).apiKey, 'proxy');
    assert.throws(() => resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'x' })), /MY_PROXY_KEY/);
  });

  it('rejects bad config files naming the file, the field and a likely fix', () => {
    writeConfig(join(project, '.crow'), { modle: 'x' });
    assert.throws(() => resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'k' })), /\.crow\/config\.json.*unknown field "modle" \(did you mean "model"\?\)/);
    writeConfig(join(project, '.crow'), { maxIterations: -1 });
    assert.throws(() => resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'k' })), /field "maxIterations"/);
    writeConfig(join(project, '.crow'), '{ not json');
    assert.throws(() => resolveConfig(project, {}, env({ ANTHROPIC_API_KEY: 'k' })), /not valid JSON/);
  });

  it('suggests the provider a typo meant', () => {
    assert.throws(() => resolveConfig(project, { provider: 'opneai' }, env()), /Did you mean "openai"\?/);
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
