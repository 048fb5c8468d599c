import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRESETS } from '../../src/config/control-flow';
import { main } from '../../src/adapters/cli/main';
import { ScriptedProvider } from '../../src/llm/scripted';
import { ACPSession } from '../../src/session/acp-session';
import { SessionStore } from '../../src/session/session-store';
import { baseAgent, composition, flowFixture, runFlow, tools, type FlowFixture } from '../support/flows';
import { fakeIO } from '../support/fake-io';

describe('crow sessions and crow trace', () => {
  let xdg: string;
  let fx: FlowFixture;
  let store: SessionStore;

  before(async () => {
    xdg = mkdtempSync(join(tmpdir(), 'crow-xdg-'));
    fx = flowFixture({ 'a.txt': 'a\n' });
    store = new SessionStore({ dataHome: join(xdg, 'crow-agent') });
    const builder = new ScriptedProvider([
      { text: 'Editing.', toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'b\n' } }], usage: { input: 120, output: 30 } },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'a.txt now says b.' } }] },
    ]);
    builder.pricing = { input: 3, output: 15 };
    const reviewer = new ScriptedProvider([{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'Verified.' } }] }]);
    const agent = composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools('write_file', 'task_complete')),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools('read_file', 'task_complete')),
    });
    fx.session.title = 'Make a.txt say b';
    fx.session.agentName = agent.name;
    store.attach(fx.session);
    await runFlow(agent, fx.session, 'Make a.txt say b.');
  });
  after(() => {
    rmSync(xdg, { recursive: true, force: true });
    fx.dispose();
  });

  const run = async (...argv: string[]) => {
    const io = fakeIO({ env: { XDG_DATA_HOME: xdg }, cwd: fx.root });
    const code = await main(argv, io);
    return { code, stdout: io.out(), stderr: io.err() };
  };

  it('lists the sessions of this folder', async () => {
    const { code, stdout } = await run('sessions', 'list');
    assert.equal(code, 0);
    assert.match(stdout, new RegExp(`${fx.session.id} .* crew \\(builder\\+reviewer\\)\\s+Make a\\.txt say b`));
    assert.match((await run('sessions', 'list', '--cwd', '/nowhere')).stdout, /No sessions in \/nowhere/);
  });

  it('shows a session as crow run showed it: the prompt, each agent at work, the review (here from a session stored before events were)', async () => {
    const { stdout } = await run('sessions', 'show', fx.session.id);
    assert.match(stdout, /› Make a\.txt say b\.\n\[builder\]\nEditing\.\n● Writing a\.txt\n {2}✓ Wrote a\.txt \+1 −1 \d+ms/);
    assert.match(stdout, /⇄ First review: the reviewer checks the work\n✓ Reviewer approved/);
  });

  it('exports markdown transcripts linked with wikilinks, and JSON', async () => {
    const out = mkdtempSync(join(tmpdir(), 'crow-export-'));
    try {
      const { stdout } = await run('sessions', 'export', fx.session.id, '--out', out);
      const folder = stdout.replace('Exported to ', '').trim();
      assert.deepEqual(readdirSync(folder).sort(), ['builder.md', 'metadata.json', 'reviewer.md', 'session.md']);
      const session = readFileSync(join(folder, 'session.md'), 'utf8');
      assert.match(session, /^---\nsession_id: /);
      assert.match(session, /- primary: \[\[builder\]\] \(builder\)/);
      const reviewer = readFileSync(join(folder, 'reviewer.md'), 'utf8');
      assert.match(reviewer, /parent: "\[\[session\]\]"/);
      assert.match(reviewer, /siblings:\n  - "\[\[builder\]\]"/);
      assert.match(reviewer, /## From builder/);
      // Each agent's transcript says what its own calls used: the builder's 150 tokens, the reviewer's none.
      assert.match(readFileSync(join(folder, 'builder.md'), 'utf8'), /^model: scripted-model\ntokens: 150\n/m);
      assert.match(reviewer, /^tokens: 0\n/m);
      assert.match(session, /^status: completed\nmodel: scripted-model\ntokens: 150\n/m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    const json = JSON.parse((await run('sessions', 'export', fx.session.id, '--format', 'json')).stdout);
    assert.equal(json.meta.id, fx.session.id);
    assert.equal(Object.keys(json.histories).length, 2);
    assert.ok(json.spans.length > 0);
  });

  it('prints the trace as a tree with tokens, cost and status', async () => {
    const { code, stdout } = await run('trace', fx.session.id);
    assert.equal(code, 0);
    assert.match(stdout, /^\[crew\] prompt crew \(.+\) ✓ · .* · run completed/m);
    assert.match(stdout, /├─ \[builder\/primary\] invoke_agent builder/);
    assert.match(stdout, /│  ├─ \[builder\] chat scripted-model .*✓ · 120 in · 30 out · \$0\.0008/);
    assert.match(stdout, /execute_tool write_file .*changed a\.txt/);
    assert.match(stdout, /handoff builder → reviewer .*review → reviewer/);
    const spans = JSON.parse((await run('trace', fx.session.id, '--json')).stdout);
    assert.ok(spans.some((s: { kind: string }) => s.kind === 'llm_call'));
  });

  it("points from a subagent's session to its parent's trace, where its spans are", async () => {
    const child = new ACPSession({ cwd: fx.root, agentName: 'explorer' });
    child.parent = { sessionId: fx.session.id, callId: 'call_7', agent: 'builder' };
    store.attach(child).close();
    const { code, stdout } = await run('trace', child.id);
    assert.equal(code, 0);
    assert.match(stdout, new RegExp(`its spans are in its parent's trace, under the task call call_7\\. Run: crow trace ${fx.session.id}`));
  });

  it('deletes, and names a missing session', async () => {
    const missing = await run('trace', 'nope');
    assert.equal(missing.code, 2, 'an unknown session is bad usage');
    assert.match(missing.stderr, /No stored session "nope"/);
  });
});
