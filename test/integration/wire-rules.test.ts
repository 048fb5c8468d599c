/**
 * The strict fake refuses what the real APIs refuse: for every rule, one
 * request that breaks exactly that rule gets the API's refusal (and passes
 * once the rule is named as allowed, so nothing else in it is broken).
 */
import assert from 'node:assert/strict';
import { anthropicRules } from '../../testkit/anthropic-rules';
import { CHAT_SERVER_PROFILES, type ChatServerName } from '../../testkit/chat-servers';
import { type FakeApi, FakeLlmServer, type StrictWireOptions } from '../../testkit/fake-llm-server';
import type { RequestBody } from '../../testkit/wire-rules';

const WEATHER_SCHEMA = { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] };
const ANTHROPIC_TOOL = { name: 'get_weather', description: 'Get the current weather in a given location', input_schema: WEATHER_SCHEMA };
const OPENAI_TOOL = { type: 'function', function: { name: 'get_weather', description: 'Get the current weather', parameters: WEATHER_SCHEMA } };
const USER = { role: 'user', content: 'What is the weather like in Paris?' };

function anthropicBase(): RequestBody {
  return { model: 'claude-sonnet-4-6', max_tokens: 1024, stream: true, tools: [ANTHROPIC_TOOL], messages: [USER] };
}

function openaiBase(): RequestBody {
  return { model: 'gpt-4.1', stream: true, stream_options: { include_usage: true }, tools: [OPENAI_TOOL], messages: [USER] };
}

const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'get_weather', input: { location: 'Paris' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: '15 degrees' });
const openaiCall = (id: string) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } });
const thinkingOn = { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 };

/** The bytes of a PNG header of the given size: enough for a reader of image headers. */
function pngOfSize(width: number, height: number): string {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'ascii');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.writeUInt8(8, 24);
  header.writeUInt8(2, 25);
  return header.toString('base64');
}

const image = (data: string, mediaType = 'image/png') => ({ type: 'image', source: { type: 'base64', media_type: mediaType, data } });

interface Case {
  rule: string;
  api: FakeApi;
  server?: StrictWireOptions;
  body: RequestBody;
  message: RegExp;
  /** Other rules the same request breaks once this one is allowed (their checks come later). */
  alsoBreaks?: string[];
  /** Default 400. */
  status?: number;
}

const anthropic = (rule: string, change: RequestBody, message: RegExp, extra: Partial<Case> = {}): Case => ({
  rule: `anthropic/${rule}`,
  api: 'anthropic',
  body: { ...anthropicBase(), ...change },
  message,
  ...extra,
});

const chat = (server: ChatServerName, rule: string, change: RequestBody, message: RegExp): Case => ({
  rule: `${server}/${rule}`,
  api: 'openai',
  server: { chatServer: server },
  body: Object.fromEntries(Object.entries({ ...openaiBase(), ...change }).filter(([, value]) => value !== undefined)),
  message,
});

const CASES: Case[] = [
  anthropic('model-required', { model: undefined }, /^model: Field required$/),
  anthropic('max-tokens-required', { max_tokens: undefined }, /^max_tokens: Field required$/),
  anthropic('max-tokens-model-cap', { max_tokens: 68_192 }, /^max_tokens: 68192 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-6$/),
  anthropic('messages-required', { messages: [] }, /at least one message is required/),
  anthropic('roles', { messages: [{ role: 'system', content: 'Be brief.' }, USER] }, /messages\.0\.role: Input should be 'user' or 'assistant'/),
  anthropic('text-non-empty', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, /^messages: text content blocks must be non-empty$/),
  anthropic('text-non-whitespace', { messages: [{ role: 'user', content: [{ type: 'text', text: ' \n' }] }] }, /must contain non-whitespace text/),
  anthropic('content-non-empty', { messages: [USER, { role: 'assistant', content: [] }, { role: 'user', content: 'Well?' }] }, /^messages\.1: all messages must have non-empty content except for the optional final assistant message$/),
  anthropic('final-assistant-trailing-whitespace', { messages: [USER, { role: 'assistant', content: 'It is ' }] }, /^messages: final assistant content cannot end with trailing whitespace$/),
  anthropic('image-media-type', { messages: [{ role: 'user', content: [image(pngOfSize(10, 10), 'image/bmp')] }] }, /media_type: Input should be 'image\/jpeg'/),
  anthropic('image-size', { messages: [{ role: 'user', content: [image('A'.repeat(5 * 1024 * 1024 + 4))] }] }, /^messages\.0\.content\.0\.image\.source\.base64: image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes$/),
  anthropic('image-dimensions', { messages: [{ role: 'user', content: [image(pngOfSize(9000, 10))] }] }, /At least one of the image dimensions exceed max allowed size: 8000 pixels/),
  anthropic('media-count', { messages: [{ role: 'user', content: Array.from({ length: 101 }, () => image(pngOfSize(1, 1))) }] }, /^Too much media: 0 document pages \+ 101 images > 100$/),
  anthropic('tool-name', { tools: [{ ...ANTHROPIC_TOOL, name: 'get weather!' }] }, /^tools\.0\.custom\.name: String should match pattern/),
  anthropic('tool-names-unique', { tools: [ANTHROPIC_TOOL, ANTHROPIC_TOOL] }, /^tools: Tool names must be unique\.$/),
  anthropic('tool-choice-shape', { tool_choice: { type: 'sometimes' } }, /^tool_choice: Input tag 'sometimes'/),
  anthropic(
    'tool-blocks-need-tools',
    { tools: undefined, messages: [USER, { role: 'assistant', content: [toolUse('toolu_1')] }, { role: 'user', content: [toolResult('toolu_1')] }] },
    /^Requests which include tool_use or tool_result blocks must define tools\.$/,
  ),
  anthropic(
    'tool-use-id-pattern',
    { messages: [USER, { role: 'assistant', content: [toolUse('functions.get_weather:0')] }, { role: 'user', content: [toolResult('functions.get_weather:0')] }] },
    /^messages\.1\.content\.0\.tool_use\.id: String should match pattern '\^\[a-zA-Z0-9_-\]\+\$'$/,
  ),
  anthropic(
    'tool-use-ids-unique',
    {
      messages: [
        USER,
        { role: 'assistant', content: [toolUse('toolu_1')] },
        { role: 'user', content: [toolResult('toolu_1')] },
        { role: 'assistant', content: [toolUse('toolu_1')] },
        { role: 'user', content: [toolResult('toolu_1')] },
      ],
    },
    /`tool_use` ids must be unique/,
  ),
  anthropic(
    'tool-use-answered',
    { messages: [USER, { role: 'assistant', content: [toolUse('toolu_1')] }, { role: 'user', content: [{ type: 'text', text: 'First this.' }, toolResult('toolu_1')] }] },
    /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1\. Each `tool_use` block must have a corresponding `tool_result` block in the next message\.$/,
  ),
  anthropic(
    'tool-result-has-use',
    { messages: [USER, { role: 'assistant', content: 'Let me see.' }, { role: 'user', content: [toolResult('toolu_9')] }] },
    /^messages\.2\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9\./,
  ),
  anthropic('thinking-budget-min', { thinking: { type: 'enabled', budget_tokens: 512 } }, /budget_tokens: Input should be greater than or equal to 1024/),
  anthropic('thinking-budget-below-max-tokens', { thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 1024 }, /^`max_tokens` must be greater than `thinking\.budget_tokens`/),
  anthropic('thinking-temperature', { ...thinkingOn, temperature: 0.5 }, /^`temperature` may only be set to 1 when thinking is enabled/),
  anthropic('thinking-forced-tool', { ...thinkingOn, tool_choice: { type: 'any' } }, /^Thinking may not be enabled when tool_choice forces tool use\.$/),
  anthropic(
    'thinking-leads-tool-loop',
    { ...thinkingOn, messages: [USER, { role: 'assistant', content: [toolUse('toolu_1')] }, { role: 'user', content: [toolResult('toolu_1')] }] },
    /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block \(preceeding/,
  ),
  anthropic(
    'thinking-disabled-final-assistant',
    { messages: [USER, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hm.', signature: 'sig-forged' }] }] },
    /When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`/,
    { alsoBreaks: ['anthropic/thinking-signature'] },
  ),
  anthropic(
    'cache-control-limit',
    {
      system: [1, 2, 3].map((n) => ({ type: 'text', text: `Part ${n}.`, cache_control: { type: 'ephemeral' } })),
      tools: [{ ...ANTHROPIC_TOOL, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi.', cache_control: { type: 'ephemeral' } }] }],
    },
    /^A maximum of 4 blocks with cache_control may be provided\. Found 5\.$/,
  ),
  anthropic(
    'thinking-signature',
    {
      ...thinkingOn,
      messages: [USER, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hm.', signature: 'sig-forged' }, { type: 'text', text: 'Sunny.' }] }, { role: 'user', content: 'Thanks.' }],
    },
    /^messages\.1\.content\.0: Invalid `signature` in `thinking` block$/,
  ),
  anthropic('context-window', {}, /^prompt is too long: \d+ tokens > 50 maximum$/, { server: { contextWindow: 50 } }),

  chat('openai', 'model-required', { model: undefined }, /^you must provide a model parameter$/),
  chat('openai', 'messages-required', { messages: [] }, /^\[\] is too short - 'messages'$/),
  chat('openai', 'roles', { messages: [{ role: 'robot', content: 'Beep.' }] }, /^Invalid value: 'robot'\. Supported values are/),
  chat('openai', 'assistant-content-or-calls', { messages: [USER, { role: 'assistant', content: null }] }, /^Invalid value for 'content': expected a string, got null\.$/),
  chat('openai', 'empty-tool-calls', { messages: [USER, { role: 'assistant', content: 'Hm.', tool_calls: [] }] }, /^Invalid 'messages\[1\]\.tool_calls': empty array/),
  chat(
    'openai',
    'tool-calls-answered',
    { messages: [USER, { role: 'assistant', content: null, tool_calls: [openaiCall('call_1')] }, { role: 'user', content: 'Never mind.' }] },
    /^An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\. The following tool_call_ids did not have response messages: call_1$/,
  ),
  chat('openai', 'tool-message-follows-call', { messages: [USER, { role: 'tool', tool_call_id: 'call_9', content: '15' }] }, /^Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'\.$/),
  chat('openai', 'tool-name', { tools: [{ type: 'function', function: { name: 'get weather', parameters: WEATHER_SCHEMA } }] }, /^Invalid 'tools\[0\]\.function\.name': string does not match pattern/),
  chat('openai', 'tools-count', { tools: Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, parameters: WEATHER_SCHEMA } })) }, /^Invalid 'tools': array too long\. Expected an array with maximum length 128, but got an array with length 129 instead\.$/),
  chat('openai', 'tool-options-need-tools', { tools: undefined, tool_choice: 'none' }, /^Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified\.$/),
  chat('openai', 'max-tokens-both', { max_tokens: 100, max_completion_tokens: 100 }, /^Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported\.$/),
  chat('openai', 'max-tokens-reasoning-model', { model: 'o4-mini', max_tokens: 100 }, /^Unsupported parameter: 'max_tokens' is not supported with this model\. Use 'max_completion_tokens' instead\.$/),
  chat('openai', 'temperature-reasoning-model', { model: 'gpt-5.4', temperature: 0.2 }, /^Unsupported value: 'temperature' does not support 0\.2 with this model/),
  chat('openai', 'stream-options-need-stream', { stream: false }, /^The 'stream_options' parameter is only allowed when 'stream' is enabled\.$/),
  { ...chat('openai', 'context-window', {}, /^This model's maximum context length is 50 tokens\. However, your messages resulted in \d+ tokens\./), server: { contextWindow: 50 } },
  { ...chat('ollama', 'context-window', {}, /^the prompt is longer than the context length currently available to the model/), server: { chatServer: 'ollama', contextWindow: 50 } },
  chat('llama.cpp', 'single-choice', { n: 2 }, /^Only one completion choice is allowed$/),
  chat('llama.cpp', 'tool-choice', { tool_choice: { type: 'function', function: { name: 'get_weather' } } }, /^Invalid tool_choice: /),
  chat('llama.cpp', 'message-content', { messages: [USER, { role: 'assistant', content: null }] }, /^Assistant message must contain either 'content' or 'tool_calls'!$/),
  { ...chat('llama.cpp', 'context-window', {}, /^request \(\d+ tokens\) exceeds the available context size \(50 tokens\), try increasing it$/), server: { chatServer: 'llama.cpp', contextWindow: 50 } },
  chat('vllm', 'stream-options', { stream: false }, /^Stream options can only be defined when `stream=True`\. \(parameter=stream_options\)$/),
  chat('vllm', 'tools-non-empty', { tools: [] }, /^`tools` must not be an empty array\./),
  chat('vllm', 'tool-choice', { tools: undefined, tool_choice: 'required' }, /^When using `tool_choice`, `tools` must be set\./),
  { ...chat('vllm', 'context-window', {}, /^This model's maximum context length is 50 tokens\. However, you requested 0 output tokens/), server: { chatServer: 'vllm', contextWindow: 50 } },
  chat(
    'deepseek',
    'reasoning-content-on-tool-turns',
    { messages: [USER, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_1', content: '15' }] },
    /^Missing reasoning_content field in the assistant message at message index 1\. For more information, please refer to https:\/\/api-docs\.deepseek\.com\/guides\/thinking_mode#tool-calls$/,
  ),
  { ...chat('deepseek', 'context-window', {}, /^This model's maximum context length is 50 tokens\. However, you requested \d+ tokens\./), server: { chatServer: 'deepseek', contextWindow: 50 } },
  { ...chat('gemini', 'context-window', {}, /^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(50\)\.$/), server: { chatServer: 'gemini', contextWindow: 50 } },
  chat('lmstudio', 'tool-choice', { tool_choice: { type: 'function', function: { name: 'get_weather' } } }, /^Invalid tool_choice: /),
  { ...chat('lmstudio', 'context-window', {}, /^Trying to keep the first \d+ tokens when context the overflows\. However, the model is loaded with context length of only 50 tokens/), server: { chatServer: 'lmstudio', contextWindow: 50 } },
];

/** Rules about what the fake itself sent earlier, broken in their own tests on a conversation the fake began. */
const TESTED_ON_A_CONVERSATION: Record<string, string> = {
  'openrouter/reasoning-details-returned': 'test/integration/openrouter.test.ts',
  'gemini/thought-signature': 'below',
};

const PATHS: Record<FakeApi, string> = { anthropic: '/v1/messages', openai: '/v1/chat/completions', 'openai-responses': '/v1/responses' };

/** The message in any of the error envelopes the servers use (Gemini's is a list of one). */
function errorMessage(body: any): string {
  if (Array.isArray(body)) return errorMessage(body[0]);
  return typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
}


/** What the SDKs send with every request: the key, and Anthropic's API version. */
const SDK_HEADERS: Record<FakeApi, Record<string, string>> = {
  anthropic: { 'x-api-key': 'sk-ant-wire-rules', 'anthropic-version': '2023-06-01' },
  openai: { authorization: 'Bearer sk-wire-rules' },
  'openai-responses': { authorization: 'Bearer sk-wire-rules' },
};

async function post(server: FakeLlmServer, api: FakeApi, body: RequestBody, headers = SDK_HEADERS[api]): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${PATHS[api]}`, { method: 'POST', body: JSON.stringify(body), headers });
  const text = await response.text();
  return { status: response.status, body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

const NO_CONTEXT = { signedCalls: new Map<string, string>(), issuedCallSignatures: new Map<string, string>() };

describe('the strict fake refuses what the real APIs refuse', () => {
  it('has a case here for every rule of every API and server', () => {
    const rules = [
      ...anthropicRules({ contextWindow: 1, issuedThinking: new Map() }),
      ...Object.values(CHAT_SERVER_PROFILES).flatMap((profile) => profile.rules(1, NO_CONTEXT)),
    ].map((rule) => rule.name);
    assert.deepEqual(rules.filter((rule) => !CASES.some((c) => c.rule === rule) && !(rule in TESTED_ON_A_CONVERSATION)), []);
    for (const rule of [...anthropicRules({ contextWindow: 1, issuedThinking: new Map() }), ...Object.values(CHAT_SERVER_PROFILES).flatMap((profile) => profile.rules(1, NO_CONTEXT))]) {
      assert.ok(rule.source.length > 10, `${rule.name} cites where it comes from`);
    }
  });

  for (const c of CASES) {
    it(`${c.rule}`, async () => {
      const server = await FakeLlmServer.start(c.server);
      try {
        server.enqueue(c.api, { blocks: [{ type: 'text', text: 'ok' }] });
        const refused = await post(server, c.api, c.body);
        assert.equal(refused.status, c.status ?? 400, JSON.stringify(refused.body));
        assert.match(errorMessage(refused.body), c.message);
        assert.deepEqual(server.takeRefusals().map((r) => r.rule), [c.rule]);
        assert.equal(server.pending(c.api), 1, 'a refused request consumes no scripted reply');

        const allowed = await FakeLlmServer.start({ ...c.server, allowBroken: [c.rule, ...(c.alsoBreaks ?? [])] });
        try {
          allowed.enqueue(c.api, { blocks: [{ type: 'text', text: 'ok' }] });
          const passed = await post(allowed, c.api, c.body);
          assert.equal(passed.status, 200, `the request breaks no other rule: ${JSON.stringify(passed.body).slice(0, 300)}`);
          assert.deepEqual(allowed.takeRefusals(), []);
        } finally {
          await allowed.close();
        }
      } finally {
        await server.close();
      }
    });
  }

  it('gemini/thought-signature: a signed call of the current turn must come back with its signature, unchanged', async () => {
    const server = await FakeLlmServer.start({ chatServer: 'gemini' });
    try {
      server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'get_weather', arguments: { location: 'Paris' } }] });
      const signed = await post(server, 'openai', { ...openaiBase(), stream: false, stream_options: undefined });
      const call = signed.body.choices[0].message.tool_calls[0];
      const signature = call.extra_content.google.thought_signature;
      assert.match(signature, /^gts-/);
      const turn = (sent: Record<string, unknown>) => ({
        ...openaiBase(),
        stream: false,
        stream_options: undefined,
        messages: [USER, { role: 'assistant', content: null, tool_calls: [{ ...call, ...sent }] }, { role: 'tool', tool_call_id: call.id, content: '15' }],
      });

      const missing = await post(server, 'openai', turn({ extra_content: undefined }));
      assert.equal(missing.status, 400);
      assert.equal(missing.body[0].error.status, 'INVALID_ARGUMENT');
      assert.match(errorMessage(missing.body), /^Function call is missing a thought_signature in functionCall parts\..*`default_api:get_weather` , position 2\./);
      const altered = await post(server, 'openai', turn({ extra_content: { google: { thought_signature: `${signature}x` } } }));
      assert.match(errorMessage(altered.body), /^Corrupted thought signature\.$/);

      // A later user message starts a new turn: the earlier call is no longer checked.
      server.enqueue('openai', { blocks: [{ type: 'text', text: 'ok' }] });
      const later = await post(server, 'openai', { ...turn({ extra_content: undefined }), messages: [...turn({ extra_content: undefined }).messages, { role: 'user', content: 'And now?' }] });
      assert.equal(later.status, 200, JSON.stringify(later.body));
      assert.deepEqual(
        server.takeRefusals().map((refusal) => refusal.rule),
        ['gemini/thought-signature', 'gemini/thought-signature'],
      );
    } finally {
      await server.close();
    }
  });

  describe('before the body: credentials and the API version', () => {
    const without = (api: FakeApi, header: string): Record<string, string> =>
      Object.fromEntries(Object.entries(SDK_HEADERS[api]).filter(([name]) => name !== header));
    const cases: { rule: string; api: FakeApi; headers: Record<string, string>; status: number; type: string; message: RegExp }[] = [
      { rule: 'anthropic/api-key', api: 'anthropic', headers: without('anthropic', 'x-api-key'), status: 401, type: 'authentication_error', message: /^x-api-key header is required$/ },
      { rule: 'anthropic/version-header', api: 'anthropic', headers: without('anthropic', 'anthropic-version'), status: 400, type: 'invalid_request_error', message: /anthropic-version/ },
      { rule: 'openai/api-key', api: 'openai', headers: {}, status: 401, type: 'invalid_request_error', message: /^Missing bearer/ },
    ];
    for (const c of cases) {
      it(c.rule, async () => {
        const server = await FakeLlmServer.start();
        try {
          server.enqueue(c.api, { blocks: [{ type: 'text', text: 'ok' }] });
          const refused = await post(server, c.api, c.api === 'anthropic' ? anthropicBase() : openaiBase(), c.headers);
          assert.equal(refused.status, c.status);
          assert.equal(refused.body.error.type, c.type);
          assert.match(errorMessage(refused.body), c.message);
          assert.deepEqual(server.takeRefusals().map((r) => r.rule), [c.rule]);
          assert.equal(server.pending(c.api), 1, 'a refused request consumes no scripted reply');
        } finally {
          await server.close();
        }
      });
    }

    it('takes an Anthropic auth token as a bearer credential instead of a key', async () => {
      const server = await FakeLlmServer.start();
      try {
        server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'ok' }] });
        const passed = await post(server, 'anthropic', anthropicBase(), { authorization: 'Bearer token', 'anthropic-version': '2023-06-01' });
        assert.equal(passed.status, 200);
      } finally {
        await server.close();
      }
    });

    it('lists models only for a key on OpenAI, and for anyone on a local server', async () => {
      const openai = await FakeLlmServer.start();
      const ollama = await FakeLlmServer.start({ chatServer: 'ollama' });
      try {
        assert.equal((await fetch(`${openai.openaiBaseUrl}/models`)).status, 401);
        assert.deepEqual(openai.takeRefusals().map((r) => r.rule), ['openai/api-key']);
        assert.equal((await fetch(`${openai.openaiBaseUrl}/models`, { headers: SDK_HEADERS.openai })).status, 200);
        assert.equal((await fetch(`${ollama.openaiBaseUrl}/models`)).status, 200);
        const chatted = await post(ollama, 'openai', { ...openaiBase(), stream_options: undefined, tools: undefined }, {});
        assert.notEqual(chatted.status, 401, 'a local server asks for no key');
        ollama.takeRefusals();
      } finally {
        await Promise.all([openai.close(), ollama.close()]);
      }
    });
  });

  it('answers the refusal in each API envelope', async () => {
    const anthropicServer = await FakeLlmServer.start();
    const vllmServer = await FakeLlmServer.start({ chatServer: 'vllm' });
    const lmstudioServer = await FakeLlmServer.start({ chatServer: 'lmstudio' });
    try {
      const a = await post(anthropicServer, 'anthropic', { ...anthropicBase(), max_tokens: undefined });
      assert.deepEqual(a.body, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
      const v = await post(vllmServer, 'openai', { ...openaiBase(), tools: [] });
      assert.deepEqual(Object.keys(v.body.error).sort(), ['code', 'message', 'param', 'type']);
      assert.equal(v.body.error.type, 'BadRequestError');
      assert.equal(v.body.error.code, 400);
      const l = await post(lmstudioServer, 'openai', { ...openaiBase(), tool_choice: 'sometimes' });
      assert.equal(typeof l.body.error, 'string');
      for (const server of [anthropicServer, vllmServer, lmstudioServer]) server.takeRefusals();
    } finally {
      await Promise.all([anthropicServer.close(), vllmServer.close(), lmstudioServer.close()]);
    }
  });
});
