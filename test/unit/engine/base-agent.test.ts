import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { builtinTools } from '../../../src/tools/registry';
import { echoTool, eventsOfType, runTurn, tempWorkspace, throwingTool } from '../../support/engine';

const taskComplete = builtinTools().find((t) => t.name === 'task_complete')!;
const bash = builtinTools().find((t) => t.name === 'bash')!;

describe('BaseAgent.executeTurn', () => {
  it('streams a text-only answer and stops with "answered"', async () => {
    // Deltas a millisecond apart, as a model sends them: each reaches the events on its own.
    const provider = new ScriptedProvider([{ thinking: 'Easy one.', text: 'Hello there, friend.', usage: { input: 12, output: 5 }, delayMs: 1 }]);
    const { events, result } = await runTurn(provider, [echoTool], 'Say hello');

    const deltas = eventsOfType(events, 'text_delta').map((e) => e.delta);
    assert.ok(deltas.length > 1, 'text arrives in several deltas');
    assert.equal(deltas.join(''), 'Hello there, friend.');
    assert.equal(eventsOfType(events, 'thinking_complete')[0]?.text, 'Easy one.');
    assert.deepEqual(events[0], { type: 'turn_start', agent: 'primary' });
    assert.deepEqual(events.at(-1), { type: 'turn_complete', agent: 'primary', reason: 'answered', message: 'The agent answered.' });
    assert.ok(events.every((e) => 'agent' in e && e.agent === 'primary'), 'every event names the agent');
    assert.equal(result.text, 'Hello there, friend.');
    assert.equal(result.stopReason, 'answered');
    assert.equal(result.usage.input, 12);
    assert.equal(result.usage.output, 5);
    assert.equal(provider.requests[0]!.system, 'You are a test agent.');
    assert.deepEqual(provider.requests[0]!.tools.map((t) => t.name), ['echo']);
  });

  it('passes on deltas that arrive in one turn of the event loop as one, in order, before the events after them', async () => {
    const provider = new ScriptedProvider([
      { thinking: 'Plan: echo.', text: 'Echoing now.', toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
      { text: 'Done.' },
    ]);
    const { events } = await runTurn(provider, [echoTool], 'Echo once');
    const shown = events.filter((e) => ['thinking_delta', 'text_delta', 'tool_call_start', 'turn_complete'].includes(e.type));
    assert.deepEqual(
      shown.map((e) => ('delta' in e ? `${e.type}:${e.delta}` : e.type)),
      ['thinking_delta:Plan: echo.', 'text_delta:Echoing now.', 'tool_call_start', 'text_delta:Done.', 'turn_complete'],
    );
  });

  it('runs tool round trips and feeds results back to the model', async () => {
    const provider = new ScriptedProvider([
      { text: 'Let me echo.', toolCalls: [{ name: 'echo', arguments: { text: 'one' } }, { name: 'echo', arguments: { text: 'two' } }] },
      { text: 'Both echoed.' },
    ]);
    const { events, result } = await runTurn(provider, [echoTool], 'Echo twice');

    assert.deepEqual(eventsOfType(events, 'tool_call_start').map((e) => e.arguments), [{ text: 'one' }, { text: 'two' }]);
    const ends = eventsOfType(events, 'tool_call_end');
    assert.deepEqual(ends.map((e) => e.result.output), ['echo: one', 'echo: two']);
    assert.equal(result.toolCalls.length, 2);
    assert.ok(result.toolCalls.every((c) => c.durationMs >= 0 && c.result.status === 'success'));
    assert.equal(result.text, 'Both echoed.');

    const second = provider.requests[1]!.messages;
    assert.deepEqual(second.map((m) => m.role), ['user', 'assistant', 'tool_results']);
    const results = second[2]!;
    assert.ok(results.role === 'tool_results');
    assert.deepEqual(results.results.map((r) => r.content), ['echo: one', 'echo: two']);
  });

  it('ends the turn when the agent calls task_complete, with its summary', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Fixed the bug and ran the tests.' } }, { name: 'echo', arguments: { text: 'late' } }] },
      { text: 'never requested' },
    ]);
    const { events, result } = await runTurn(provider, [echoTool, taskComplete], 'Fix it');

    assert.equal(result.stopReason, 'task_complete');
    assert.equal(result.taskComplete, 'Fixed the bug and ran the tests.');
    assert.deepEqual(eventsOfType(events, 'task_complete'), [{ type: 'task_complete', agent: 'primary', summary: 'Fixed the bug and ran the tests.' }]);
    assert.equal(provider.requests.length, 1, 'no model call after task_complete');
    const late = result.toolCalls.find((c) => c.name === 'echo')!;
    assert.equal(late.result.status, 'cancelled', 'a call after task_complete is not run but still answered');
  });

  it('charges each model call to the budget and stops before the call past it, between steps', async () => {
    const charged: { model: string; tokens: number; costUsd: number | undefined }[] = [];
    const budget = {
      charge: (call: (typeof charged)[number]) => void charged.push(call),
      exceeded: () => (charged.reduce((sum, call) => sum + call.tokens, 0) >= 100 ? 'Over the test budget.' : undefined),
    };
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }], usage: { input: 60, cacheRead: 20, output: 5 } },
      { toolCalls: [{ name: 'echo', arguments: { text: 'b' } }], usage: { input: 10, output: 5 } },
      { text: 'Never asked for.' },
    ]);
    const { events, result, session } = await runTurn(provider, [echoTool], 'Echo twice', { budget });

    assert.equal(result.stopReason, 'budget');
    assert.equal(result.message, 'Over the test budget.');
    assert.equal(provider.requests.length, 2, 'no call once the budget is spent');
    assert.deepEqual(charged.map((call) => call.tokens), [85, 15], 'input, cached input and output of each call');
    assert.equal(eventsOfType(events, 'tool_call_end').length, 2, 'the calls the model asked for before the limit ran');
    assert.deepEqual(session.entries.at(-1), { kind: 'system', event: 'budget', message: 'Over the test budget.', at: (session.entries.at(-1) as { at: number }).at });
  });

  it('stops at max iterations with a visible reason', async () => {
    const provider = new ScriptedProvider(
      Array.from({ length: 5 }, (_, i) => ({ toolCalls: [{ name: 'echo', arguments: { text: `step ${i}` } }] })),
    );
    const { events, result } = await runTurn(provider, [echoTool], 'Keep going', { maxIterations: 3 });

    assert.equal(result.stopReason, 'max_iterations');
    assert.equal(provider.requests.length, 3);
    assert.match(eventsOfType(events, 'turn_complete')[0]!.message, /after 3 model calls/);
  });

  it('detects a doom loop: the same call with the same arguments N times in a row', async () => {
    const same = { toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] };
    const provider = new ScriptedProvider([same, { toolCalls: [{ name: 'echo', arguments: '{ "text": "again" }' }] }, same, same]);
    const { events, result, session } = await runTurn(provider, [echoTool], 'Loop', { doomLoopThreshold: 3 });

    assert.equal(result.stopReason, 'doom_loop');
    assert.deepEqual(eventsOfType(events, 'doom_loop'), [{ type: 'doom_loop', agent: 'primary', tool: 'echo', repeats: 3 }]);
    assert.equal(result.toolCalls.filter((c) => c.result.status === 'success').length, 2, 'the third identical call is not run');
    assert.ok(session.entries.some((e) => e.kind === 'system' && e.event === 'doom_loop'));
  });

  it('does not call different arguments a doom loop', async () => {
    const provider = new ScriptedProvider([
      ...['a', 'b', 'c', 'd'].map((text) => ({ toolCalls: [{ name: 'echo', arguments: { text } }] })),
      { text: 'done' },
    ]);
    const { result } = await runTurn(provider, [echoTool], 'Vary', { doomLoopThreshold: 2 });
    assert.equal(result.stopReason, 'answered');
  });

  it('turns a tool that throws into an error result the model reads, and continues', async () => {
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'explode', arguments: {} }] }, { text: 'The tool failed, sorry.' }]);
    const { result } = await runTurn(provider, [throwingTool], 'Try it');

    assert.equal(result.stopReason, 'answered');
    assert.equal(result.toolCalls[0]!.result.status, 'error');
    assert.match(result.toolCalls[0]!.result.error!, /kaboom/);
    const sent = provider.requests[1]!.messages[2]!;
    assert.ok(sent.role === 'tool_results' && sent.results[0]!.isError);
    assert.match(sent.results[0]!.content, /kaboom/);
  });

  it('reports invalid arguments (bad JSON, schema violation, unknown tool) naming the problem', async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { name: 'echo', arguments: '{"text": "unterminated' },
          { name: 'echo', arguments: { text: 42 } },
          { name: 'teleport', arguments: {} },
        ],
      },
      { text: 'I will fix my calls.' },
    ]);
    const { result } = await runTurn(provider, [echoTool], 'Bad calls');

    const [badJson, badType, unknown] = result.toolCalls.map((c) => c.result);
    assert.equal(badJson!.status, 'error');
    assert.match(badJson!.error!, /not valid JSON/);
    assert.match(badType!.error!, /text: .*string/i);
    assert.match(unknown!.error!, /Unknown tool "teleport".*echo/);
    assert.equal(result.stopReason, 'answered', 'the loop continues after bad calls');
  });

  it('is cancelled during a stream: partial text kept, turn ends as cancelled', async () => {
    const provider = new ScriptedProvider([{ text: 'This is a long answer that will be cut off.', hangAfterDeltas: true }]);
    const controller = new AbortController();
    const { events, result, session } = await runTurn(provider, [echoTool], 'Talk', {
      signal: controller.signal,
      onEvent: (e) => e.type === 'text_delta' && controller.abort(),
    });

    assert.equal(result.stopReason, 'cancelled');
    assert.ok(eventsOfType(events, 'cancelled').length === 1);
    assert.equal(events.at(-1)!.type, 'turn_complete');
    assert.ok(session.entries.some((e) => e.kind === 'system' && e.event === 'cancelled'));
  });

  it('is cancelled during a tool: the bash child process is gone and the call still has a result', async () => {
    const ws = tempWorkspace();
    try {
      const provider = new ScriptedProvider([
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo $$ > pid.txt; sleep 30' } }, { name: 'echo', arguments: { text: 'x' } }] },
      ]);
      const controller = new AbortController();
      const pidFile = join(ws.root, 'pid.txt');
      const started = Date.now();
      const { result, session } = await runTurn(provider, [bash, echoTool], 'Run it', {
        workspace: ws.workspace,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type !== 'tool_call_start' || e.tool !== 'bash') return;
          const poll = setInterval(() => {
            if (existsSync(pidFile)) {
              clearInterval(poll);
              controller.abort();
            }
          }, 10);
        },
      });

      assert.equal(result.stopReason, 'cancelled');
      assert.ok(Date.now() - started < 5000, 'cancel is prompt');
      assert.deepEqual(result.toolCalls.map((c) => c.result.status), ['cancelled', 'cancelled']);
      const pid = Number((await ws.workspace.readFile('pid.txt')).toString().trim());
      assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the shell process was killed');
      const results = session.toMessages().at(-1)!;
      assert.ok(results.role === 'tool_results' && results.results.length === 2, 'every call has exactly one result');
    } finally {
      ws.dispose();
    }
  });

  it('ends with an error event, keeping partial output, when the provider fails', async () => {
    const provider = new ScriptedProvider([{ text: 'Partial answ', stopReason: 'error', errorMessage: 'connection dropped' }]);
    const { events, result, session } = await runTurn(provider, [echoTool], 'Hi');

    assert.equal(result.stopReason, 'error');
    assert.deepEqual(eventsOfType(events, 'error'), [{ type: 'error', agent: 'primary', message: 'connection dropped' }]);
    assert.ok(session.entries.some((e) => e.kind === 'assistant_text' && e.text === 'Partial answ'));
  });

  it('reports files changed by tools', async () => {
    const write = builtinTools().find((t) => t.name === 'write_file')!;
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'src/new.txt', content: 'hi\n' } }] },
      { text: 'Written.' },
    ]);
    const { events, result } = await runTurn(provider, [write], 'Write');
    assert.deepEqual(eventsOfType(events, 'files_changed').map((e) => e.files), [['src/new.txt']]);
    assert.deepEqual(result.filesChanged, ['src/new.txt']);
  });
});
