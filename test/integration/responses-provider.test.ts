/**
 * The Responses API provider against the strict fake's Responses route:
 * streaming, usage, stop reasons, retries, and reasoning items carried
 * across a tool turn with `store: false`.
 */
import assert from 'node:assert/strict';
import { OpenAIResponsesProvider } from '../../src/llm/openai-responses';
import type { HttpProviderOptions } from '../../src/llm/resilient-stream';
import type { AssistantResponse, LlmRequest, Message, StreamEvent } from '../../src/llm/types';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';

const API = 'openai-responses';
const TOOLS = [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }];
const ASK: Message = { role: 'user', content: [{ type: 'text', text: 'What is in a.txt?' }] };

async function run(provider: OpenAIResponsesProvider, request: LlmRequest): Promise<{ events: StreamEvent[]; response: AssistantResponse }> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(request, new AbortController().signal)) events.push(event);
  const done = events.at(-1);
  assert.equal(done?.type, 'done');
  return { events, response: (done as Extract<StreamEvent, { type: 'done' }>).response };
}

const readCall: ScriptedReply = {
  blocks: [
    { type: 'thinking', text: 'The user wants a.txt; I should read it.' },
    { type: 'tool_call', id: 'call_read', name: 'read_file', arguments: { path: 'a.txt' } },
  ],
  usage: { reasoning: 7 },
};

describe('OpenAI Responses provider against the strict fake', () => {
  let server: FakeLlmServer;
  const provider = (options: Partial<HttpProviderOptions> = {}): OpenAIResponsesProvider =>
    new OpenAIResponsesProvider({ apiKey: 'k', model: 'gpt-5.4', baseURL: server.openaiBaseUrl, retryBaseDelayMs: 5, ...options });

  before(async () => (server = await FakeLlmServer.start()));
  afterEach(() => {
    assert.deepEqual(server.takeRefusals(), [], 'no request was refused');
    server.reset();
  });
  after(() => server.close());

  it('streams text, reads usage with cached and reasoning tokens, and sends store: false', async () => {
    server.enqueue(API, { blocks: [{ type: 'text', text: 'Hello there.' }], model: 'gpt-5.4-2026', usage: { input: 30, cacheRead: 70, output: 5, reasoning: 2 } });
    const { events, response } = await run(provider(), { system: 'Be brief.', messages: [ASK], tools: TOOLS });

    assert.equal(events.filter((event) => event.type === 'text_delta').map((event) => (event as { delta: string }).delta).join(''), 'Hello there.');
    assert.deepEqual(response.content, [{ type: 'text', text: 'Hello there.' }]);
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(response.responseModel, 'gpt-5.4-2026');
    assert.deepEqual(response.usage, { input: 30, cacheRead: 70, cacheWrite: 0, output: 5, reasoning: 2 });
    const [sent] = server.requestsFor(API);
    assert.equal(sent!.body.store, false);
    assert.equal(sent!.body.instructions, 'Be brief.');
    assert.deepEqual(sent!.body.include, ['reasoning.encrypted_content']);
    assert.deepEqual(sent!.body.tools[0], { type: 'function', name: 'read_file', description: 'Read a file.', parameters: TOOLS[0]!.inputSchema, strict: false });
  });

  it('keeps a reasoning item and sends it back unchanged, before its function call, on the next request', async () => {
    server.enqueue(API, readCall, { blocks: [{ type: 'text', text: 'It says hi.' }] });
    const first = await run(provider(), { system: '', messages: [ASK], tools: TOOLS, thinkingBudget: 8_000 });

    assert.equal(first.response.stopReason, 'tool_use');
    const [thinking, reasoning, call] = first.response.content;
    assert.deepEqual(thinking, { type: 'thinking', text: 'The user wants a.txt; I should read it.' });
    assert.equal(reasoning?.type, 'redacted_thinking');
    assert.deepEqual(call, { type: 'tool_call', id: 'call_read', name: 'read_file', arguments: '{"path":"a.txt"}' });
    assert.equal(first.response.usage.reasoning, 7);
    assert.deepEqual(server.requestsFor(API)[0]!.body.reasoning, { effort: 'medium', summary: 'auto' });

    const history: Message[] = [ASK, { role: 'assistant', content: first.response.content }, { role: 'tool_results', results: [{ callId: 'call_read', content: 'hi', isError: false }] }];
    const second = await run(provider(), { system: '', messages: history, tools: TOOLS, thinkingBudget: 8_000 });
    assert.equal(second.response.errorMessage, undefined);
    assert.deepEqual(second.response.content, [{ type: 'text', text: 'It says hi.' }]);

    const issued = (reasoning as { data: string }).data;
    const input = server.requestsFor(API)[1]!.body.input as Record<string, unknown>[];
    assert.deepEqual(input.map((item) => item.type), ['message', 'reasoning', 'function_call', 'function_call_output']);
    assert.deepEqual(input[1], JSON.parse(issued), 'the reasoning item goes back as it came, without its output-only status');
    assert.equal(typeof input[1]!.encrypted_content, 'string');
    assert.equal('status' in input[1]!, false);
  });

  it('is refused as the real API refuses a function call sent back without its reasoning item', async () => {
    server.enqueue(API, readCall, { blocks: [{ type: 'text', text: 'unused' }] });
    const first = await run(provider(), { system: '', messages: [ASK], tools: TOOLS });
    const withoutReasoning = first.response.content.filter((block) => block.type !== 'redacted_thinking');
    const history: Message[] = [ASK, { role: 'assistant', content: withoutReasoning }, { role: 'tool_results', results: [{ callId: 'call_read', content: 'hi', isError: false }] }];

    const second = await run(provider(), { system: '', messages: history, tools: TOOLS });
    assert.equal(second.response.stopReason, 'error');
    assert.match(second.response.errorMessage!, /HTTP 400: Item 'fc_fake_1_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_fake_1_0'/);
    assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), ['openai-responses/function-call-needs-reasoning']);
  });

  it('ends at the output cap as max_tokens, and raises a cap below 16 to the least the API takes', async () => {
    server.enqueue(API, { blocks: [{ type: 'text', text: 'on and '.repeat(20) }] });
    const { response } = await run(provider({ maxOutputTokens: 4 }), { system: '', messages: [ASK], tools: [] });
    assert.equal(response.stopReason, 'max_tokens');
    assert.deepEqual(response.finishReasons, ['max_output_tokens']);
    assert.equal(server.requestsFor(API)[0]!.body.max_output_tokens, 16);
  });

  it('a content filter ends the answer as a refusal', async () => {
    server.enqueue(API, { blocks: [{ type: 'text', text: 'I will not' }], stopReason: 'refusal' });
    const { response } = await run(provider(), { system: '', messages: [ASK], tools: [] });
    assert.equal(response.stopReason, 'refusal');
  });

  it('retries a rate limit, and a server error the stream reports before any output', async () => {
    server.enqueue(
      API,
      { kind: 'http_error', status: 429, retryAfterMs: 1 },
      { blocks: [{ type: 'text', text: 'unused' }], fault: { kind: 'error_after', events: 2, status: 500, message: 'The server had an error.' } },
      { blocks: [{ type: 'text', text: 'Third time.' }] },
    );
    const { events, response } = await run(provider(), { system: '', messages: [ASK], tools: [] });
    const retries = events.filter((event) => event.type === 'retry') as Extract<StreamEvent, { type: 'retry' }>[];
    assert.equal(retries.length, 2);
    assert.match(retries[1]!.reason, /sent an error in the stream: The server had an error/);
    assert.deepEqual(response.content, [{ type: 'text', text: 'Third time.' }]);
  });

  it('keeps what streamed before a failure mid-answer and does not retry it', async () => {
    // response.created, response.in_progress, output_item.added, content_part.added, then the first delta.
    server.enqueue(API, { blocks: [{ type: 'text', text: 'Partial answer.' }], chunkSize: 8, fault: { kind: 'error_after', events: 5, status: 500, message: 'boom' } });
    const { events, response } = await run(provider(), { system: '', messages: [ASK], tools: [] });
    assert.equal(events.some((event) => event.type === 'retry'), false);
    assert.equal(response.stopReason, 'error');
    assert.deepEqual(response.content, [{ type: 'text', text: 'Partial ' }]);
    assert.match(response.errorMessage!, /boom; partial output kept/);
  });

  it('names the key variable when the key is refused', async () => {
    server.enqueue(API, { kind: 'http_error', status: 401, message: 'Incorrect API key provided.' });
    const { response } = await run(provider({ apiKeyEnv: 'MY_OPENAI_KEY' }), { system: '', messages: [ASK], tools: [] });
    assert.match(response.errorMessage!, /HTTP 401: Incorrect API key provided\. Check MY_OPENAI_KEY\./);
  });
});
