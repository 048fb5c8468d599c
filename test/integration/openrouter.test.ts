/**
 * OpenRouter as a flavor of the Chat Completions provider, against the
 * strict fake playing OpenRouter with an Anthropic model upstream: the
 * attribution headers, the `reasoning` request field, and the signed
 * `reasoning_details` sent back with the tool calls they came with.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAIProvider } from '../../src/llm/openai';
import type { AssistantResponse, LlmRequest, Message } from '../../src/llm/types';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { binarySuite } from '../support/binary-suite';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const MODEL = 'anthropic/claude-sonnet-4.5';
const TOOLS = [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }];
const ASK: Message = { role: 'user', content: [{ type: 'text', text: 'What is in a.txt?' }] };
const reasonedCall: ScriptedReply = {
  blocks: [
    { type: 'thinking', text: 'Read a.txt first.', signature: 'sig-or-1' },
    { type: 'tool_call', id: 'call_or_1', name: 'read_file', arguments: { path: 'a.txt' } },
  ],
};

async function answer(provider: OpenAIProvider, request: LlmRequest): Promise<AssistantResponse> {
  let last: AssistantResponse | undefined;
  for await (const event of provider.stream(request, new AbortController().signal)) if (event.type === 'done') last = event.response;
  return last!;
}

describe('OpenRouter against the strict fake', () => {
  let server: FakeLlmServer;
  before(async () => (server = await FakeLlmServer.start({ chatServer: 'openrouter' })));
  afterEach(() => {
    assert.deepEqual(server.takeRefusals(), [], 'no request was refused unexpectedly');
    server.reset();
  });
  after(() => server.close());

  const provider = (): OpenAIProvider => new OpenAIProvider({ apiKey: 'or-key', model: MODEL, baseURL: server.openaiBaseUrl, flavor: 'openrouter', maxRetries: 0, maxOutputTokens: 2048 });
  const continued = (content: AssistantResponse['content']): LlmRequest => ({
    system: '',
    tools: TOOLS,
    thinkingBudget: 4_000,
    messages: [ASK, { role: 'assistant', content }, { role: 'tool_results', results: [{ callId: 'call_or_1', content: 'hello', isError: false }] }],
  });

  it('sends its attribution headers, the thinking budget as reasoning, and the cap as max_tokens', async () => {
    server.enqueue('openai', reasonedCall);
    const first = await answer(provider(), { system: '', messages: [ASK], tools: TOOLS, thinkingBudget: 4_000 });
    assert.equal(first.stopReason, 'tool_use');
    const [sent] = server.requestsFor('openai');
    assert.equal(sent!.headers['x-title'], 'Crow Agent');
    assert.match(String(sent!.headers['http-referer']), /^https:\/\//);
    assert.equal(sent!.headers.authorization, 'Bearer or-key');
    assert.deepEqual(sent!.body.reasoning, { max_tokens: 4_000 });
    assert.equal(sent!.body.max_tokens, 2048);
    assert.deepEqual(first.content[0], { type: 'thinking', text: 'Read a.txt first.' });
    assert.equal(first.content[1]?.type, 'redacted_thinking');
  });

  it('sends the signed reasoning details back on the assistant message with its tool calls', async () => {
    server.enqueue('openai', reasonedCall, { blocks: [{ type: 'text', text: 'It says hello.' }] });
    const first = await answer(provider(), { system: '', messages: [ASK], tools: TOOLS, thinkingBudget: 4_000 });
    const second = await answer(provider(), continued(first.content));
    assert.equal(second.errorMessage, undefined);
    assert.deepEqual(second.content, [{ type: 'text', text: 'It says hello.' }]);
    const assistant = (server.requestsFor('openai')[1]!.body.messages as Record<string, any>[]).find((message) => message.role === 'assistant')!;
    assert.deepEqual(assistant.reasoning_details, [{ type: 'reasoning.text', text: 'Read a.txt first.', format: 'anthropic-claude-v1', index: 0, signature: 'sig-or-1' }]);
  });

  it('is refused as OpenRouter relays Anthropic refusing a tool loop that lost its reasoning', async () => {
    server.enqueue('openai', reasonedCall);
    const first = await answer(provider(), { system: '', messages: [ASK], tools: TOOLS, thinkingBudget: 4_000 });
    const second = await answer(provider(), continued(first.content.filter((block) => block.type !== 'redacted_thinking')));
    assert.equal(second.stopReason, 'error');
    assert.match(second.errorMessage!, /HTTP 400: Provider returned error/);
    const [refusal] = server.takeRefusals();
    assert.equal(refusal?.rule, 'openrouter/reasoning-details-returned');
    assert.match(String((refusal!.refusal.extra as any).metadata.raw), /a final `assistant` message must start with a thinking block/);
  });

  it('refuses a request without a bearer key as OpenRouter does', async () => {
    const refused = await fetch(`${server.openaiBaseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), { error: { message: 'No auth credentials found', code: 401 } });
    assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), ['openrouter/api-key']);
  });
});

describe('OpenRouter through the binary', function () {
  this.timeout(60_000);
  const suite = binarySuite('openrouter');

  it('crow run and --continue: a reasoned tool turn on an Anthropic model keeps its reasoning details', async () => {
    const fake = await FakeLlmServer.start({ chatServer: 'openrouter' });
    try {
      mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(
        join(suite.home, 'config', 'crow-agent', 'config.toml'),
        `provider = "openrouter"\nthinking_budget = 4000\n[providers.openrouter]\ntype = "openai"\nflavor = "openrouter"\nbase_url = "${fake.openaiBaseUrl}"\napi_key_env = "OPENROUTER_API_KEY"\ndefault_model = "${MODEL}"\n`,
      );
      writeFileSync(join(suite.root, 'a.txt'), 'hello from a\n');
      const read: ScriptedReply = { blocks: [{ type: 'thinking', text: 'Read a.txt first.' }, { type: 'tool_call', name: 'read_file', arguments: { path: 'a.txt' } }] };
      fake.enqueue('openai', read, { blocks: [{ type: 'text', text: 'It says hello from a.' }] }, { blocks: [{ type: 'text', text: 'Still hello.' }] });
      const env = isolatedEnv(suite.home, { OPENROUTER_API_KEY: 'or-key' });

      const first = await runCrow(['run', 'What does a.txt say?', '--agent', 'build', '--allow', 'all', '--no-undo'], env, suite.root);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout.trim(), 'It says hello from a.');
      const second = await runCrow(['run', 'And now?', '--continue', '--agent', 'build', '--no-undo'], env, suite.root);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout.trim(), 'Still hello.');

      assert.deepEqual(fake.takeRefusals(), []);
      const last = fake.requestsFor('openai').at(-1)!.body.messages as Record<string, any>[];
      const withCall = last.find((message) => message.role === 'assistant' && message.tool_calls);
      assert.equal(withCall?.reasoning_details?.[0]?.signature, 'sig-1', 'the stored session keeps the signed details');
    } finally {
      await fake.close();
    }
  });
});
