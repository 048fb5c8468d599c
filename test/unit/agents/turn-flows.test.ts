import assert from 'node:assert/strict';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { PromptRegistry } from '../../../src/config/prompts';
import { baseAgent, composition, flowFixture, runFlow, storyOf, tools, type FlowFixture } from '../../support/flows';

const WORKER_TOOLS = ['read_file', 'write_file', 'bash', 'task_complete'];

function lastUserText(provider: ScriptedProvider, call: number): string {
  const message = provider.requests[call]!.messages.at(-1)!;
  assert.equal(message.role, 'user');
  return message.role === 'user' ? message.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
}

describe('single-agent flows', () => {
  let fx: FlowFixture;
  beforeEach(() => (fx = flowFixture()));
  afterEach(() => fx.dispose());

  it('HITL: one turn, then control returns to the human', async () => {
    const provider = new ScriptedProvider([{ text: 'Which file do you mean?' }]);
    const agent = composition({ flow: { kind: 'hitl' }, primary: baseAgent('builder', provider, fx.workspace, tools(...WORKER_TOOLS)) });
    const { events, result } = await runFlow(agent, fx.session, 'Fix the bug.');
    assert.equal(result.status, 'needs_input');
    assert.equal(provider.requests.length, 1);
    assert.deepEqual(events.at(-1), { type: 'run_complete', agent: 'crew', status: 'needs_input', message: 'builder finished its turn; your move.' });
  });

  it('HITL: the primary may end the task itself when there is no reviewer', async () => {
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'Done.' } }] }]);
    const agent = composition({ flow: { kind: 'hitl' }, primary: baseAgent('builder', provider, fx.workspace, tools(...WORKER_TOOLS)) });
    const { events, result } = await runFlow(agent, fx.session, 'Do it.');
    assert.equal(result.status, 'completed');
    assert.equal(result.summary, 'Done.');
    assert.ok(storyOf(events).includes('builder ENDS THE TASK'));
  });

  it('Loop: turns continue until task_complete', async () => {
    const provider = new ScriptedProvider([
      { text: 'Looked at the code.' },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] },
      { text: 'Wrote a.txt.' },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'a.txt written.' } }] },
    ]);
    const agent = composition({ flow: { kind: 'loop', maxTurns: 5 }, primary: baseAgent('builder', provider, fx.workspace, tools(...WORKER_TOOLS)) });
    const { events, result } = await runFlow(agent, fx.session, 'Write a.txt.');
    assert.equal(result.status, 'completed');
    assert.equal(result.turns, 3);
    assert.deepEqual(storyOf(events), [
      'crew→builder:follow_up',
      'builder:write_file',
      'crew→builder:follow_up',
      'builder:task_complete',
      'builder ENDS THE TASK',
      'run:completed',
    ]);
    assert.match(lastUserText(provider, 1), /Continue\. Call task_complete when the whole task is done/);
  });

  it('Loop: the maximum ends the run with where things stand', async () => {
    const provider = new ScriptedProvider([{ text: 'Thinking about it.' }, { text: 'Still thinking.' }]);
    const agent = composition({ flow: { kind: 'loop', maxTurns: 2 }, primary: baseAgent('builder', provider, fx.workspace, tools(...WORKER_TOOLS)) });
    const { result } = await runFlow(agent, fx.session, 'Do it.');
    assert.equal(result.status, 'limit');
    assert.match(result.message, /Stopped after 2 turns .* without builder calling task_complete\. Its last message: "Still thinking\."/);
  });

  it('Static: the configured follow-up, or the template, after each turn', async () => {
    const provider = new ScriptedProvider([
      { text: 'Step one done.' },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'All steps done.' } }] },
    ]);
    const agent = composition({
      flow: { kind: 'static', maxTurns: 3, message: 'Did you run the tests? Continue.' },
      primary: baseAgent('builder', provider, fx.workspace, tools(...WORKER_TOOLS)),
    });
    const { result } = await runFlow(agent, fx.session, 'Do it.');
    assert.equal(result.status, 'completed');
    assert.equal(lastUserText(provider, 1), 'Did you run the tests? Continue.');

    const templated = new ScriptedProvider([{ text: 'One.' }, { toolCalls: [{ name: 'task_complete', arguments: { summary: 'x' } }] }]);
    const plain = composition({ flow: { kind: 'static', maxTurns: 3 }, primary: baseAgent('builder', templated, fx.workspace, tools(...WORKER_TOOLS)) });
    await runFlow(plain, fx.session, 'Do it.');
    assert.equal(lastUserText(templated, 1), new PromptRegistry().render('follow-up', {}).trim());
  });

  it('Generated: a generator writes the follow-up from the task and progress', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo exploring' } }] },
      { text: 'I explored the project.' },
      (request) => {
        assert.equal(request.tools.length, 0, 'the generator gets no tools');
        assert.match(request.system, /acceptance criteria/);
        const text = JSON.stringify(request.messages);
        assert.match(text, /Write hello\.txt/);
        assert.match(text, /bash .*echo exploring.* → ok/);
        return { text: 'Criteria: hello.txt exists with "hi". Not met yet. Next: write it.' };
      },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hi' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'hello.txt written.' } }] },
    ]);
    const agent = composition({ flow: { kind: 'generated', maxTurns: 4 }, primary: baseAgent('builder', provider, fx.workspace, tools(...WORKER_TOOLS)) });
    const { events, result } = await runFlow(agent, fx.session, 'Write hello.txt containing hi.');

    assert.equal(result.status, 'completed');
    const followUp = events.find((e) => e.type === 'handoff' && e.purpose === 'follow_up');
    assert.ok(followUp?.type === 'handoff');
    assert.equal(followUp.text, 'Criteria: hello.txt exists with "hi". Not met yet. Next: write it.');
    assert.equal(lastUserText(provider, 3), followUp.text);
    assert.equal(result.usage.input >= 0, true);
  });

  it('a provider error ends the run with a readable message', async () => {
    const provider = new ScriptedProvider([{ stopReason: 'error', errorMessage: 'Anthropic returned HTTP 529: overloaded' }]);
    const agent = composition({ flow: { kind: 'loop', maxTurns: 3 }, primary: baseAgent('builder', provider, fx.workspace, []) });
    const { result } = await runFlow(agent, fx.session, 'Hi.');
    assert.equal(result.status, 'error');
    assert.match(result.message, /builder stopped on an error: Anthropic returned HTTP 529/);
  });
});
