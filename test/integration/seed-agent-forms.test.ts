/**
 * Agent files written as seed 002 writes them (`model: sonnet`, a list of
 * permissions, a `## Summary` in the report) work through the real binary:
 * read as Crow's own fields with a note saying how, and summed up by the
 * summary's first sentence.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { trustFolder } from '../support/trust';

/** Seed 002's own example, as written there, plus the role that makes it a subagent. */
const CODE_REVIEWER = `---
name: code-reviewer
description: Reviews code for bugs, performance issues, and style violations
role: subagent
model: sonnet  # or haiku for faster/cheaper agents
permissions:
  - FilesystemRead
  - SemanticSearch
enabled: true
---

# Code Reviewer Agent

You are a specialized code review agent.
`;

describe('seed 002 agent files through crow', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), text);
  };

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-forms-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    write('.crow/agents/base/code-reviewer.md', CODE_REVIEWER);
    trustFolder(workspace, env);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('accepts model: sonnet and a permission list, and says what they were read as', async () => {
    const validate = await runCrow(['agents', 'validate'], env, workspace);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
    assert.match(validate.stdout, /^note: .*code-reviewer\.md: field "model": "sonnet" is a model alias: claude-sonnet-4-6 on an Anthropic provider, the provider's default model on any other\.$/m);
    assert.match(validate.stdout, /^note: .*code-reviewer\.md: field "permissions": a list means "only these": read as your settings say; write, execute, network denied\.$/m);
    assert.match(validate.stdout, /^All \d+ agents, \d+ base agents and \d+ commands are valid\.$/m);

    const show = await runCrow(['agents', 'show', 'code-reviewer'], env, workspace);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^model: +anthropic\/claude-sonnet-4-6$/m);
    assert.match(show.stdout, /^permissions: +read allow, write deny, execute deny, network deny$/m);
  });

  it('crow run --model haiku and CROW_MODEL=opus take the alias too', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] }, { blocks: [{ type: 'text', text: 'Hi.' }] });
    assert.equal((await runCrow(['run', 'Hello', '--model', 'haiku'], env, workspace)).code, 0);
    assert.equal((await runCrow(['run', 'Hello'], { ...env, CROW_MODEL: 'opus' }, workspace)).code, 0);
    assert.deepEqual(server.requestsFor('anthropic').map((request) => request.body.model), ['claude-haiku-4-5', 'claude-opus-4-6']);
  });

  it('on a provider other than Anthropic, an alias means its default model', async () => {
    write('.crow/config.toml', '[providers.local]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\ndefault_model = "qwen3"\n');
    write('.crow/agents/base/code-reviewer.md', CODE_REVIEWER.replace('model: sonnet', 'provider: local\nmodel: haiku'));
    trustFolder(workspace, env);
    const show = await runCrow(['agents', 'show', 'code-reviewer'], env, workspace);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^model: +local\/qwen3$/m);
  });

  it('names a misspelt permission with the likely one, and uses nothing of that file', async () => {
    write('.crow/agents/base/code-reviewer.md', CODE_REVIEWER.replace('- SemanticSearch', '- FilesystemReed'));
    const validate = await runCrow(['agents', 'validate'], env, workspace);
    assert.equal(validate.code, 1);
    assert.match(validate.stdout, /code-reviewer\.md: field "permissions\[1\]": unknown permission "FilesystemReed" \(did you mean "FilesystemRead"\?\)/);
  });

  it('runs such a subagent on the model its alias names, and reports the first sentence of its ## Summary', async () => {
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'code-reviewer', task: 'Review the authentication module.' } }] },
      {
        blocks: [
          {
            type: 'text',
            text: '## Summary\nFound 3 critical security issues. Passwords are hashed with MD5, tokens are predictable.\n\n## Critical Issues\n- MD5 in auth.ts\n',
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'The review found three issues.' }] },
    );
    const run = await runCrow(['run', 'Have the auth code reviewed', '--model', 'claude-parent'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    const [parent, child] = server.requestsFor('anthropic');
    assert.equal(parent!.body.model, 'claude-parent');
    assert.equal(child!.body.model, 'claude-sonnet-4-6', 'model: sonnet ran on the Sonnet model');
    assert.match(run.stderr, /← code-reviewer completed: Found 3 critical security issues\.$/m);
    assert.doesNotMatch(run.stderr, /completed: ## Summary/);
  });

  it('takes a seed 002 file exactly as written, with no role, as an agent task can hand jobs to', async () => {
    write('.crow/agents/base/seed-reviewer.md', CODE_REVIEWER.replace('name: code-reviewer', 'name: seed-reviewer').replace('role: subagent\n', ''));
    trustFolder(workspace, env);
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'seed-reviewer', task: 'Review the login code.' } }] },
      { blocks: [{ type: 'text', text: '## Summary\nThe login code is fine.' }] },
      { blocks: [{ type: 'text', text: 'Reviewed: fine.' }] },
    );
    const run = await runCrow(['run', 'Have the login code reviewed'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /← seed-reviewer completed: The login code is fine\.$/m);
    const child = JSON.stringify(server.requestsFor('anthropic')[1]!.body.system);
    assert.match(child, /You are a specialized code review agent/, 'the job ran as the file\'s agent');
    const list = await runCrow(['agents', 'list'], env, workspace);
    assert.match(list.stdout, /^ {2}seed-reviewer +primary /m, 'still a primary too');
  });
});

describe("seed 002's default agents ship beside explorer and worker", function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-agents-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('crow agents list offers test-generator and documentation-writer as subagents', async () => {
    const list = await runCrow(['agents', 'list'], env, workspace);
    assert.equal(list.code, 0, list.stderr);
    for (const name of ['explorer', 'worker', 'code-reviewer']) assert.match(list.stdout, new RegExp(`^ {2}${name} +subagent `, 'm'));
    assert.match(list.stdout, /^ {2}test-generator +subagent +\S+ +read_file, list_directory, glob, grep, write_file, edit_file, bash, think, task_complete$/m);
    assert.match(list.stdout, /^ {2}documentation-writer +subagent +\S+ +read_file, list_directory, glob, grep, write_file, edit_file, think, task_complete$/m);
  });

  it('the builder hands test-writing to test-generator, which writes and runs a test and reports its ## Summary', async () => {
    writeFileSync(join(workspace, 'add.js'), 'module.exports = (a, b) => a + b;\n');
    const test = "const assert = require('node:assert');\nassert.strictEqual(require('./add')(2, 3), 5);\nconsole.log('add ok');\n";
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'test-generator', task: 'Write a test for add.js.' } }] },
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'add.test.js', content: test } }] },
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'node add.test.js' } }] },
      {
        blocks: [
          { type: 'text', text: '## Summary\nWrote one test for add.js, and it passes. It covers two positive numbers.\n\n## Tests\n- add.test.js\n' },
          { type: 'tool_call', name: 'task_complete', arguments: { summary: '## Summary\nWrote one test for add.js, and it passes.' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'The test generator added add.test.js.' }] },
    );
    const run = await runCrow(['run', 'Get add.js tested', '--allow', 'write,execute'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    const child = server.requestsFor('anthropic')[1]!.body;
    assert.match(JSON.stringify(child.system), /a subagent that writes tests/);
    assert.deepEqual(
      (child.tools as { name: string }[]).map((tool) => tool.name).sort(),
      ['bash', 'edit_file', 'glob', 'grep', 'list_directory', 'read_file', 'task_complete', 'think', 'write_file'],
    );
    assert.match(run.stderr, /→ Running test-generator…/);
    assert.match(run.stderr, /← test-generator completed: Wrote one test for add\.js, and it passes\.$/m);
    assert.match(readFileSync(join(workspace, 'add.test.js'), 'utf8'), /strictEqual/);
  });
});

describe('a seed 002 agent file without a role', function () {
  this.timeout(30_000);
  let home: string;
  let workspace: string;
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('is read as a primary agent that takes tasks too, with a note saying so', async () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-role-')));
    workspace = join(home, 'project');
    mkdirSync(join(workspace, '.crow', 'agents', 'base'), { recursive: true });
    writeFileSync(join(workspace, '.crow', 'agents', 'base', 'code-reviewer.md'), CODE_REVIEWER.replace('role: subagent\n', ''));
    const env = isolatedEnv(home);
    trustFolder(workspace, env);
    const validate = await runCrow(['agents', 'validate'], env, workspace);
    assert.equal(validate.code, 0, validate.stdout);
    assert.match(validate.stdout, /^note: .*code-reviewer\.md: field "role": not set, so this is a primary agent \(one you run yourself\) that other agents can also hand tasks to, as seed 002's agents are; add "role: subagent" to make it a subagent only\./m);
  });
});
