/**
 * Seed 003's telemetry commands and seed 002's parent_chain, through the
 * real binary, on a session whose builder handed a task to a subagent:
 * `crow telemetry external` lists the session, `external-trace` links its
 * internal traces and the subagent's, `trace` prints one internal agent's
 * whole history, and the exported metadata carries each one's chain of
 * agents from the person down.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

interface Linked {
  session_id: string;
  agent: string;
  parent_chain: string[];
  internal: { trace_id: string; role: string; agent: string; siblings: string[]; tokens: number }[];
  subagents: Linked[];
}

describe("seed 003's telemetry commands and seed 002's parent_chain through crow", function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  let session: string;

  before(async () => {
    server = await FakeLlmServer.start();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-seed-telemetry-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'code-reviewer', task: 'Review the greeting module.' } }] },
      { blocks: [{ type: 'text', text: '## Summary\nThe greeting module is fine.' }] },
      { blocks: [{ type: 'text', text: 'Reviewed: fine.' }] },
    );
    const run = await runCrow(['run', '--json', 'Have the greeting reviewed'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    session = /"sessionId":"([^"]+)"/.exec(run.stdout)![1]!;
  });
  after(async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('external lists the session as crow sessions list does', async () => {
    const external = await runCrow(['telemetry', 'external', '--json'], env, workspace);
    assert.equal(external.code, 0, external.stderr);
    assert.match(external.stdout, new RegExp(session));
    const help = await runCrow(['telemetry', '--help'], env, workspace);
    assert.match(help.stdout, /external-trace ID \[--json\]/);
  });

  it("external-trace links the session's internal traces and its subagent's, each with its chain of agents", async () => {
    const trace = await runCrow(['telemetry', 'external-trace', session.slice(0, 8), '--json'], env, workspace);
    assert.equal(trace.code, 0, trace.stderr);
    const linked = JSON.parse(trace.stdout) as Linked;
    assert.equal(linked.session_id, session);
    assert.deepEqual(linked.parent_chain, ['user', 'builder']);
    assert.deepEqual(linked.internal.map((agent) => [agent.role, agent.agent]), [['primary', 'builder']]);
    assert.ok(linked.internal[0]!.tokens > 0);
    const [reviewer] = linked.subagents;
    assert.equal(reviewer!.agent, 'code-reviewer');
    assert.deepEqual(reviewer!.parent_chain, ['user', 'builder', 'code-reviewer']);
    const text = await runCrow(['telemetry', 'external-trace', session], env, workspace);
    assert.match(text.stdout, /^session [0-9a-f-]+ · agent build · needs_input · 1 prompt · user → builder$/m);
    assert.match(text.stdout, /^ {2}subagent code-reviewer \(started by builder\) · .* · user → builder → code-reviewer$/m);
  });

  it("trace prints one internal agent's whole history, found by a start of its id", async () => {
    const linked = JSON.parse((await runCrow(['telemetry', 'external-trace', session, '--json'], env, workspace)).stdout) as Linked;
    const worker = linked.subagents[0]!.internal[0]!.trace_id;
    const history = await runCrow(['telemetry', 'trace', worker.slice(0, 10)], env, workspace);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /^parent_session_id: /m);
    assert.match(history.stdout, /Review the greeting module\./);
    assert.match(history.stdout, /The greeting module is fine\./);
    const unknown = await runCrow(['telemetry', 'trace', 'ffffffff'], env, workspace);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No internal session "ffffffff"\. crow telemetry external-trace ID lists a session's internal ids\./);
  });

  it('the exported metadata carries parent_chain for the session and its subagent', async () => {
    const exported = await runCrow(['sessions', 'export', session, '--format', 'metadata'], env, workspace);
    assert.equal(exported.code, 0, exported.stderr);
    const metadata = JSON.parse(exported.stdout) as { parent_chain: string[]; subagents: { parent_chain: string[] }[] };
    assert.deepEqual(metadata.parent_chain, ['user', 'builder']);
    assert.deepEqual(metadata.subagents[0]!.parent_chain, ['user', 'builder', 'code-reviewer']);
  });
});
