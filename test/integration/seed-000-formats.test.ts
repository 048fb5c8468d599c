/**
 * Agents as seed 000 and seed 003 write them, through the real binary:
 * seed 000's TOML definitions (a base agent whose system prompt is a file
 * under prompts/, an ACP agent with its [composition], [control_flow] and
 * an inline [handoff] template) run unchanged, say which form they were
 * read from, and refuse what the form does not have; the seeds' names for
 * the built-in agents (BUILD-SMART, dual, …) pick those agents.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** Seed 000's builder, as its "Base Agent Configuration" example writes it. */
const BUILDER = `# ~/.config/crow-agent/agents/base/builder.toml
[agent]
name = "tomlbuilder"
role = "primary"  # or "subagent"

[model]
provider = "anthropic"
model = "claude-sonnet-4-20250514"
temperature = 0.7
max_tokens = 8192

[tools]
enabled = [
    "read_file",
    "edit_file",
    "write_file",
    "bash",
    "glob",
    "grep",
    "list_directory",
    "web_fetch",
    "web_search",
    "todo_write",
    "todo_read",
    "think",
]

[react]
max_iterations = 20
doom_loop_threshold = 3

[prompt]
# Can be inline or file reference
system = { file = "prompts/system/builder.md" }
`;

const REVIEWER = `[agent]
name = "tomlreviewer"
role = "primary"

[model]
provider = "anthropic"
model = "claude-reviewer"

[tools]
enabled = ["read_file", "grep", "task_complete"]

[prompt]
system = "You review the builder's work."
`;

/** Seed 000's BUILD-SMART, as its "ACP Agent Configuration" example writes it (under its own name). */
const SMART = `[agent]
name = "TOML-SMART"
description = "Builder with smart review - reviewer can evaluate and fix issues"

[composition]
primary = "tomlbuilder"
coagent = "tomlreviewer"

[control_flow]
type = "smart"
# For Loop type: max_iterations = 3

[handoff]
type = "template"  # or "static" or "generated"
template = """
Review the work completed above.

Current task state:
{{todo_state}}

You may:
1. Call task_complete if the work is acceptable
2. Fix any issues yourself using the available tools
3. Provide specific feedback for another iteration
"""
`;

describe('seed 000 and seed 003 agents through crow', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let config: string;
  let env: NodeJS.ProcessEnv;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-000-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    config = join(env.XDG_CONFIG_HOME!, 'crow-agent');
    write(join(config, 'agents/base/builder.toml'), BUILDER);
    write(join(config, 'agents/base/reviewer.toml'), REVIEWER);
    write(join(config, 'agents/acp/BUILD-SMART-TOML.toml'), SMART);
    write(join(config, 'prompts/system/builder.md'), 'You are the builder of seed 000.\n');
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('reads the TOML definitions unchanged and says which form each came from', async () => {
    const validate = await runCrow(['agents', 'validate'], env, workspace);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
    assert.match(validate.stdout, /^note: .*builder\.toml: field "format": seed 000's TOML form: \[agent\], \[model\], \[tools\], \[react\], \[prompt\] read as this agent's base agent fields\.$/m);
    assert.match(validate.stdout, /^note: .*BUILD-SMART-TOML\.toml: field "format": seed 000's TOML form: \[agent\], \[composition\], \[control_flow\], \[handoff\]/m);
    const show = await runCrow(['agents', 'show', 'TOML-SMART'], env, workspace);
    assert.match(show.stdout, /^flow: +reviewed \(smart, reviewer tools: full, ≤5 rounds\)$/m);
    assert.match(show.stdout, /^primary: +tomlbuilder \(anthropic\/claude-sonnet-4-20250514\)$/m);
    assert.match(show.stdout, /^handoff: +a template written in the definition$/m);
    const base = await runCrow(['agents', 'show', 'tomlbuilder'], env, workspace);
    assert.match(base.stdout, /^max_iterations: 20$/m);
    assert.match(base.stdout, /^system prompt: +\[prompt\] system of .*builder\.toml$/m);
  });

  it('runs the TOML agent set: the builder on its prompt file, the reviewer briefed by the inline template', async () => {
    // The Anthropic API takes no temperature since 2026-10-21 (a refusal, tested below): the builder's [model] names an OpenAI model here.
    write(join(config, 'agents/base/builder.toml'), BUILDER.replace('provider = "anthropic"\nmodel = "claude-sonnet-4-20250514"', 'provider = "openai"\nmodel = "gpt-seed"'));
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'todo_write', arguments: { todos: [{ id: '1', content: 'Greet the world', status: 'completed' }] } }] },
      { blocks: [{ type: 'text', text: 'Greeted.' }] },
      { blocks: [{ type: 'text', text: 'I greeted the world.' }] },
    );
    server.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'The greeting is done.' } }] });
    const run = await runCrow(['run', '--agent', 'TOML-SMART', 'Greet the world'], { ...env, OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.openaiBaseUrl }, workspace);
    assert.equal(run.code, 0, run.stderr);
    const [builder] = server.requestsFor('openai');
    const [reviewer] = server.requestsFor('anthropic');
    assert.equal(builder!.body.model, 'gpt-seed');
    assert.equal(builder!.body.temperature, 0.7);
    assert.equal(builder!.body.max_tokens ?? builder!.body.max_completion_tokens, 8192);
    assert.match(JSON.stringify(builder!.body.messages[0]), /You are the builder of seed 000\./);
    assert.equal(reviewer!.body.model, 'claude-reviewer');
    const brief = JSON.stringify(reviewer!.body.messages);
    assert.match(brief, /Review the work completed above\.\\n\\nCurrent task state:\\n.*Greet the world/);
    assert.match(run.stdout + run.stderr, /The greeting is done\./);
  });

  it("says what to change when seed 000's example temperature meets the Anthropic API, naming the file", async () => {
    const run = await runCrow(['run', '--agent', 'TOML-SMART', 'Greet the world'], env, workspace);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Agent "tomlbuilder" \(.*builder\.toml\) sets temperature 0\.7, but anthropic\/claude-sonnet-4-20250514 is on the Anthropic API, which takes no temperature \(API version 2026-10-21\): remove temperature from the agent\./);
    assert.equal(server.requestsFor('anthropic').length, 0);
  });

  it('refuses what the TOML form does not have, naming the nearest table or key, and a prompt file outside the folder', async () => {
    write(join(config, 'agents/base/builder.toml'), BUILDER.replace('[react]', '[reacts]'));
    write(join(config, 'agents/base/reviewer.toml'), REVIEWER.replace('[prompt]\nsystem = "You review the builder\'s work."', '[prompt]\nsystem = { file = "../../../etc/passwd" }'));
    write(join(config, 'agents/acp/BUILD-SMART-TOML.toml'), SMART.replace('type = "smart"', 'type = "smrt"'));
    write(join(config, 'agents/acp/broken.toml'), '[agent\nname = "x"');
    const validate = await runCrow(['agents', 'validate'], env, workspace);
    assert.equal(validate.code, 1);
    assert.match(validate.stdout, /builder\.toml: field "reacts": unknown table \[reacts\] \(did you mean \[react\]\?\)/);
    assert.match(validate.stdout, /reviewer\.toml: field "prompt\.system\.file": "\.\.\/\.\.\/\.\.\/etc\/passwd" leads out of .*crow-agent, where the definition's files must be\./);
    assert.match(validate.stdout, /BUILD-SMART-TOML\.toml: field "control_flow\.type": unknown control flow "smrt" \(did you mean "smart"\?\)/);
    assert.match(validate.stdout, /broken\.toml: not valid TOML/);
  });

  it("takes the seeds' names for the built-in agents: seed 000's BUILD-SMART and seed 003's dual are pair", async () => {
    const show = await runCrow(['agents', 'show', 'BUILD-SMART'], env, workspace);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^name: +"BUILD-SMART" is seed 000's agent name for pair$/m);
    assert.match(show.stdout, /^agent: +pair$/m);
    const react = await runCrow(['agents', 'show', 'react'], env, workspace);
    assert.match(react.stdout, /^name: +"react" is seed 003's mode name for build$/m);
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Planned.' }] });
    const run = await runCrow(['run', '--agent', 'PLAN', '--json', 'Plan it'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /"agent":"plan"/);
  });

  describe("seed 000's provider files", () => {
    /** Seed 000's anthropic.toml, as its "Provider Configuration" example writes it. */
    const ANTHROPIC = `# ~/.config/crow-agent/providers/anthropic.toml
[provider]
name = "anthropic"
type = "anthropic"

[auth]
# Can be env var reference or direct (not recommended)
api_key = { env = "ANTHROPIC_API_KEY" }

[defaults]
model = "claude-sonnet-4-20250514"
max_tokens = 8192

[models.claude-sonnet-4-20250514]
context_window = 200000
supports_tools = true
supports_vision = true

[models.claude-opus-4-20250514]
context_window = 200000
supports_tools = true
supports_vision = true
supports_extended_thinking = true
`;

    it('reads providers/NAME.toml as written: its default model and max_tokens reach the request', async () => {
      write(join(config, 'providers/anthropic.toml'), ANTHROPIC);
      server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
      const run = await runCrow(['run', 'Hello'], env, workspace);
      assert.equal(run.code, 0, run.stderr);
      const [request] = server.requestsFor('anthropic');
      assert.equal(request!.body.model, 'claude-sonnet-4-20250514');
      assert.ok((request!.body.max_tokens as number) <= 8192, String(request!.body.max_tokens));
      const validate = await runCrow(['config', 'validate'], env, workspace);
      assert.equal(validate.code, 0, validate.stdout);
    });

    it("refuses a key written in the file, and names a misspelt table, in crow config validate and at run", async () => {
      write(join(config, 'providers/anthropic.toml'), ANTHROPIC.replace('api_key = { env = "ANTHROPIC_API_KEY" }', 'api_key = "sk-ant-written-here"').replace('[defaults]', '[default]'));
      const validate = await runCrow(['config', 'validate'], env, workspace);
      assert.equal(validate.code, 1);
      assert.match(validate.stdout, /anthropic\.toml: field "default": unknown table \[default\] \(did you mean \[defaults\]\?\)/);
      write(join(config, 'providers/anthropic.toml'), ANTHROPIC.replace('api_key = { env = "ANTHROPIC_API_KEY" }', 'api_key = "sk-ant-written-here"'));
      const run = await runCrow(['run', 'Hello'], env, workspace);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /anthropic\.toml: field "auth\.api_key": a key is never written in a file: put it in an environment variable and name it, api_key = \{ env = "MY_API_KEY" \}\./);
      assert.doesNotMatch(run.stderr, /sk-ant-written-here/);
      assert.equal(server.requestsFor('anthropic').length, 0);
    });
  });
});

