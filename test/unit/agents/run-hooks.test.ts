/**
 * The hooks around a whole run, as a composition applies them: a prompt a
 * user_prompt_submit hook blocks never reaches the model, its context
 * does; a stop hook sends the agents back to work once, and the run still
 * ends with one run_complete carrying every pass's totals.
 */
import assert from 'node:assert/strict';
import type { HookEvent } from '../../../src/config/hook-settings';
import { ScriptedProvider } from '../../../src/llm/scripted';
import type { CallVerdict, Hooks, PromptVerdict, RunEnding } from '../../../src/tools/hooks';
import { baseAgent, composition, type FlowFixture, flowFixture, tools } from '../../support/flows';

class RunHooks implements Hooks {
  readonly endings: RunEnding[] = [];

  constructor(
    private readonly prompt: PromptVerdict = { context: [] },
    private readonly stops: ({ continueWith?: string } | undefined)[] = [],
  ) {}

  has(event: HookEvent): boolean {
    return event === 'user_prompt_submit' || event === 'stop';
  }

  async beforeCall(): Promise<CallVerdict> {
    return { run: true, notes: [] };
  }

  async afterCall(): Promise<{ notes: string[] }> {
    return { notes: [] };
  }

  async promptSubmitted(): Promise<PromptVerdict> {
    return this.prompt;
  }

  async stopping(ending: RunEnding): Promise<{ continueWith?: string }> {
    this.endings.push(ending);
    return this.stops.shift() ?? {};
  }
}

describe('hooks around a run', () => {
  let fixture: FlowFixture;
  beforeEach(() => (fixture = flowFixture()));
  afterEach(() => fixture.dispose());

  const run = async (provider: ScriptedProvider, hooks: Hooks, flow: 'hitl' | 'pair' = 'hitl', reviewer?: ScriptedProvider) => {
    const primary = baseAgent('builder', provider, fixture.workspace, tools('task_complete'));
    const agent =
      flow === 'pair'
        ? composition({ flow: { kind: 'coagent', style: 'smart', maxRounds: 2, tools: 'none' }, primary, coagent: baseAgent('reviewer', reviewer!, fixture.workspace, tools('task_complete')) })
        : composition({ flow: { kind: 'hitl' }, primary });
    const stream = agent.run(fixture.session, 'Fix the bug', { signal: new AbortController().signal, hooks });
    const events = [];
    for await (const event of stream) events.push(event);
    return { events, result: await stream.result };
  };

  it('a blocked prompt never reaches the model: the run waits for the person, with the hook\'s message', async () => {
    const provider = new ScriptedProvider([{ text: 'never' }]);
    const { events, result } = await run(provider, new RunHooks({ blocked: 'The user_prompt_submit hook "x" blocked this prompt: no', context: [] }));
    assert.equal(provider.requests.length, 0);
    assert.equal(result.status, 'needs_input');
    assert.equal(result.message, 'The user_prompt_submit hook "x" blocked this prompt: no');
    assert.deepEqual(events.map((event) => event.type), ['run_complete']);
  });

  it('context from a user_prompt_submit hook follows the prompt in the same message', async () => {
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    await run(provider, new RunHooks({ context: ['Branch: release-2.1'] }));
    const sent = JSON.stringify(provider.requests[0]!.messages[0]);
    assert.match(sent, /Fix the bug.*Context a user_prompt_submit hook of the user's added to this message:\\nBranch: release-2\.1/);
  });

  it('a stop hook sends the agent back once with its reason; asked again, it may not; one run_complete with both passes counted', async () => {
    const provider = new ScriptedProvider([{ text: 'Done, I think.', usage: { input: 10 } }, { text: 'Now the tests pass.', usage: { input: 20 } }]);
    const hooks = new RunHooks({ context: [] }, [{ continueWith: 'tests fail' }, { continueWith: 'still failing' }]);
    const { events, result } = await run(provider, hooks);
    assert.equal(provider.requests.length, 2);
    assert.match(JSON.stringify(provider.requests[1]!.messages.at(-1)), /a stop hook of the user's asked you to go on, saying: tests fail/);
    assert.deepEqual(hooks.endings.map(({ active, lastMessage, status }) => ({ active, lastMessage, status })), [
      { active: false, lastMessage: 'Done, I think.', status: 'needs_input' },
      { active: true, lastMessage: 'Now the tests pass.', status: 'needs_input' },
    ]);
    assert.equal(events.filter((event) => event.type === 'run_complete').length, 1);
    assert.equal(result.turns, 2);
    assert.equal(result.usage.input, 30);
  });

  it('in a reviewed run, the work goes back through the reviewer after a stop hook', async () => {
    const handOver = (summary: string) => ({ toolCalls: [{ name: 'task_complete', arguments: { summary } }] });
    const builder = new ScriptedProvider([handOver('Built.'), handOver('Built again, with a changelog entry.')]);
    const reviewer = new ScriptedProvider([{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'ok' } }] }, { toolCalls: [{ name: 'task_complete', arguments: { summary: 'ok again' } }] }]);
    const { result } = await run(builder, new RunHooks({ context: [] }, [{ continueWith: 'add a changelog entry' }]), 'pair', reviewer);
    assert.equal(builder.requests.length, 2);
    assert.equal(reviewer.requests.length, 2);
    assert.equal(result.status, 'completed');
    assert.equal(result.summary, 'ok again');
  });

  it('stop hooks are not asked about a run that was cancelled or failed', async () => {
    const hooks = new RunHooks({ context: [] }, [{ continueWith: 'go on' }]);
    const { result } = await run(new ScriptedProvider([{ stopReason: 'error', errorMessage: 'overloaded' }]), hooks);
    assert.equal(result.status, 'error');
    assert.deepEqual(hooks.endings, []);
  });
});
