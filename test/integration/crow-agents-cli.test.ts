import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { agentsCommand } from '../../src/adapters/cli/agents-command';
import { configCommand } from '../../src/adapters/cli/config-command';
import { resolveSettings } from '../../src/config/provider-config';
import { fakeIO } from '../support/fake-io';
import { trustFolder } from '../support/trust';

describe('crow agents and crow config', () => {
  let base: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  const userConfig = (): string => join(base, 'config', 'crow-agent', 'config.toml');
  const projectConfig = (): string => join(project, '.crow', 'config.toml');
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  async function run(command: typeof agentsCommand, args: string[]): Promise<{ code: number; out: string; err: string }> {
    const io = fakeIO({ cwd: project, env });
    const code = await command(args, io);
    return { code, out: io.out(), err: io.err() };
  }

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-agents-cli-')));
    project = join(base, 'project');
    mkdirSync(project);
    env = { XDG_CONFIG_HOME: join(base, 'config') };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  describe('crow agents', () => {
    it('lists the agents with descriptions and flows, and the base agents with provider, model and tools', async () => {
      write(
        projectConfig(),
        'default_agent = "pair"\n[providers.local]\ntype = "openai"\nbase_url = "http://localhost:11434/v1"\ndefault_model = "qwen3"\n',
      );
      write(join(project, '.crow/agents/base/builder.md'), '---\ndescription: local builder\nprovider: local\n---\n');
      trustFolder(project, env);
      const { code, out, err } = await run(agentsCommand, ['list']);
      assert.equal(code, 0, err);
      assert.match(out, /^ {2}pair +Pair programming: .* \(default\)$/m);
      assert.match(out, /^ +builder \+ reviewer · reviewed \(smart, reviewer tools: full, ≤5 rounds\)$/m);
      assert.match(out, /^ {2}plan +Reads the code/m);
      assert.match(out, /^ {2}builder +primary +local\/qwen3 +all tools$/m);
      assert.match(out, /^ {2}judge +reviewer +anthropic\/claude-sonnet-4-6 +task_complete, todo_read, think$/m);
      assert.equal(err, '');
    });

    it('shows one agent, and suggests a name for a typo', async () => {
      const pair = await run(agentsCommand, ['show', 'build-verified']);
      assert.equal(pair.code, 0);
      assert.match(pair.out, /^flow: +reviewed \(verify, reviewer tools: read-only, ≤5 rounds\)$/m);
      assert.match(pair.out, /^coagent: +verifier \(anthropic\/claude-sonnet-4-6\)$/m);
      const judge = await run(agentsCommand, ['show', 'judge']);
      assert.match(judge.out, /^tools: +task_complete, todo_read, think$/m);
      assert.match(judge.out, /^system prompt: +the built-in "reviewer" template$/m);
      await assert.rejects(run(agentsCommand, ['show', 'plannr']), /Unknown agent "plannr"\. Did you mean "planner"\?/);
    });

    it('validates every definition and command, printing each problem with its file and field', async () => {
      const ok = await run(agentsCommand, ['validate']);
      assert.equal(ok.code, 0, ok.out);
      assert.match(ok.out, /All 11 agents, 11 base agents and 3 commands are valid\./);

      const typo = join(project, '.crow/agents/base/typo.md');
      const cloud = join(project, '.crow/agents/base/cloud.md');
      const badRef = join(project, '.crow/agents/acp/mine.md');
      const badCommand = join(project, '.crow/commands/go.md');
      write(typo, '---\ndescription: x\ntools: [raed_file]\n---\n');
      write(cloud, '---\ndescription: x\nprovider: antropic\n---\n');
      write(badRef, '---\ndescription: mine\nprimary: biulder\nflow: hitl\n---\n');
      write(badCommand, '---\ndescription: go\nagent: biuld\n---\nGo.\n');
      const broken = await run(agentsCommand, ['validate']);
      assert.equal(broken.code, 1);
      const lines = broken.out.trim().split('\n');
      assert.deepEqual(lines.slice(0, 4).map((line) => line.replace(/\.( Known| Base agents| Agents).*$|\.$/, '')), [
        `${typo}: field "tools[0]": unknown tool "raed_file" (did you mean "read_file"?)`,
        `${badRef}: field "primary": unknown base agent "biulder" (did you mean "builder"?)`,
        `${cloud}: field "provider": unknown provider "antropic" (did you mean "anthropic"?)`,
        `${badCommand}: field "agent": unknown agent "biuld" (did you mean "build"?)`,
      ]);
      assert.equal(lines[4], '4 problems found.');
    });
  });

  describe('crow config', () => {
    it('sets, gets and validates settings in the user file and the project file', async () => {
      assert.equal((await run(configCommand, ['path'])).out.trim(), userConfig());
      assert.equal((await run(configCommand, ['path', '--project'])).out.trim(), projectConfig());

      assert.equal((await run(configCommand, ['set', 'model', 'claude-opus-4-1'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'max_iterations', '30'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'permissions.allow_commands', '["npm test", "git status"]'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'providers.local.type', 'openai', '--project'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'providers.local.models."qwen3.5".vision', 'false', '--project'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'provider', 'local', '--project'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'model', 'qwen3.5', '--project'])).code, 0);

      trustFolder(project, env);
      assert.match(readFileSync(userConfig(), 'utf8'), /^max_iterations = 30$/m);
      assert.match(readFileSync(projectConfig(), 'utf8'), /^\[providers\.local\.models\."qwen3\.5"\]$/m);
      assert.equal((await run(configCommand, ['get', 'model'])).out, 'qwen3.5\n', 'the project wins');
      assert.equal((await run(configCommand, ['get', 'max_iterations'])).out, '30\n');
      assert.equal((await run(configCommand, ['get', 'permissions.allow_commands'])).out, '["npm test","git status"]\n');
      assert.equal((await run(configCommand, ['get', 'providers.local.models."qwen3.5".vision'])).out, 'false\n');
      assert.equal((await run(configCommand, ['get', 'providers.openai.api_key_env'])).out, 'OPENAI_API_KEY\n', 'built-in defaults show');
      const unset = await run(configCommand, ['get', 'telemetry.otlp_endpoint']);
      assert.deepEqual([unset.code, unset.err], [1, 'crow: telemetry.otlp_endpoint is not set, and has no default.\n']);

      const settings = resolveSettings(project, {}, env, { trusted: true });
      assert.deepEqual([settings.provider, settings.model, settings.maxIterations], ['local', 'qwen3.5', 30]);
      assert.deepEqual(settings.providers.local!.models['qwen3.5'], { vision: false });

      const valid = await run(configCommand, ['validate']);
      assert.equal(valid.code, 0, valid.out);
      assert.match(valid.out, /Settings are valid/);
    });

    it('gets the value in force and says where it comes from: default, user file, project file or environment', async () => {
      const source = async (key: string, extra: NodeJS.ProcessEnv = {}): Promise<[string, string]> => {
        const io = fakeIO({ cwd: project, env: { ...env, ...extra } });
        assert.equal(await configCommand(['get', key], io), 0, io.err());
        return [io.out().trim(), io.err().trim()];
      };
      assert.deepEqual(await source('permissions.write'), ['ask', 'crow: from default']);
      assert.deepEqual(await source('default_agent'), ['build', 'crow: from default']);
      assert.deepEqual(await source('model'), ['claude-sonnet-4-6', 'crow: from default (providers.anthropic.default_model)']);
      write(userConfig(), '[permissions]\nwrite = "allow"\n');
      assert.deepEqual(await source('permissions.write'), ['allow', `crow: from user file ${userConfig()}`]);
      write(projectConfig(), 'max_iterations = 12\n');
      trustFolder(project, env);
      assert.deepEqual(await source('max_iterations'), ['12', `crow: from project file ${projectConfig()}`]);
      assert.deepEqual(await source('model', { CROW_MODEL: 'gpt-5.4' }), ['gpt-5.4', 'crow: from environment (CROW_MODEL)']);
    });

    it('checks the merged settings before writing: a provider without a type is refused, with nothing written', async () => {
      const refused = await run(configCommand, ['set', 'providers.local.base_url', 'http://localhost:11434/v1']);
      assert.equal(refused.code, 2, 'a bad value is bad usage');
      assert.match(refused.err, /Provider "local" has no type: set providers\.local\.type/);
      assert.match(refused.err, /nothing was written/);
      assert.throws(() => readFileSync(userConfig()), /ENOENT/);
      assert.equal((await run(configCommand, ['set', 'providers.local.type', 'openai'])).code, 0);
      assert.equal((await run(configCommand, ['set', 'providers.local.base_url', 'http://localhost:11434/v1'])).code, 0);
      await assert.rejects(run(configCommand, ['set', 'permisions.write', 'allow']), /Did you mean "permissions\.write"\?/);
    });

    it('refuses unknown keys and invalid values without writing, and reports problems on validate', async () => {
      await assert.rejects(run(configCommand, ['set', 'max_iteratoins', '3']), /Unknown setting "max_iteratoins"\. Did you mean "max_iterations"/);
      await assert.rejects(run(configCommand, ['get', 'providers.local.bse_url']), /Did you mean "providers\.local\.base_url"\?/);
      const negative = await run(configCommand, ['set', 'max_iterations', '--', '-2']);
      assert.equal(negative.code, 2, 'a bad value is bad usage');
      assert.match(negative.err, /config\.toml: field "max_iterations": .*\n.*nothing was written/);
      const secret = await run(configCommand, ['set', 'api_key_env', 'sk-ant-api03-abcdef0123456789']);
      assert.equal(secret.code, 2, 'a bad value is bad usage');
      assert.match(secret.err, /looks like an API key itself/);
      assert.throws(() => readFileSync(userConfig()), /ENOENT/, 'nothing was written');

      write(projectConfig(), 'default_agent = "piar"\n');
      const unknownAgent = await run(configCommand, ['validate']);
      assert.equal(unknownAgent.code, 1);
      assert.match(unknownAgent.out, /field "default_agent": unknown agent "piar" \(did you mean "pair"\?\)/);

      write(projectConfig(), 'max_retries = "many"\nmodle = "x"\n');
      const broken = await run(configCommand, ['validate']);
      assert.equal(broken.code, 1);
      assert.match(broken.out, /\.crow\/config\.toml: field "max_retries": .*expected number/);
      assert.match(broken.out, /\.crow\/config\.toml: field "modle": unknown field \(did you mean "model"\?\)/);
      assert.match(broken.out, /2 problems found\./);
    });
  });
});
