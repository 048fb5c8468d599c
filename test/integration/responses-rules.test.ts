/**
 * The strict fake's Responses route refuses what OpenAI's Responses API
 * refuses: for every rule, one request that breaks exactly that rule gets the
 * API's refusal, and passes once the rule is named as allowed. The reasoning
 * rules are broken on a conversation the fake itself began, so that its
 * reasoning items and their encrypted content are real.
 */
import assert from 'node:assert/strict';
import { FakeLlmServer, type StrictWireOptions } from '../../testkit/fake-llm-server';
import { responsesRules } from '../../testkit/responses-rules';
import type { RequestBody } from '../../testkit/wire-rules';

const API = 'openai-responses';
const HEADERS = { authorization: 'Bearer sk-responses-rules', 'content-type': 'application/json' };
const TOOL = { type: 'function', name: 'get_weather', description: 'Get the weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false };
const USER = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] };
const REASONED_CALL = {
  blocks: [
    { type: 'thinking' as const, text: 'I need the weather tool.' },
    { type: 'tool_call' as const, id: 'call_w', name: 'get_weather', arguments: { location: 'Paris' } },
  ],
};

function base(): RequestBody {
  return { model: 'gpt-5.4', stream: true, store: false, include: ['reasoning.encrypted_content'], tools: [TOOL], input: [USER] };
}

async function post(server: FakeLlmServer, body: RequestBody): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(`${server.url}/v1/responses`, { method: 'POST', body: JSON.stringify(body), headers: HEADERS });
  const text = await response.text();
  return { status: response.status, body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined, text };
}

/** The output items of a streamed response, from its `response.output_item.done` events. */
function outputItems(sse: string): Record<string, any>[] {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)))
    .filter((event) => event.type === 'response.output_item.done')
    .map((event) => event.item);
}

/**
 * Asks `server` for a reasoned function call and returns the input that
 * continues it correctly: the user message, the reasoning item as it may be
 * sent back (without its output-only status), the call, and its output.
 */
async function reasonedTurn(server: FakeLlmServer): Promise<Record<string, any>[]> {
  server.enqueue(API, REASONED_CALL);
  const first = await post(server, base());
  assert.equal(first.status, 200, first.text);
  const [reasoning, call] = outputItems(first.text);
  const { status: _status, ...sendable } = reasoning!;
  return [USER, sendable, { type: 'function_call', call_id: call!.call_id, name: call!.name, arguments: call!.arguments }, { type: 'function_call_output', call_id: 'call_w', output: '15 degrees' }];
}

interface Case {
  rule: string;
  /** The request that breaks the rule, given a correct continuation of a reasoned tool turn. */
  body(turn: Record<string, any>[]): RequestBody;
  message: RegExp;
  status?: number;
  server?: StrictWireOptions;
}

const withInput = (input: unknown[]): RequestBody => ({ ...base(), input });

const CASES: Case[] = [
  { rule: 'unknown-parameter', body: () => ({ ...base(), max_tokens: 100 }), message: /^Unknown parameter: 'max_tokens'\.$/ },
  { rule: 'model-required', body: () => ({ ...base(), model: undefined }), message: /^Missing required parameter: 'model'\.$/ },
  { rule: 'max-output-tokens-minimum', body: () => ({ ...base(), max_output_tokens: 8 }), message: /^Invalid 'max_output_tokens': integer below minimum value\. Expected a value >= 16, but got 8 instead\.$/ },
  {
    rule: 'reasoning-item-fields',
    body: (turn) => withInput(turn.map((item) => (item.type === 'reasoning' ? { ...item, status: 'completed' } : item))),
    message: /^Unknown parameter: 'input\[1\]\.status'\.$/,
  },
  {
    rule: 'reasoning-not-stored',
    body: (turn) => withInput(turn.map((item) => (item.type === 'reasoning' ? { type: 'reasoning', id: item.id, summary: [] } : item))),
    message: /^Item with id 'rs_fake_1_0' not found\. Items are not persisted when `store` is set to false\./,
    status: 404,
  },
  {
    rule: 'encrypted-content-verified',
    body: (turn) => withInput(turn.map((item) => (item.type === 'reasoning' ? { ...item, encrypted_content: item.encrypted_content.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')) } : item))),
    message: /^The encrypted content for item rs_fake_1_0 could not be verified\. Reason: Encrypted content could not be decrypted or parsed\.$/,
  },
  {
    rule: 'reasoning-needs-following-item',
    body: (turn) => withInput([...turn, turn[1], { type: 'message', role: 'user', content: 'And Rome?' }]),
    message: /^Item 'rs_fake_1_0' of type 'reasoning' was provided without its required following item\.$/,
  },
  {
    rule: 'function-call-needs-reasoning',
    body: (turn) => withInput(turn.filter((item) => item.type !== 'reasoning')),
    message: /^Item 'fc_fake_1_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_fake_1_0'\.$/,
  },
  {
    rule: 'function-call-output-has-call',
    body: (turn) => withInput([...turn, { type: 'function_call_output', call_id: 'call_nowhere', output: 'x' }]),
    message: /^No tool call found for function call output with call_id call_nowhere\.$/,
  },
  { rule: 'function-call-answered', body: (turn) => withInput(turn.slice(0, 3)), message: /^No tool output found for function call call_w\.$/ },
  { rule: 'tool-name', body: () => ({ ...base(), tools: [{ ...TOOL, name: 'get weather' }] }), message: /^Invalid 'tools\[0\]\.name': string does not match pattern/ },
  {
    rule: 'strict-schema',
    body: () => ({ ...base(), tools: [{ ...TOOL, strict: true }] }),
    message: /^Invalid schema for function 'get_weather': In context=\(\), 'additionalProperties' is required to be supplied and to be false\.$/,
  },
  { rule: 'reasoning-effort', body: () => ({ ...base(), reasoning: { effort: 'extreme' } }), message: /^Invalid value: 'extreme'\. Supported values are: 'none', 'minimal'/ },
  {
    rule: 'reasoning-needs-reasoning-model',
    body: () => ({ ...base(), model: 'gpt-4.1', include: undefined, reasoning: { effort: 'low' } }),
    message: /^Unsupported parameter: 'reasoning\.effort' is not supported with this model\.$/,
  },
  { rule: 'temperature-reasoning-model', body: () => ({ ...base(), temperature: 0.2 }), message: /^Unsupported parameter: 'temperature' is not supported with this model\.$/ },
  { rule: 'context-window', body: () => base(), message: /^Your input exceeds the context window of this model\./, server: { contextWindow: 20 } },
];

describe("the strict fake refuses what OpenAI's Responses API refuses", () => {
  it('has a case here for every rule, and each rule cites where it comes from', () => {
    const rules = responsesRules({ contextWindow: 1, issuedCalls: new Map() });
    assert.deepEqual(
      rules.map((rule) => rule.name).filter((name) => !CASES.some((c) => `openai-responses/${c.rule}` === name)),
      [],
    );
    for (const rule of rules) assert.ok(rule.source.length > 20, `${rule.name} cites where it comes from`);
  });

  it('takes the continuation of a reasoned tool turn that keeps every rule', async () => {
    const server = await FakeLlmServer.start();
    try {
      const turn = await reasonedTurn(server);
      assert.equal(typeof turn[1]!.encrypted_content, 'string', 'include: reasoning.encrypted_content brings it');
      server.enqueue(API, { blocks: [{ type: 'text', text: '15 degrees in Paris.' }] });
      const second = await post(server, withInput(turn));
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(server.takeRefusals(), []);
    } finally {
      await server.close();
    }
  });

  for (const c of CASES) {
    const name = `openai-responses/${c.rule}`;
    it(name, async () => {
      for (const allowBroken of [[], [name]]) {
        const server = await FakeLlmServer.start({ ...c.server, allowBroken });
        try {
          // The conversation is begun with room enough; the window under test applies to the request that breaks it.
          server.setContextWindow(undefined);
          const turn = await reasonedTurn(server);
          server.setContextWindow(c.server?.contextWindow);
          server.enqueue(API, { blocks: [{ type: 'text', text: 'ok' }] });
          const answer = await post(server, c.body(turn));
          if (allowBroken.length === 0) {
            assert.equal(answer.status, c.status ?? 400, answer.text);
            assert.match(answer.body.error.message, c.message);
            assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), [name]);
            assert.equal(server.pending(API), 1, 'a refused request consumes no scripted reply');
          } else {
            assert.equal(answer.status, 200, `the request breaks no other rule: ${answer.text.slice(0, 300)}`);
            assert.deepEqual(server.takeRefusals(), []);
          }
        } finally {
          await server.close();
        }
      }
    });
  }
});
