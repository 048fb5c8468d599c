import assert from 'node:assert/strict';
import {
  estimateTokens,
  LM_ROLE,
  type LmRequestMessage,
  toLlmRequest,
  toolCallsOf,
} from '../../../../src/adapters/vscode/lm-messages';
import { toOpenAIParams } from '../../../../src/llm/openai-format';
import { type AssistantResponse, emptyUsage } from '../../../../src/llm/types';

// Stand-ins with the fields of VS Code's part classes, which is all the
// conversion reads (the real classes exist only inside the extension host).
class TextPart {
  constructor(readonly value: string) {}
}
class ToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}
class ToolResultPart {
  constructor(
    readonly callId: string,
    readonly content: unknown[],
    readonly isError = false,
  ) {}
}
class DataPart {
  constructor(
    readonly data: Uint8Array,
    readonly mimeType: string,
    readonly audience?: number[],
  ) {}
}
class ThinkingPart {
  constructor(
    readonly value: string,
    readonly id?: string,
    readonly metadata?: object,
  ) {}
}
const AUDIENCE = { assistant: 0, user: 1 };
class PromptTsxPart {
  constructor(readonly value: unknown) {}
}

const user = (...content: unknown[]): LmRequestMessage => ({ role: LM_ROLE.user, content, name: undefined });
const assistant = (...content: unknown[]): LmRequestMessage => ({ role: LM_ROLE.assistant, content, name: undefined });
const PNG_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);

function response(content: AssistantResponse['content']): AssistantResponse {
  return { content, stopReason: 'tool_use', finishReasons: ['tool_calls'], usage: emptyUsage() };
}

describe('VS Code chat messages to an LLM request', () => {
  it('turns system messages into the system prompt and keeps the conversation in order', () => {
    const request = toLlmRequest(
      [
        { role: LM_ROLE.system, content: [new TextPart('You review code.')], name: undefined },
        user(new TextPart('Is this right?'), new TextPart(' `a - b`')),
        assistant(new TextPart('No: it should add.')),
        user('Fix it then.'),
      ],
      { supportsImages: true },
    );

    assert.equal(request.system, 'You review code.');
    assert.deepEqual(request.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Is this right?' }, { type: 'text', text: ' `a - b`' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'No: it should add.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Fix it then.' }] },
    ]);
  });

  it('maps tool calls and their results, results first, into a request the OpenAI API accepts', () => {
    const request = toLlmRequest(
      [
        user(new TextPart('What is in main.ts?')),
        assistant(new TextPart('Reading it.'), new ToolCallPart('call_1', 'read_file', { path: 'src/main.ts' })),
        user(new TextPart('Be brief.'), new ToolResultPart('call_1', [new TextPart('export {};')])),
      ],
      { supportsImages: true },
    );

    assert.deepEqual(request.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path":"src/main.ts"}' },
        ],
      },
      { role: 'tool_results', results: [{ callId: 'call_1', content: 'export {};', isError: false }] },
      { role: 'user', content: [{ type: 'text', text: 'Be brief.' }] },
    ]);
    const wire = toOpenAIParams(request, { model: 'm', flavor: 'openai' }).messages.map((message) => message.role);
    assert.deepEqual(wire, ['user', 'assistant', 'tool', 'user']);
  });

  it('passes the caller\'s tools on, giving schema-less tools an empty object schema', () => {
    const schema = { type: 'object', properties: { query: { type: 'string' } } };
    const request = toLlmRequest([user('hi')], {
      supportsImages: true,
      tools: [
        { name: 'search', description: 'Search the web.', inputSchema: schema },
        { name: 'now', description: 'The time.' },
      ],
    });

    assert.deepEqual(request.tools, [
      { name: 'search', description: 'Search the web.', inputSchema: schema },
      { name: 'now', description: 'The time.', inputSchema: { type: 'object', properties: {} } },
    ]);
  });

  it('sends images to a model that sees them and a note in their place to one that does not', () => {
    const messages = [user(new TextPart('What is this?'), new DataPart(PNG_BYTES, 'image/png'))];

    const seeing = toLlmRequest(messages, { supportsImages: true });
    assert.deepEqual(seeing.messages[0], {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', mimeType: 'image/png', data: Buffer.from(PNG_BYTES).toString('base64') },
      ],
    });

    const blind = toLlmRequest(messages, { supportsImages: false });
    assert.deepEqual(blind.messages[0], {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'text', text: '[An image (image/png) was left out: this model does not accept images.]' },
      ],
    });
  });

  it('reads tool results made of text, JSON, images and prompt-tsx trees', () => {
    const tsx = { node: { type: 1, ctor: 2, children: [{ type: 2, text: 'line 1\n' }, { type: 1, children: [{ type: 2, text: 'line 2' }] }] } };
    const request = toLlmRequest(
      [
        assistant(new ToolCallPart('a', 'screenshot', {}), new ToolCallPart('b', 'outline', {}), new ToolCallPart('c', 'noop', {})),
        user(
          new ToolResultPart('a', [new TextPart('Captured.'), new DataPart(PNG_BYTES, 'image/png')]),
          new ToolResultPart('b', [new PromptTsxPart(tsx), new DataPart(Buffer.from('{"ok":true}'), 'application/json')]),
          new ToolResultPart('c', []),
        ),
      ],
      { supportsImages: true },
    );

    assert.deepEqual(request.messages[1], {
      role: 'tool_results',
      results: [
        {
          callId: 'a',
          content: 'Captured.',
          isError: false,
          images: [{ type: 'image', mimeType: 'image/png', data: Buffer.from(PNG_BYTES).toString('base64') }],
        },
        { callId: 'b', content: 'line 1\nline 2\n{"ok":true}', isError: false },
        { callId: 'c', content: '(the tool returned no output)', isError: false },
      ],
    });
  });

  it('carries a tool result\'s error flag, where the host sets one', () => {
    const request = toLlmRequest(
      [assistant(new ToolCallPart('a', 'bash', { command: 'false' })), user(new ToolResultPart('a', [new TextPart('exit code 1')], true))],
      { supportsImages: true },
    );
    assert.deepEqual(request.messages[1], { role: 'tool_results', results: [{ callId: 'a', content: 'exit code 1', isError: true }] });
  });

  it('leaves out markers meant for other vendors, parts for the user only, earlier thinking and unknown parts', () => {
    const request = toLlmRequest(
      [
        user(
          new TextPart('hello'),
          new DataPart(Buffer.from('ephemeral'), 'cache_control'),
          new DataPart(Buffer.from('shown to the user'), 'text/plain', [AUDIENCE.user]),
          new DataPart(Buffer.from('{"for":"both"}'), 'text/x-json', [AUDIENCE.user, AUDIENCE.assistant]),
          42,
          null,
          { unknown: true },
        ),
        assistant(new ThinkingPart('Let me think.', 'th_1'), new TextPart('Hi.')),
      ],
      { supportsImages: true },
    );
    assert.deepEqual(request.messages, [
      { role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'text', text: '{"for":"both"}' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
    ]);
  });

  it('drops messages left empty, which the APIs would reject', () => {
    const request = toLlmRequest([user(new TextPart('')), assistant(new TextPart('')), user('go')], { supportsImages: true });
    assert.deepEqual(request.messages, [{ role: 'user', content: [{ type: 'text', text: 'go' }] }]);
  });
});

describe('tool calls of a response, for VS Code', () => {
  it('parses each call\'s arguments into the input object', () => {
    const calls = toolCallsOf(
      response([
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
        { type: 'tool_call', id: 'call_2', name: 'list_directory', arguments: '{}' },
      ]),
    );
    assert.deepEqual(calls, [
      { callId: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
      { callId: 'call_2', name: 'list_directory', input: {} },
    ]);
  });

  it('gives arguments that are not a JSON object as an empty input, so the caller\'s validation answers the model', () => {
    const calls = toolCallsOf(
      response([
        { type: 'tool_call', id: 'x', name: 'bash', arguments: '{"command": "ls' },
        { type: 'tool_call', id: 'y', name: 'bash', arguments: '["ls"]' },
      ]),
    );
    assert.deepEqual(calls.map((call) => call.input), [{}, {}]);
  });

  it('round-trips: a reported call sent back in the history carries the same arguments', () => {
    const [call] = toolCallsOf(response([{ type: 'tool_call', id: 'c', name: 'grep', arguments: '{"pattern":"TODO","path":"src"}' }]));
    const request = toLlmRequest([assistant(new ToolCallPart(call!.callId, call!.name, call!.input))], { supportsImages: true });
    assert.deepEqual(request.messages[0], {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c', name: 'grep', arguments: '{"pattern":"TODO","path":"src"}' }],
    });
  });
});

describe('token estimate', () => {
  it('counts about four characters per token for text', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcdefgh'), 2);
    assert.equal(estimateTokens('abcdefghi'), 3);
  });

  it('counts a message\'s text, tool calls, tool results and images', () => {
    const textOnly = estimateTokens(user(new TextPart('x'.repeat(400))));
    assert.equal(textOnly, 100);

    // "read_file" and '{"path":"xxx…"}': 9 + 110 characters.
    const withCall = estimateTokens(assistant(new ToolCallPart('c', 'read_file', { path: 'x'.repeat(100) })));
    assert.equal(withCall, 30);

    const withResult = estimateTokens(user(new ToolResultPart('c', [new TextPart('y'.repeat(800))])));
    assert.equal(withResult, 200);

    // An image is a fixed thousand, whatever its bytes: the vendors charge by pixels, which we do not decode.
    const withImage = estimateTokens(user(new DataPart(PNG_BYTES, 'image/png')));
    assert.equal(withImage, 1000);
  });
});
