/**
 * Seed 000's configuration commands for agents, through the real binary:
 * `crow config set agents.base.builder.model.model …`,
 * `agents.base.builder.react.max_iterations 20`,
 * `agents.acp.BUILD-LOOP.control_flow.max_iterations 5` (the user's override
 * of that definition) and the matching `get`, and the runs they change.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const BUILTIN = resolve(__dirname, '../../agents');

describe("seed 000's crow config commands for agents", function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const crow = (...args: string[]) => runCrow(args, env, workspace);
  const userAgent = (kind: string, name: string): string => join(home, 'config', 'crow-agent', 'agents', kind, `${name}.md`);

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-config-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("agents.base.builder.model.model: get says where the model comes from; set writes the user's override, which the next run uses", async () => {
    const before = await crow('config', 'get', 'agents.base.builder.model.model');
    assert.equal(before.stdout, 'claude-sonnet-4-6\n');
    assert.match(before.stderr, /not set in .*agents\/base\/builder\.md: the default model of provider anthropic/);

    const set = await crow('config', 'set', 'agents.base.builder.model.model', 'claude-opus-4-20250514');
    assert.equal(set.code, 0, set.stderr);
    const file = userAgent('base', 'builder');
    assert.equal(set.stdout, `agents.base.builder.model.model = claude-opus-4-20250514 (model in ${file}; a new override of ${join(BUILTIN, 'base', 'builder.md')})\n`);
    assert.match(readFileSync(file, 'utf8'), /^---\nname: builder\ndescription: Writes and changes code, runs commands and tests; the worker behind every build agent\.\nrole: primary\nmodel: claude-opus-4-20250514\n---\n/);

    const after = await crow('config', 'get', 'agents.base.builder.model.model');
    assert.equal(after.stdout, 'claude-opus-4-20250514\n');
    assert.equal(after.stderr, `crow: from ${file} (model, your own definition)\n`);

    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    assert.equal((await crow('run', 'Hi')).code, 0);
    assert.equal(server.requestsFor('anthropic')[0]!.body.model, 'claude-opus-4-20250514');
  });

  it('agents.base.builder.react.max_iterations 20: the same override file gains the field; get reads it back', async () => {
    assert.equal((await crow('config', 'get', 'agents.base.builder.react.max_iterations')).stdout, '50\n');
    await crow('config', 'set', 'agents.base.builder.model.model', 'claude-opus-4-20250514');
    const set = await crow('config', 'set', 'agents.base.builder.react.max_iterations', '20');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, `agents.base.builder.react.max_iterations = 20 (max_iterations in ${userAgent('base', 'builder')})\n`);
    assert.match(readFileSync(userAgent('base', 'builder'), 'utf8'), /model: claude-opus-4-20250514\nmax_iterations: 20\n---/);
    assert.equal((await crow('config', 'get', 'agents.base.builder.react.max_iterations')).stdout, '20\n');
    assert.match((await crow('agents', 'show', 'builder')).stdout, /^max_iterations: +20$/m);
  });

  it('agents.acp.BUILD-LOOP.control_flow.max_iterations 5 writes the override of build-loop, and build-loop then stops after 5 turns', async () => {
    const before = await crow('config', 'get', 'agents.acp.BUILD-LOOP.control_flow.max_iterations');
    assert.equal(before.stdout, '10\n');
    assert.match(before.stderr, /the default of the loop flow/);
    const set = await crow('config', 'set', 'agents.acp.BUILD-LOOP.control_flow.max_iterations', '5');
    assert.equal(set.code, 0, set.stderr);
    const file = userAgent('acp', 'build-loop');
    assert.match(set.stdout, /^agents\.acp\.BUILD-LOOP\.control_flow\.max_iterations = 5 \(max_turns in .*\/acp\/build-loop\.md; a new override of .*\/agents\/acp\/build-loop\.md\)$/m);
    assert.equal(readFileSync(file, 'utf8'), readFileSync(join(BUILTIN, 'acp', 'build-loop.md'), 'utf8').replace('flow: loop\n', 'flow: loop\nmax_turns: 5\n'));
    assert.equal((await crow('config', 'get', 'agents.acp.BUILD-LOOP.control_flow.max_iterations')).stdout, '5\n');

    for (let turn = 0; turn < 6; turn++) server.enqueue('anthropic', { blocks: [{ type: 'text', text: `Still working (${turn + 1}).` }] });
    const run = await crow('run', 'Keep going', '--agent', 'build-loop');
    assert.equal(run.code, 3, 'stopped by its limit');
    assert.equal(server.requestsFor('anthropic').length, 5);
  });

  it('a reviewed flow counts rounds: control_flow.max_iterations sets max_rounds; --project writes the project\'s copy', async () => {
    const set = await crow('config', 'set', 'agents.acp.pair.control_flow.max_iterations', '2', '--project');
    assert.equal(set.code, 0, set.stderr);
    const file = join(workspace, '.crow', 'agents', 'acp', 'pair.md');
    assert.match(readFileSync(file, 'utf8'), /\nflow: smart\nmax_rounds: 2\n---\n/);
    assert.equal((await crow('config', 'get', 'agents.acp.pair.control_flow.max_rounds')).stdout, '2\n');
  });

  it('edits an override the user already has in place, keeping its comments and body', async () => {
    const file = userAgent('base', 'builder');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '---\ndescription: my builder   # mine\nmax_iterations: 12\n---\nYou build carefully.\n');
    assert.equal((await crow('config', 'set', 'agents.base.builder.react.max_iterations', '30')).code, 0);
    assert.equal(readFileSync(file, 'utf8'), '---\ndescription: my builder # mine\nmax_iterations: 30\n---\nYou build carefully.\n');
  });

  it('a bad value, an unknown agent or field exits 2 with what to do, and writes nothing', async () => {
    const zero = await crow('config', 'set', 'agents.base.builder.react.max_iterations', '0');
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /field "max_iterations": Too small[^\n]*\ncrow: nothing was written to .*builder\.md\.\n$/);
    assert.equal(existsSync(userAgent('base', 'builder')), false);

    const typo = await crow('config', 'set', 'agents.base.bulder.react.max_iterations', '3');
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Unknown base agent "bulder"\. Did you mean "builder"\?/);

    const field = await crow('config', 'get', 'agents.base.builder.react.max_iteration');
    assert.equal(field.code, 2);
    assert.match(field.stderr, /Unknown field "react\.max_iteration" of base agent builder\. Did you mean "react\.max_iterations"\?/);

    const hitl = await crow('config', 'set', 'agents.acp.build.control_flow.max_iterations', '3');
    assert.equal(hitl.code, 2);
    assert.match(hitl.stderr, /build takes one turn and hands back \(hitl\): it has no iterations to set\./);

    const coagent = await crow('config', 'set', 'agents.acp.build.coagent', 'reviewer');
    assert.equal(coagent.code, 2);
    assert.match(coagent.stderr, /a hitl flow has no coagent[\s\S]*nothing was written/);
    assert.equal(existsSync(userAgent('acp', 'build')), false);
  });
});
