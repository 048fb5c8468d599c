/**
 * Seed 000's Loop(n) (a fixed number of primary↔coagent rounds) and a
 * coagent that reviews but may not end the task (can_terminate: false),
 * written as agent definitions and run through the real binary.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { trustFolder } from '../support/trust';

const done = (summary: string): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary } }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

describe("seed 000's Loop(n) and can_terminate in agent definitions", function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), text);
  };
  /** `crow run --json --agent NAME`: its exit code, the run_complete event, and the tools each request offered. */
  async function run(agent: string) {
    const result = await runCrow(['run', 'Improve the notes', '--agent', agent, '--json', '--allow', 'all'], env, workspace);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; status?: string; message?: string });
    const tools = server.requestsFor('anthropic').map((request) => ((request.body.tools ?? []) as { name: string }[]).map((tool) => tool.name));
    return { code: result.code, stderr: result.stderr, end: events.find((event) => event.type === 'run_complete')!, tools, system: server.requestsFor('anthropic').map((r) => JSON.stringify(r.body.system)) };
  }

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-flows-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    write('.crow/agents/acp/twice-reviewed.md', '---\ndescription: Two rounds of work and review, always.\nprimary: builder\ncoagent: reviewer\nflow: loop\nmax_rounds: 2\n---\n');
    write('.crow/agents/acp/advised.md', '---\ndescription: A reviewer that advises; the builder decides.\nprimary: builder\ncoagent: reviewer\nflow: smart\nmax_rounds: 3\ncan_terminate: false\n---\n');
    write('.crow/agents/acp/twice-advised.md', '---\ndescription: Two rounds, the reviewer only advising.\nprimary: builder\ncoagent: reviewer\nflow: loop\nmax_rounds: 2\ncan_terminate: false\n---\n');
    trustFolder(workspace, env);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('crow agents show describes them', async () => {
    const loop = await runCrow(['agents', 'show', 'twice-reviewed'], env, workspace);
    assert.match(loop.stdout, /^flow: +2 rounds of work and review \(loop, reviewer tools: full\)$/m);
    const advised = await runCrow(['agents', 'show', 'advised'], env, workspace);
    assert.match(advised.stdout, /^flow: +reviewed \(smart, reviewer tools: full, ≤3 rounds, the reviewer cannot end the task\)$/m);
  });

  it('Loop(n) runs every round, feedback going back to the primary, and is done after the last (not stopped at a limit)', async () => {
    server.enqueue('anthropic', done('Tidied the notes.'), say('Add a heading.'), done('Added a heading.'), say('A table of contents would help next time.'));
    const { code, end, system, stderr } = await run('twice-reviewed');
    assert.equal(code, 0, stderr);
    assert.equal(server.requestsFor('anthropic').length, 4, 'primary, reviewer, primary, reviewer');
    assert.deepEqual([end.status, end.message], ['completed', '2 rounds of work by builder and review by reviewer done.']);
    assert.match(system[1]!, /You alone decide when the task is done/);
    assert.match(JSON.stringify(server.requestsFor('anthropic')[1]!.body.messages), /review round 1 of 2\)[\s\S]*one of 2 fixed rounds/);
    assert.match(JSON.stringify(server.requestsFor('anthropic')[2]!.body.messages), /Add a heading\./, 'the feedback reached the primary');
  });

  it("Loop(n)'s reviewer may still end it early when it may terminate", async () => {
    server.enqueue('anthropic', done('Tidied the notes.'), done('Nothing left to improve.'));
    const { code, end } = await run('twice-reviewed');
    assert.equal(code, 0);
    assert.equal(server.requestsFor('anthropic').length, 2);
    assert.match(end.message!, /reviewer approved the work after 1 review round/);
  });

  it('can_terminate: false takes task_complete from the reviewer; the builder ends the task once it has had a review', async () => {
    server.enqueue('anthropic', done('First pass.'), say('The second section is missing.'), done('Wrote the second section.'));
    const { code, end, tools, system } = await run('advised');
    assert.equal(code, 0);
    assert.equal(tools.length, 3);
    assert.ok(tools[0]!.includes('task_complete'), 'the builder has it');
    assert.ok(!tools[1]!.includes('task_complete'), 'the reviewer does not');
    assert.match(system[1]!, /You review it; you do not decide when the task is done/);
    assert.match(JSON.stringify(server.requestsFor('anthropic')[1]!.body.messages), /you cannot end the task: builder decides when it is done/);
    assert.deepEqual([end.status, end.message], ['completed', 'builder finished the task after 1 review round by reviewer.']);
  });

  it('a Loop(n) whose reviewer may not terminate runs all its rounds', async () => {
    server.enqueue('anthropic', done('First pass.'), say('Fine, but shorter.'), done('Shorter now.'), say('Good.'));
    const { code, end, tools } = await run('twice-advised');
    assert.equal(code, 0);
    assert.equal(tools.length, 4);
    assert.ok(!tools[1]!.includes('task_complete') && !tools[3]!.includes('task_complete'));
    assert.equal(end.status, 'completed');
  });

  it('refuses can_terminate on a flow without a coagent, naming where it belongs', async () => {
    write('.crow/agents/acp/odd.md', '---\ndescription: x\nprimary: builder\nflow: loop\ncan_terminate: false\n---\n');
    const validate = await runCrow(['agents', 'validate'], env, workspace);
    assert.equal(validate.code, 1);
    assert.match(validate.stdout, /odd\.md: field "can_terminate": applies to coagent flows \(judge, verify, smart, chat, loop with a coagent\), not to a loop flow\./);
  });
});
