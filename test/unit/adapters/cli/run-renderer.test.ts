import assert from 'node:assert/strict';
import { RunRenderer } from '../../../../src/adapters/cli/run-renderer';
import { styleFor } from '../../../../src/adapters/cli/terminal-style';
import type { AgentEvent } from '../../../../src/engine/events';
import { DEFAULT_POLICY } from '../../../../src/vocabulary/permission-types';

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream, {});

function renderer(): { r: RunRenderer; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const r = new RunRenderer({ out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) }, outStyle: plain, errStyle: plain });
  return { r, out: () => out, err: () => err };
}

const agent = (name: string, model: string) => ({ name, provider: { name: 'anthropic', model } }) as never;
const result = (diff?: string) => ({ status: 'success' as const, output: 'Overwrote x.js (+1 -1 lines).', metadata: { filesModified: ['x.js'], durationMs: 3, extra: {}, ...(diff ? { diff } : {}) } });

describe('the run as a terminal shows it', () => {
  it('opens with the agents, their models, the workspace and what is allowed', () => {
    const { r, err } = renderer();
    r.header({
      composition: { name: 'pair', primary: agent('builder', 'claude-a'), coagent: agent('reviewer', 'claude-b') } as never,
      workspace: '/work/app',
      rules: DEFAULT_POLICY.rules,
      sandboxed: true,
    });
    assert.equal(err(), 'crow · pair: builder anthropic/claude-a, reviewer anthropic/claude-b · /work/app · write ask, execute ask, network ask · commands sandboxed\n');
  });

  it('marks every line of thinking, across deltas, and keeps the answer on stdout', () => {
    const { r, out, err } = renderer();
    for (const delta of ['First I', ' look.\nThen I', ' act.']) r.render({ type: 'thinking_delta', agent: 'builder', delta });
    r.render({ type: 'text_delta', agent: 'builder', delta: 'The answer.' });
    assert.equal(err(), '┊ First I look.\n┊ Then I act.\n');
    assert.equal(out(), 'The answer.');
  });

  it('names the first speaker of a reviewed run, tells a review in two lines, and completes after the verdict', () => {
    const { r, err } = renderer();
    r.header({ composition: { name: 'pair', primary: agent('builder', 'm'), coagent: agent('reviewer', 'm') } as never, workspace: '/w', rules: DEFAULT_POLICY.rules, sandboxed: false });
    const events: AgentEvent[] = [
      { type: 'text_delta', agent: 'builder', delta: 'Done.\n' },
      { type: 'handoff', agent: 'builder', to: 'reviewer', purpose: 'review', text: 'builder reports on the task below' },
      { type: 'coagent_start', agent: 'reviewer', primary: 'builder', round: 1 },
      { type: 'text_delta', agent: 'reviewer', delta: 'Looks right.\n' },
      { type: 'task_complete', agent: 'reviewer', summary: 'Approved.' },
      { type: 'coagent_end', agent: 'reviewer', primary: 'builder', round: 1, verdict: 'approved', summary: 'Approved.' },
      { type: 'run_complete', agent: 'pair', status: 'completed', message: 'done' },
    ];
    for (const event of events) r.render(event);
    const lines = err().split('\n').slice(1, -1);
    assert.deepEqual(lines, ['[builder]', "⇄ reviewer reviews builder's work (round 1)", '[reviewer]', '✓ reviewer approved', '✔ Task complete: Approved.']);
    assert.doesNotMatch(err(), /below/);
  });

  it('shows an edit\'s diff under its result, unless its approval already showed it', () => {
    const { r, err } = renderer();
    const diff = '--- a/x.js\n+++ b/x.js\n@@ -1 +1 @@\n-a\n+b\n';
    r.render({ type: 'tool_call_start', agent: 'builder', callId: 'c1', tool: 'edit_file', kind: 'edit', arguments: {}, summary: 'x.js', locations: [] });
    r.render({ type: 'tool_call_end', agent: 'builder', callId: 'c1', tool: 'edit_file', result: result(diff), durationMs: 3 });
    assert.match(err(), /● edit_file x\.js\n {2}✓ 3ms Overwrote x\.js \(\+1 -1 lines\)\.\n {4}@@ -1 \+1 @@\n {4}-a\n {4}\+b\n$/);
    const before = err().length;
    r.render({ type: 'tool_call_start', agent: 'builder', callId: 'c2', tool: 'edit_file', kind: 'edit', arguments: {}, summary: 'x.js', locations: [] });
    r.markPreviewed('c2');
    r.render({ type: 'tool_call_end', agent: 'builder', callId: 'c2', tool: 'edit_file', result: result(diff), durationMs: 3 });
    assert.doesNotMatch(err().slice(before), /@@/);
  });

  it('lets a question wait until its tool line is on screen', async () => {
    const { r } = renderer();
    let shown = false;
    const waiting = r.whenShown('c9').then(() => (shown = true));
    await Promise.resolve();
    assert.equal(shown, false);
    r.render({ type: 'tool_call_start', agent: 'builder', callId: 'c9', tool: 'write_file', kind: 'edit', arguments: {}, summary: 'y.js', locations: [] });
    await waiting;
    assert.equal(shown, true);
    await r.whenShown('c9');
  });
});
