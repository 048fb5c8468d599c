import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { assembleAgent, type AssemblyContext, defaultAgentName, pickableAgents } from '../../../src/agents/assemble';
import { agentPolicy } from '../../../src/agents/definition-agent';
import type { BaseAgentDefinition } from '../../../src/config/agent-definitions';
import { AgentRegistry } from '../../../src/config/agent-registry';
import { PromptRegistry } from '../../../src/config/prompts';
import { resolveSettings } from '../../../src/config/provider-config';
import { ConfigError } from '../../../src/config/settings';
import { FakeLlmServer } from '../../../testkit/fake-llm-server';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { flowFixture, runFlow, type FlowFixture } from '../../support/flows';

const KEYS = { ANTHROPIC_API_KEY: 'test-anthropic', OPENAI_API_KEY: 'test-openai' };

/** Writes files under `root`, creating folders. */
function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('assembling ACP agents from definitions', () => {
  let home: string;
  let project: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-asm-home-'));
    project = mkdtempSync(join(tmpdir(), 'crow-asm-proj-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  function context(vars: Record<string, string> = KEYS, root = project): AssemblyContext {
    const env = { XDG_CONFIG_HOME: home, ...vars };
    const { registry, errors } = AgentRegistry.load(root, env, { trusted: true });
    assert.deepEqual(errors, []);
    return {
      registry,
      config: resolveSettings(root, {}, env, { trusted: true }),
      workspace: new NodeWorkspace(root),
      prompts: PromptRegistry.forWorkspace(root, env),
      env,
    };
  }

  it('assembles every built-in agent, each with a description and its flow', () => {
    const ctx = context();
    const expected: Record<string, [string, string, string | undefined]> = {
      build: ['hitl', 'builder', undefined],
      'build-loop': ['loop', 'builder', undefined],
      'build-prompted': ['static', 'builder', undefined],
      'build-criteria': ['generated', 'builder', undefined],
      'build-judged': ['coagent', 'builder', 'judge'],
      'build-verified': ['coagent', 'builder', 'verifier'],
      pair: ['coagent', 'builder', 'reviewer'],
      'pair-chat': ['coagent', 'builder', 'reviewer'],
      plan: ['hitl', 'planner', undefined],
      'judge-attempts': ['hitl', 'attempt-judge', undefined],
      'task-pair': ['coagent', 'worker', 'reviewer'],
    };
    for (const definition of ctx.registry.acpAgents()) {
      const agent = assembleAgent(definition.name, ctx);
      assert.ok(agent.description.length > 10, `${agent.name} has a description`);
      assert.deepEqual([agent.flow.kind, agent.primary.name, agent.coagent?.name], expected[agent.name], agent.name);
      assert.equal(agent.primary.provider.name, 'anthropic');
    }
    assert.equal(ctx.registry.acpAgents().length, Object.keys(expected).length);
    assert.equal(defaultAgentName(ctx.config), 'build');
  });

  it('narrows the coagent\'s tools by the flow: none, read-only or full', () => {
    writeFiles(join(project, '.crow/agents/acp'), {
      'strict.md': '---\ndescription: a reviewer restricted to judging\nprimary: builder\ncoagent: reviewer\nflow: judge\n---\n',
      'careful.md':
        '---\ndescription: a reviewer restricted to reading\nprimary: builder\ncoagent: reviewer\nflow: smart\ncoagent_tools: read_only\n---\n',
    });
    const ctx = context();
    assert.deepEqual(assembleAgent('build-judged', ctx).coagent!.toolNames, ['task_complete', 'todo_read', 'think']);
    assert.deepEqual(assembleAgent('strict', ctx).coagent!.toolNames, ['todo_read', 'think', 'task_complete']);
    const readOnly = assembleAgent('careful', ctx).coagent!.toolNames;
    assert.ok(readOnly.includes('bash') && readOnly.includes('read_file') && readOnly.includes('task_complete'));
    assert.ok(!readOnly.includes('write_file') && !readOnly.includes('edit_file'));
    assert.deepEqual(assembleAgent('build-verified', ctx).coagent!.toolNames.sort(), [
      'bash', 'glob', 'grep', 'list_directory', 'read_file', 'task_complete', 'think', 'todo_read',
    ]);
    const full = assembleAgent('pair', ctx).coagent!.toolNames;
    assert.ok(full.includes('write_file') && full.includes('edit_file'));
    const planner = assembleAgent('plan', ctx).primary.toolNames;
    assert.ok(!planner.some((tool) => ['write_file', 'edit_file', 'bash'].includes(tool)));
  });

  it('puts each role on its own provider and model', () => {
    writeFiles(join(project, '.crow'), {
      'config.toml': '[providers.local]\ntype = "openai"\nbase_url = "http://localhost:11434/v1"\ndefault_model = "qwen3"\n',
      'agents/base/builder.md': '---\ndescription: a local builder\nprovider: local\nmax_iterations: 9\n---\n',
      'agents/base/verifier.md':
        '---\ndescription: a cloud verifier\nprovider: anthropic\nmodel: claude-opus-4-1\ntools: [read_file, task_complete]\n---\n',
    });
    const agent = assembleAgent('build-verified', context({ ANTHROPIC_API_KEY: 'cloud' }));
    assert.deepEqual([agent.primary.provider.name, agent.primary.provider.model], ['openai', 'qwen3']);
    assert.deepEqual([agent.coagent!.provider.name, agent.coagent!.provider.model], ['anthropic', 'claude-opus-4-1']);
    assert.equal(agent.primary.limits.maxIterations, 9);
  });

  it("moves a role to another provider on that provider's default model, unless a model is chosen too", () => {
    writeFiles(join(project, '.crow'), {
      'config.toml': '[providers.local]\ntype = "openai"\nbase_url = "http://localhost:11434/v1"\ndefault_model = "qwen3"\n',
      'agents/base/verifier.md':
        '---\ndescription: a cloud verifier\nprovider: anthropic\nmodel: claude-opus-4-1\ntools: [read_file, task_complete]\n---\n',
    });
    const moved = assembleAgent('build-verified', { ...context(), providers: { coagent: 'local' } });
    assert.deepEqual([moved.coagent!.provider.name, moved.coagent!.provider.model], ['openai', 'qwen3'], 'not claude-opus-4-1 on the local server');
    const chosen = assembleAgent('build-verified', { ...context(), providers: { coagent: 'local' }, models: { coagent: 'llama4' } });
    assert.equal(chosen.coagent!.provider.model, 'llama4');
    const same = assembleAgent('build-verified', { ...context(), providers: { coagent: 'anthropic' } });
    assert.equal(same.coagent!.provider.model, 'claude-opus-4-1', "naming the definition's own provider changes nothing");
  });

  it('lets CROW_PROVIDER and CROW_MODEL change only the defaults', () => {
    writeFiles(join(project, '.crow/agents/base'), {
      'judge.md': '---\ndescription: pinned\nprovider: anthropic\nmodel: claude-haiku-4-5\nrole: reviewer\ntools: [task_complete]\n---\n',
    });
    const agent = assembleAgent('build-judged', context({ ...KEYS, CROW_PROVIDER: 'openai', CROW_MODEL: 'gpt-5' }));
    assert.deepEqual([agent.primary.provider.name, agent.primary.provider.model], ['openai', 'gpt-5']);
    assert.deepEqual([agent.coagent!.provider.name, agent.coagent!.provider.model], ['anthropic', 'claude-haiku-4-5']);
  });

  it('names the variable and the agent when a role has no key', () => {
    writeFiles(join(project, '.crow/agents/base'), {
      'verifier.md': '---\ndescription: on openai\nprovider: openai\ntools: [task_complete]\n---\n',
    });
    assert.throws(
      () => assembleAgent('build-verified', context({ ANTHROPIC_API_KEY: 'only-anthropic' })),
      (err: Error) => err instanceof ConfigError && /OPENAI_API_KEY/.test(err.message) && /agent "verifier"/.test(err.message),
    );
  });

  it('names an unknown agent with a "did you mean", and a base agent as not pickable', () => {
    const ctx = context();
    assert.throws(() => assembleAgent('pari', ctx), (err: Error) => err instanceof ConfigError && /Did you mean "pair"\?/.test(err.message));
    assert.throws(() => assembleAgent('builder', ctx), /"builder" is a base agent/);
  });

  it('offers judge-attempts in no picker and not to task, yet assembles it by name', () => {
    const ctx = context();
    const picked = pickableAgents(ctx.registry).map((agent) => agent.name);
    assert.ok(!picked.includes('judge-attempts'));
    assert.ok(picked.includes('build') && picked.includes('plan'));
    assert.equal(ctx.registry.baseAgent('attempt-judge')?.role, 'primary', 'not a subagent the task tool would offer');
    assert.equal(assembleAgent('judge-attempts', ctx).primary.name, 'attempt-judge');
  });

  it('turns allow into ask for categories that require approval', () => {
    const definition = {
      permissions: { write: 'allow', allowCommands: ['make'] },
      requiresApproval: ['write', 'network'],
    } as BaseAgentDefinition;
    const settings = { ...resolveSettings(project, {}, { XDG_CONFIG_HOME: home }), permissions: { network: 'allow', execute: 'deny' } } as const;
    const policy = agentPolicy(definition, settings);
    assert.deepEqual(policy, { rules: { read: 'allow', write: 'ask', execute: 'deny', network: 'ask' }, allowCommands: ['make'] });
  });

  describe('running on two endpoints', () => {
    let local: FakeLlmServer;
    let cloud: FakeLlmServer;
    let fx: FlowFixture;

    before(async () => {
      local = await FakeLlmServer.start();
      cloud = await FakeLlmServer.start();
    });
    after(async () => {
      await local.close();
      await cloud.close();
    });
    beforeEach(() => {
      local.reset();
      cloud.reset();
      fx = flowFixture({ 'notes.md': '# Notes\n' });
    });
    afterEach(() => fx.dispose());

    it("sends each role's requests to its own provider, with its own system prompt", async () => {
      writeFiles(join(fx.root, '.crow'), {
        'config.toml': [
          'provider = "cloud"',
          'max_retries = 0',
          '[providers.local]',
          'type = "openai"',
          `base_url = "${local.openaiBaseUrl}"`,
          'default_model = "qwen-local"',
          '[providers.cloud]',
          'type = "anthropic"',
          `base_url = "${cloud.anthropicBaseUrl}"`,
          'api_key_env = "CLOUD_KEY"',
          'default_model = "claude-review"',
        ].join('\n'),
        'agents/base/builder.md': '---\ndescription: local builder\nprovider: local\n---\n',
      });
      local.enqueue(
        'openai',
        { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n\n- shipped\n' } }] },
        { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Added "- shipped" to notes.md.' } }] },
      );
      cloud.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'notes.md' } }] },
        { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'notes.md lists "shipped".' } }] },
      );
      const agent = assembleAgent('build-verified', context({ CLOUD_KEY: 'cloud-key' }, fx.root));

      const { result } = await runFlow(agent, fx.session, 'Add "- shipped" to notes.md.');

      assert.equal(result.status, 'completed', result.message);
      assert.deepEqual(local.requests.map((r) => r.body.model), ['qwen-local', 'qwen-local']);
      assert.deepEqual(cloud.requests.map((r) => r.body.model), ['claude-review', 'claude-review']);
      assert.match(JSON.stringify(cloud.requests[0]!.headers), /cloud-key/, 'the key comes from the variable the provider names');
      const executorSystem = JSON.stringify(local.requests[0]!.body.messages);
      assert.match(executorSystem, /You are builder/);
      assert.match(executorSystem, /A reviewer checks your work/);
      assert.match(JSON.stringify(cloud.requests[0]!.body.system), /You are verifier, a meticulous reviewer/);
    });

    it("renders a definition's own body as its system prompt", async () => {
      cloud.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Plan: nothing to do.' }] });
      const vars = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: cloud.anthropicBaseUrl, CROW_MODEL: 'claude-test' };
      const agent = assembleAgent('plan', context(vars, fx.root));
      const { result } = await runFlow(agent, fx.session, 'Plan the notes.');
      assert.equal(result.status, 'needs_input', result.message);
      const system = JSON.stringify(cloud.requests[0]!.body.system);
      assert.match(system, /You are planner, a planning agent/);
      assert.match(system, /Tools available: read_file, list_directory, glob, grep, web_fetch, todo_write, todo_read, think\./);
    });
  });
});
