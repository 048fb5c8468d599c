import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRESETS } from '../../../src/config/control-flow';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { baseAgent, composition, flowFixture, runFlow, storyOf, tools, type FlowFixture } from '../../support/flows';

const BUGGY = 'exports.add = (a, b) => a - b;\n';
const WRONG_FIX = 'exports.add = (a, b) => b - a;\n';
const FIXED = 'exports.add = (a, b) => a + b;\n';
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('./calc').add(2, 3), 5);\nconsole.log('all passed');\n";

const WORKER_TOOLS = ['read_file', 'write_file', 'bash', 'todo_write', 'task_complete'];
const CHECKER_TOOLS = ['read_file', 'bash', 'todo_read', 'task_complete'];

function userTexts(provider: ScriptedProvider, call: number): string {
  return JSON.stringify(provider.requests[call]!.messages.filter((m) => m.role === 'user'));
}

describe('coagent flows (only the reviewer ends the task)', () => {
  let fx: FlowFixture;
  beforeEach(() => (fx = flowFixture({ 'calc.js': BUGGY, 'test.js': TEST })));
  afterEach(() => fx.dispose());

  it('verify: a false claim of success is caught by a check, fixed, then approved', async () => {
    const builder = new ScriptedProvider([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'calc.js', content: WRONG_FIX } }] },
      { text: 'I fixed add(); the tests pass.' },
      { text: 'Changed add() in calc.js. Tests pass.' },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'calc.js', content: FIXED } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'node test.js' } }] },
      { text: 'add() now returns a + b and node test.js passes.' },
      { text: 'add() returns a + b; node test.js prints "all passed".' },
    ]);
    const verifier = new ScriptedProvider([
      { toolCalls: [{ name: 'bash', arguments: { command: 'node test.js' } }] },
      { text: 'node test.js fails: add(2, 3) returns 1, expected 5. Make add return a + b.' },
      { toolCalls: [{ name: 'bash', arguments: { command: 'node test.js' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'add() fixed; verified with node test.js.' } }] },
    ]);
    const agent = composition({
      flow: PRESETS.verify,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('verifier', verifier, fx.workspace, tools(...CHECKER_TOOLS)),
    });

    const { events, result } = await runFlow(agent, fx.session, 'Fix add() in calc.js so test.js passes.');

    assert.deepEqual(storyOf(events), [
      'builder:write_file',
      'crew→builder:summary_request',
      'builder→verifier:review',
      'verifier:coagent_start',
      'verifier:bash',
      'verifier:coagent_end(feedback)',
      'verifier→builder:feedback',
      'builder:write_file',
      'builder:bash',
      'crew→builder:summary_request',
      'builder→verifier:review',
      'verifier:coagent_start',
      'verifier:bash',
      'verifier:task_complete',
      'verifier ENDS THE TASK',
      'verifier:coagent_end(approved)',
      'run:completed',
    ]);
    const failedCheck = events.find((e) => e.type === 'tool_call_end' && e.agent === 'verifier')!;
    assert.ok(failedCheck.type === 'tool_call_end' && failedCheck.result.metadata.extra.exitCode === 1);
    assert.equal(result.status, 'completed');
    assert.equal(result.summary, 'add() fixed; verified with node test.js.');
    assert.equal(readFileSync(join(fx.root, 'calc.js'), 'utf8'), FIXED);
    assert.deepEqual(result.filesChanged, ['calc.js']);

    // Role flip: the verifier reads the builder's summary as a user message, not its history.
    assert.match(userTexts(verifier, 0), /Changed add\(\) in calc\.js\. Tests pass\./);
    assert.doesNotMatch(userTexts(verifier, 0), /I fixed add\(\); the tests pass\./);
    // The feedback becomes the builder's next user message.
    assert.match(userTexts(builder, 3), /add\(2, 3\) returns 1, expected 5/);
    // The summary turn keeps the builder's tools (its history holds tool calls) but lets it call none.
    assert.equal(builder.requests[2]!.toolChoice, 'none', 'the summary turn lets the builder call no tool');
    assert.deepEqual(builder.requests[2]!.tools, builder.requests[1]!.tools, 'and sends the same tools, so the prompt prefix stays cached');
  });

  it('judge: rejects twice, then approves; the judge has no tools but task_complete', async () => {
    const builder = new ScriptedProvider(
      Array.from({ length: 3 }, (_, i) => [{ text: `Attempt ${i + 1} done.` }, { text: `Summary of attempt ${i + 1}.` }]).flat(),
    );
    const judge = new ScriptedProvider([
      { text: 'Rejected: no tests were run.' },
      { text: 'Rejected: the edge case for negative numbers is unhandled.' },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Approved on the third attempt.' } }] },
    ]);
    const agent = composition({
      flow: PRESETS.judge,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('judge', judge, fx.workspace, tools('task_complete')),
    });

    const { events, result } = await runFlow(agent, fx.session, 'Do the thing.');

    const verdicts = events.flatMap((e) => (e.type === 'coagent_end' ? [e.verdict] : []));
    assert.deepEqual(verdicts, ['feedback', 'feedback', 'approved']);
    assert.deepEqual(judge.requests.map((r) => r.tools.map((t) => t.name)), [['task_complete'], ['task_complete'], ['task_complete']]);
    assert.equal(result.status, 'completed');
    assert.match(userTexts(builder, 4), /negative numbers/);
    assert.match(userTexts(judge, 2), /round 3 of at most 5/);
  });

  it('smart: the reviewer fixes the problem itself and approves', async () => {
    const builder = new ScriptedProvider([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'calc.js', content: WRONG_FIX } }] },
      { text: 'Done.' },
      { text: 'Rewrote add().' },
    ]);
    const reviewer = new ScriptedProvider([
      { toolCalls: [{ name: 'bash', arguments: { command: 'node test.js' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'calc.js', content: FIXED } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'node test.js' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Fixed the operand order myself; tests pass.' } }] },
    ]);
    const agent = composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools(...WORKER_TOOLS)),
    });

    const { events, result } = await runFlow(agent, fx.session, 'Fix add().');

    assert.equal(result.status, 'completed');
    assert.equal(events.filter((e) => e.type === 'coagent_start').length, 1, 'one round');
    assert.ok(events.some((e) => e.type === 'tool_call_start' && e.agent === 'reviewer' && e.tool === 'write_file'));
    assert.equal(readFileSync(join(fx.root, 'calc.js'), 'utf8'), FIXED);
    assert.deepEqual(result.filesChanged, ['calc.js']);
    assert.match(userTexts(reviewer, 0), /fix it yourself/);
  });

  it("a primary's task_complete hands the work to review instead of ending the task", async () => {
    const builder = new ScriptedProvider([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'All done, tests pass.' } }] },
    ]);
    const reviewer = new ScriptedProvider([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Checked and approved.' } }] },
    ]);
    const agent = composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools(...WORKER_TOOLS)),
    });

    const { events, result } = await runFlow(agent, fx.session, 'Fix add().');

    assert.deepEqual(storyOf(events), [
      'builder:task_complete',
      'builder→reviewer:review',
      'reviewer:coagent_start',
      'reviewer:task_complete',
      'reviewer ENDS THE TASK',
      'reviewer:coagent_end(approved)',
      'run:completed',
    ]);
    assert.ok(
      events.every((e) => !(e.type === 'task_complete' && e.agent === 'builder')),
      "the builder's task_complete is not announced as the end",
    );
    assert.equal(builder.requests.length, 1, 'its summary is the task_complete summary: no summary turn');
    assert.match(userTexts(reviewer, 0), /All done, tests pass\./);
    assert.equal(result.summary, 'Checked and approved.');
  });

  it('cancel during the review keeps the work; the next prompt continues with the interruption visible', async () => {
    const builder = new ScriptedProvider([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'calc.js', content: FIXED } }] },
      { text: 'Fixed.' },
      { text: 'Fixed add().' },
      { text: 'Continuing: the fix is in place.' },
      { text: 'add() is fixed.' },
    ]);
    const reviewer = new ScriptedProvider([
      { text: 'Let me look at this carefully and run the whole suite, which takes a while...', hangAfterDeltas: true },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Approved.' } }] },
    ]);
    const agent = composition({
      flow: PRESETS.smart,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('reviewer', reviewer, fx.workspace, tools(...WORKER_TOOLS)),
    });
    const controller = new AbortController();

    const first = await runFlow(agent, fx.session, 'Fix add().', {
      signal: controller.signal,
      onEvent: (e) => e.type === 'text_delta' && e.agent === 'reviewer' && controller.abort(),
    });

    assert.equal(first.result.status, 'cancelled');
    assert.match(first.result.message, /while reviewer was working/);
    assert.deepEqual(first.events.at(-1), { type: 'run_complete', agent: 'crew', status: 'cancelled', message: first.result.message });
    assert.ok(first.events.some((e) => e.type === 'coagent_end' && e.verdict === 'cancelled'));
    assert.equal(readFileSync(join(fx.root, 'calc.js'), 'utf8'), FIXED, 'the work is kept');
    assert.deepEqual(fx.session.interruption?.agent, 'reviewer');

    const second = await runFlow(agent, fx.session, 'Go on.');

    assert.equal(second.result.status, 'completed');
    const resumed = builder.requests[3]!.messages.at(-1)!;
    assert.match(JSON.stringify(resumed), /interrupted the previous run while reviewer was working.*Go on\./);
    assert.equal(fx.session.interruption, undefined);
  });

  it('stops at the maximum of review rounds and says where things stand', async () => {
    const builder = new ScriptedProvider(Array.from({ length: 4 }, () => ({ text: 'Tried.' })));
    const judge = new ScriptedProvider([{ text: 'Not yet: add tests.' }, { text: 'Still no tests.' }]);
    const agent = composition({
      flow: { ...PRESETS.judge, maxRounds: 2 },
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('judge', judge, fx.workspace, tools('task_complete')),
    });

    const { events, result } = await runFlow(agent, fx.session, 'Do it.');

    assert.equal(result.status, 'limit');
    assert.match(result.message, /Stopped after 2 review rounds without judge's approval\. judge's last feedback: "Still no tests\."/);
    assert.match(result.message, /Send a prompt to continue/);
    assert.deepEqual(events.at(-1), { type: 'run_complete', agent: 'crew', status: 'limit', message: result.message });
  });

  it('refuses a review flow without a coagent, or a coagent that cannot end the task', () => {
    const p = new ScriptedProvider();
    assert.throws(
      () => composition({ flow: PRESETS.smart, primary: baseAgent('builder', p, fx.workspace, []) }),
      /needs a coagent/,
    );
    assert.throws(
      () =>
        composition({
          flow: PRESETS.judge,
          primary: baseAgent('builder', p, fx.workspace, []),
          coagent: baseAgent('judge', p, fx.workspace, tools('read_file')),
        }),
      /must have the task_complete tool/,
    );
  });

  it('chat: back and forth between peers until the reviewer calls task_complete', async () => {
    const builder = new ScriptedProvider([
      { text: 'Proposal: split calc.js into two modules.' },
      { text: 'I propose splitting calc.js.' },
      { text: 'Fair point: keeping one module, adding a comment instead.' },
      { text: 'Kept one module, added a comment.' },
    ]);
    const peer = new ScriptedProvider([
      { text: 'Two modules is overkill for one function. Why split?' },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Agreed: one module with a comment.' } }] },
    ]);
    const agent = composition({
      flow: PRESETS.chat,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('peer', peer, fx.workspace, tools(...WORKER_TOOLS)),
    });
    const { events, result } = await runFlow(agent, fx.session, 'How should calc.js be organised?');
    assert.equal(result.status, 'completed');
    assert.deepEqual(events.flatMap((e) => (e.type === 'coagent_end' ? [e.verdict] : [])), ['feedback', 'approved']);
    assert.match(userTexts(peer, 0), /as a peer/);
    assert.match(userTexts(builder, 2), /Two modules is overkill/);
  });

  it('briefs the reviewer with a static text or a generated brief instead of the template instructions', async () => {
    const builder = new ScriptedProvider([{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'Done.' } }] }]);
    const reviewer = new ScriptedProvider([{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'OK.' } }] }]);
    const staticAgent = composition({
      flow: PRESETS.judge,
      primary: baseAgent('builder', builder, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('judge', reviewer, fx.workspace, tools('task_complete')),
      handoff: { kind: 'static', text: 'Check only that calc.js still exports add.' },
    });
    await runFlow(staticAgent, fx.session, 'Tidy calc.js.');
    const brief = userTexts(reviewer, 0);
    assert.match(brief, /Check only that calc\.js still exports add\./);
    assert.match(brief, /builder's summary/);
    assert.doesNotMatch(brief, /Judge the work from the summary/);

    const builder2 = new ScriptedProvider([{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'Done again.' } }] }]);
    const reviewer2 = new ScriptedProvider([
      (request) => {
        assert.equal(request.system, 'Write a review checklist for this task.');
        return { text: '- calc.js exports add\n- tests pass' };
      },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Checklist met.' } }] },
    ]);
    const generated = composition({
      flow: PRESETS.judge,
      primary: baseAgent('builder', builder2, fx.workspace, tools(...WORKER_TOOLS)),
      coagent: baseAgent('judge', reviewer2, fx.workspace, tools('task_complete')),
      handoff: { kind: 'generated', generatorPrompt: 'Write a review checklist for this task.' },
    });
    const { result } = await runFlow(generated, fx.session, 'Tidy calc.js.');
    assert.equal(result.status, 'completed');
    assert.match(userTexts(reviewer2, 1), /- calc\.js exports add\\n- tests pass/);
  });
});
