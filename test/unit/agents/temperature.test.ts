import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleAgent } from '../../../src/agents/assemble';
import { AgentRegistry } from '../../../src/config/agent-registry';
import { PromptRegistry } from '../../../src/config/prompts';
import { resolveSettings } from '../../../src/config/provider-config';
import { ACPSession } from '../../../src/session/acp-session';
import { FakeLlmServer } from '../../../testkit/fake-llm-server';
import { NodeWorkspace } from '../../../src/tools/node-workspace';

describe('temperature from an agent definition', () => {
  let server: FakeLlmServer;
  let home: string;
  let project: string;
  before(async () => {
    // A local model server: OpenAI's own reasoning models refuse a temperature (see the last test).
    server = await FakeLlmServer.start({ chatServer: 'vllm' });
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-temp-home-'));
    project = mkdtempSync(join(tmpdir(), 'crow-temp-proj-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  function compose(provider: string, config = '') {
    const env = { XDG_CONFIG_HOME: home, OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', OPENAI_BASE_URL: server.openaiBaseUrl, ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    mkdirSync(join(home, 'crow-agent', 'agents', 'base'), { recursive: true });
    writeFileSync(join(home, 'crow-agent', 'config.toml'), config);
    writeFileSync(join(home, 'crow-agent', 'agents', 'base', 'builder.md'), `---\ndescription: warm\nprovider: ${provider}\ntemperature: 0.3\n---\n`);
    const { registry } = AgentRegistry.load(project, env);
    return () =>
      assembleAgent('build', { registry, config: resolveSettings(project, {}, env), workspace: new NodeWorkspace(project), prompts: new PromptRegistry(), env });
  }

  it('reaches an OpenAI-compatible server in every request of that agent', async () => {
    const agent = compose('openai', 'model = "qwen3"\n')();
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Hi.' }] });
    const stream = agent.run(new ACPSession({ cwd: project, agentName: 'build' }), 'Hello', { signal: new AbortController().signal });
    for await (const _ of stream) void _;
    assert.equal(server.requestsFor('openai')[0]!.body.temperature, 0.3);
  });

  it('is refused, saying why and what to change, for an agent on the Anthropic API', () => {
    assert.throws(compose('anthropic'), /builder.*sets temperature 0\.3, but anthropic\/claude-sonnet-4-6 is on the Anthropic API, which takes no temperature.*remove temperature/);
  });

  it('is refused for a model configured to take none', () => {
    assert.throws(compose('openai', '[providers.openai.models."gpt-5.4"]\ntemperature = false\n'), /openai\/gpt-5\.4 takes no temperature \(temperature = false/);
  });

  it("is refused for OpenAI's own reasoning models, which the API refuses it for", () => {
    const onOpenAI = () => {
      const env = { XDG_CONFIG_HOME: home, OPENAI_API_KEY: 'k' };
      mkdirSync(join(home, 'crow-agent', 'agents', 'base'), { recursive: true });
      writeFileSync(join(home, 'crow-agent', 'config.toml'), 'provider = "openai"\nmodel = "o4-mini"\n');
      writeFileSync(join(home, 'crow-agent', 'agents', 'base', 'builder.md'), '---\ndescription: warm\ntemperature: 0.3\n---\n');
      const { registry } = AgentRegistry.load(project, env);
      assembleAgent('build', { registry, config: resolveSettings(project, {}, env), workspace: new NodeWorkspace(project), prompts: new PromptRegistry(), env });
    };
    assert.throws(onOpenAI, /openai\/o4-mini is one of OpenAI's reasoning models, which take only the default temperature/);
  });
});
