/**
 * How a turn ends on each way a model's answer can stop short, through the
 * real providers against the strict fake (so every follow-up request is one
 * the real API accepts): the output cap in the middle of a tool call, a
 * refusal, a paused turn, thinking across tool calls, and a model that
 * calls a tool when it was asked not to.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BaseAgent } from '../../src/engine/base-agent';
import type { AgentEvent } from '../../src/engine/events';
import { AnthropicProvider } from '../../src/llm/anthropic';
import { OpenAIProvider } from '../../src/llm/openai';
import type { AssistantResponse, Provider, StreamEvent } from '../../src/llm/types';
import { ScriptedProvider } from '../../src/llm/scripted';
import { InternalSession } from '../../src/session/internal-session';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import { echoTool, eventsOfType, runTurn, tempWorkspace } from '../support/engine';

const providers: Record<'openai' | 'anthropic', (server: FakeLlmServer, maxOutputTokens?: number) => Provider> = {
  anthropic: (server, maxOutputTokens) =>
    new AnthropicProvider({ apiKey: 'k', model: 'claude-sonnet-4-6', baseURL: server.anthropicBaseUrl, maxRetries: 0, ...(maxOutputTokens ? { maxOutputTokens } : {}) }),
  openai: (server, maxOutputTokens) =>
    new OpenAIProvider({ apiKey: 'k', model: 'gpt-4.1', baseURL: server.openaiBaseUrl, flavor: 'openai', maxRetries: 0, ...(maxOutputTokens ? { maxOutputTokens } : {}) }),
};

const longWrite: ScriptedReply = {
  blocks: [
    { type: 'text', text: 'Writing the report.' },
    { type: 'tool_call', name: 'write_file', arguments: { path: 'report.md', content: 'x'.repeat(400) }, fragments: 40 },
  ],
};
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

describe('turns that stop short, on the real wires', () => {
  let server: FakeLlmServer;
  before(async () => (server = await FakeLlmServer.start()));
  afterEach(() => server.reset());
  after(() => server.close());

  for (const api of ['anthropic', 'openai'] as const) {
    describe(api, () => {
      it('a tool call cut off by the output cap is not run; the model is told and writes smaller', async () => {
        const ws = tempWorkspace();
        try {
          server.enqueue(api, longWrite, { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'report.md', content: 'short' } }] }, say('Written.'));
          const { result, events } = await runTurn(providers[api](server, 20), [writeFileTool], 'Write the report.', { workspace: ws.workspace, maxOutputTokens: 20 });

          assert.equal(result.stopReason, 'answered');
          assert.equal(eventsOfType(events, 'tool_call_start').length, 1, 'only the whole call ran');
          const second = JSON.stringify(server.requestsFor(api)[1]!.body.messages);
          assert.match(second, /reached the output token limit \(20 tokens\) in the middle of a call to write_file, so that call was not run/);
          assert.doesNotMatch(second, /xxxxxxxx/, 'the cut call is not sent back');
          assert.match(second, /Writing the report\./, 'the text before it is kept');
        } finally {
          ws.dispose();
        }
      });

      it('cut off twice in a row, the turn ends saying what to change', async () => {
        const ws = tempWorkspace();
        try {
          server.enqueue(api, longWrite, longWrite);
          const { result } = await runTurn(providers[api](server, 20), [writeFileTool], 'Write the report.', { workspace: ws.workspace, maxOutputTokens: 20 });
          assert.equal(result.stopReason, 'max_tokens');
          assert.match(result.message, /output token limit \(20 tokens\) in the middle of a write_file call twice in a row.*Raise max_output_tokens/);
          assert.equal(existsSync(join(ws.root, 'report.md')), false, 'nothing half-written');
        } finally {
          ws.dispose();
        }
      });

      it('a refusal ends the turn as refused, and the refused reply stays out of the history', async () => {
        server.enqueue(api, { blocks: [{ type: 'text', text: 'I will not help with th' }], stopReason: 'refusal' }, say('Here is the summary.'));
        const session = new InternalSession('primary');
        const provider = providers[api](server);
        const { result } = await runTurn(provider, [echoTool], 'Do the questionable thing.', { session });
        assert.equal(result.stopReason, 'refused');
        assert.match(result.message, /declined to continue.*rephrase the request, or start a new session/);

        const next = await runTurn(provider, [echoTool], 'Then summarise the file instead.', { session });
        assert.equal(next.result.stopReason, 'answered');
        assert.doesNotMatch(JSON.stringify(server.requestsFor(api)[1]!.body.messages), /I will not help/);
      });
    });
  }

  it('a request with tool calls in its history but no tools (a VS Code chat summary, say) goes out with them as text', async () => {
    const session = new InternalSession('primary');
    session.addUserMessage('Echo hi.');
    session.append({ kind: 'tool_call', id: 'call_1', name: 'echo', arguments: '{"text":"hi"}', at: 0 });
    session.append({ kind: 'tool_result', callId: 'call_1', name: 'echo', status: 'success', output: 'echo: hi', metadata: { filesModified: [], durationMs: 1, extra: {} }, at: 0 });
    session.addUserMessage('Give this chat a title.');
    for (const api of ['anthropic', 'openai'] as const) {
      server.enqueue(api, say('Echoing hi'));
      const response = await consume(providers[api](server).stream({ system: '', tools: [], messages: session.toMessages() }, new AbortController().signal));
      assert.equal(response.stopReason, 'end_turn', `${api}: ${response.errorMessage}`);
      const sent = JSON.stringify(server.requestsFor(api)[0]!.body.messages);
      assert.match(sent, /Called the tool echo with \{\\"text\\":\\"hi\\"\}/);
      assert.doesNotMatch(sent, /tool_use|tool_calls|"role":"tool"/);
      server.reset();
    }
  });

  it('a paused turn (Anthropic pause_turn) is sent back as it is, and the model goes on', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Searching the docs… ' }], stopReason: 'pause_turn' }, say('Found it: use --cwd.'));
    const { result } = await runTurn(providers.anthropic(server), [echoTool], 'How do I set the folder?');
    assert.equal(result.stopReason, 'answered');
    const second = server.requestsFor('anthropic')[1]!.body;
    const last = second.messages.at(-1);
    assert.equal(last.role, 'assistant', 'the paused answer is the last message');
    assert.deepEqual(last.content.at(-1).text, 'Searching the docs…', 'without the trailing whitespace the API refuses');
  });

  it('thinking across tool calls goes back signed and unchanged, so the loop keeps thinking on', async () => {
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'thinking', text: 'I should echo it.' }, { type: 'tool_call', name: 'echo', arguments: { text: 'hi' } }] },
      { blocks: [{ type: 'thinking', text: 'Done echoing.' }, { type: 'text', text: 'It said hi.' }] },
    );
    const { result } = await runTurn(providers.anthropic(server), [echoTool], 'Echo hi.', { thinkingBudget: 1024 });
    assert.equal(result.stopReason, 'answered');
    const second = server.requestsFor('anthropic')[1]!.body;
    assert.equal(second.thinking.type, 'enabled');
    assert.equal(second.messages[1].content[0].type, 'thinking');
  });

  it('a step whose tool call came without thinking is sent with thinking off, as the API asks', async () => {
    // The call came from another provider (or thinking was off then): the API would refuse it with thinking on.
    const session = new InternalSession('primary');
    session.addUserMessage('Echo hi.');
    session.append({ kind: 'tool_call', id: 'call_1', name: 'echo', arguments: '{"text":"hi"}', at: 0 });
    session.append({ kind: 'tool_result', callId: 'call_1', name: 'echo', status: 'success', output: 'echo: hi', metadata: { filesModified: [], durationMs: 1, extra: {} }, at: 0 });
    server.enqueue('anthropic', say('It said hi.'));
    const provider = providers.anthropic(server);
    const response = await consume(provider.stream({ system: 'Test.', tools: [{ name: 'echo', description: 'Echo.', inputSchema: { type: 'object' } }], messages: session.toMessages(), thinkingBudget: 1024 }, new AbortController().signal));
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(server.requestsFor('anthropic')[0]!.body.thinking, undefined);
  });

  it('a model that calls a tool in a turn without tools (a server ignoring tool_choice) gets an error result, not a run', async () => {
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'no' } }] }, { text: 'Summary: nothing was run.' }]);
    const ws = tempWorkspace();
    try {
      const agent = new BaseAgent({ name: 'primary', provider, tools: [echoTool], systemPrompt: 'Test.', workspace: ws.workspace });
      const session = new InternalSession('primary');
      session.addUserMessage('Summarise your work.');
      const stream = agent.executeTurn(session, { signal: new AbortController().signal, withoutTools: true });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      assert.equal(result.stopReason, 'answered');
      assert.equal(result.text, 'Summary: nothing was run.');
      assert.equal(provider.requests[0]!.toolChoice, 'none');
      const refused = eventsOfType(events, 'tool_call_end')[0]!;
      assert.match(refused.result.error ?? '', /no tools are available for this answer/);
    } finally {
      ws.dispose();
    }
  });
});

async function consume(stream: AsyncIterable<StreamEvent>): Promise<AssistantResponse> {
  for await (const event of stream) if (event.type === 'done') return event.response;
  throw new Error('no done event');
}
