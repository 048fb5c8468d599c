import assert from 'node:assert/strict';
import {
  messageText,
  modelFailure,
  parseVscodeModelId,
  ResponseGatherer,
  toModelMessages,
  toModelTools,
  vscodeModelId,
} from '../../../../src/adapters/vscode/model-request';
import { readConfiguration, settingsFor } from '../../../../src/adapters/vscode/configuration';
import { providerFor } from '../../../../src/llm';
import { registerHostProvider } from '../../../../src/llm/host-providers';
import type { LlmRequest, Message } from '../../../../src/llm/types';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');

/** A tool turn as Crow's engine stores it: a prompt with an image, a call with thinking, its result, a follow-up. */
const CONVERSATION: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Fix the bug' }, { type: 'image', mimeType: 'image/png', data: PNG }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'Look first.', signature: 'sig' },
      { type: 'text', text: '' },
      { type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
    ],
  },
  { role: 'tool_results', results: [{ callId: 'call_1', content: 'export const a = 1;', isError: false, images: [{ type: 'image', mimeType: 'image/png', data: PNG }] }] },
  { role: 'user', content: [{ type: 'text', text: 'And hurry.' }] },
];

describe("Crow's requests as VS Code language-model messages", () => {
  it('opens the first user message with the system prompt, as no system role is open to extensions', () => {
    const messages = toModelMessages({ system: 'You are Crow.', messages: CONVERSATION }, { supportsImages: true });
    assert.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    const first = messages[0]!;
    assert.deepEqual(first.parts[0], { kind: 'text', text: 'You are Crow.' });
    assert.deepEqual(first.parts[1], { kind: 'text', text: 'Fix the bug' });
    assert.equal(first.parts[2]?.kind, 'image');
  });

  it('sends tool calls as call parts with object input, leaving out thinking and empty text', () => {
    const [, assistant] = toModelMessages({ system: '', messages: CONVERSATION }, { supportsImages: true });
    assert.deepEqual(assistant, { role: 'assistant', parts: [{ kind: 'tool_call', callId: 'call_1', name: 'read_file', input: { path: 'a.ts' } }] });
  });

  it('puts tool results first in the next user message, a follow-up joined after them', () => {
    const messages = toModelMessages({ system: '', messages: CONVERSATION }, { supportsImages: true });
    const last = messages.at(-1)!;
    assert.equal(last.role, 'user');
    assert.equal(last.parts[0]?.kind, 'tool_result');
    assert.deepEqual(last.parts[1], { kind: 'text', text: 'And hurry.' });
    const result = last.parts[0];
    assert.ok(result?.kind === 'tool_result');
    assert.equal(result.callId, 'call_1');
    assert.deepEqual(result.content[0], { kind: 'text', text: 'export const a = 1;' });
    assert.equal(result.content[1]?.kind, 'image');
  });

  it('replaces images with a note for a model that does not read them', () => {
    const messages = toModelMessages({ system: '', messages: CONVERSATION }, { supportsImages: false });
    const kinds = JSON.stringify(messages);
    assert.doesNotMatch(kinds, /"kind":"image"/);
    assert.match(messages[0]!.parts.map((part) => (part.kind === 'text' ? part.text : '')).join(' '), /image \(image\/png\) was left out/);
  });

  it('never sends an empty tool result, nor a message with no parts', () => {
    const messages = toModelMessages(
      {
        system: '',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'thinking', text: 'only thoughts' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'bash', arguments: '{"command":' }] },
          { role: 'tool_results', results: [{ callId: 'c', content: '', isError: true }] },
        ],
      },
      { supportsImages: false },
    );
    assert.deepEqual(
      messages.map((message) => [message.role, message.parts.length]),
      [
        ['user', 1],
        ['assistant', 1],
        ['user', 1],
      ],
    );
    const call = messages[1]!.parts[0];
    assert.deepEqual(call, { kind: 'tool_call', callId: 'c', name: 'bash', input: {} }, 'cut-off arguments become an empty object');
    const result = messages[2]!.parts[0];
    assert.ok(result?.kind === 'tool_result');
    assert.deepEqual(result.content, [{ kind: 'text', text: '(the tool returned no output)' }]);
  });

  it('offers tools with their schemas, and counts a message by its text, calls and results', () => {
    assert.deepEqual(toModelTools([{ name: 'grep', description: 'Search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }]), [
      { name: 'grep', description: 'Search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    ]);
    const messages = toModelMessages({ system: '', messages: CONVERSATION }, { supportsImages: true });
    assert.equal(messageText(messages[1]!), 'read_file {"path":"a.ts"}');
    assert.equal(messageText(messages[2]!), 'export const a = 1;\nAnd hurry.');
  });
});

describe('VS Code language-model responses gathered for Crow', () => {
  it('joins text, keeps calls in order, and ends in tool_use when the model called a tool', () => {
    const gathered = new ResponseGatherer();
    gathered.text('Reading ');
    gathered.text('it.');
    gathered.toolCall('c1', 'read_file', { path: 'a.ts' });
    gathered.toolCall('c1', 'read_file', { path: 'b.ts' });
    const response = gathered.finish('copilot/gpt-4o', { input: 120, output: 9 });
    assert.equal(response.stopReason, 'tool_use');
    // A second call with the same id is kept: the engine renames it (llm/call-ids.ts), so both run.
    assert.deepEqual(response.content, [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_call', id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { type: 'tool_call', id: 'c1', name: 'read_file', arguments: '{"path":"b.ts"}' },
    ]);
    assert.deepEqual([response.usage.input, response.usage.output], [120, 9]);
    assert.equal(new ResponseGatherer().finish('m', { input: 1, output: 0 }).stopReason, 'end_turn');
  });

  it('keeps what arrived when the request failed or was cancelled', () => {
    const gathered = new ResponseGatherer();
    gathered.text('partial');
    const failed = gathered.finish('m', { input: 1, output: 0 }, { stopReason: 'error', message: 'boom' });
    assert.equal(failed.stopReason, 'error');
    assert.equal(failed.errorMessage, 'boom');
    assert.deepEqual(failed.content, [{ type: 'text', text: 'partial' }]);
  });

  it("says what to do next for each of VS Code's LanguageModelError codes", () => {
    const model = 'copilot/gpt-4o';
    assert.match(modelFailure({ code: 'NoPermissions', message: 'x' }, model), /permission was not given.*choose Allow.*Manage Language Model Access/);
    assert.match(modelFailure({ code: 'Blocked', message: 'x' }, model), /blocked.*quota.*pick another model/);
    assert.match(modelFailure({ code: 'NotFound', message: 'x' }, model), /no longer offers the model copilot\/gpt-4o.*model picker/);
    assert.equal(modelFailure(new Error('HTTP 400: bad tools'), model), 'The VS Code model copilot/gpt-4o failed: HTTP 400: bad tools');
  });

  it('names models vendor/id, and reads a bare id as any vendor', () => {
    assert.equal(vscodeModelId({ vendor: 'copilot', id: 'claude-sonnet-4' }), 'copilot/claude-sonnet-4');
    assert.deepEqual(parseVscodeModelId('copilot/claude-sonnet-4'), { vendor: 'copilot', id: 'claude-sonnet-4' });
    assert.deepEqual(parseVscodeModelId('some/vendor/model'), { vendor: 'some', id: 'vendor/model' });
    assert.deepEqual(parseVscodeModelId('gpt-4o'), { id: 'gpt-4o' });
  });
});

describe('provider type "vscode"', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-vscode-provider-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const env = (): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: join(root, 'config'), HOME: root });

  it("lists VS Code's models with their input windows and image support, the first as default", () => {
    const configuration = {
      ...readConfiguration((key) => ({ provider: 'vscode' })[key]),
      vscodeModels: [
        { id: 'copilot/gpt-4o', name: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64_000, vision: true },
        { id: 'other/small', name: 'Small', vendor: 'other', maxInputTokens: 8_000, vision: false },
      ],
    };
    const settings = settingsFor(root, configuration, env());
    assert.equal(settings.provider, 'vscode');
    assert.equal(settings.model, 'copilot/gpt-4o');
    const entry = settings.providers['vscode']!;
    assert.equal(entry.type, 'vscode');
    assert.deepEqual(entry.models['copilot/gpt-4o'], { contextWindow: 64_000, vision: true, tools: true });
    assert.deepEqual(entry.models['other/small'], { contextWindow: 8_000, vision: false, tools: true });
  });

  it('is a clear error where no front door supplies it, and built by the one that registers it', () => {
    const entry = { name: 'vscode', type: 'vscode' as const, models: {} };
    assert.throws(() => providerFor({ entry, model: 'copilot/gpt-4o', apiKey: undefined }, {}), /type "vscode", which works only in Crow's VS Code extension.*pick another provider/);
    const made: string[] = [];
    const unregister = registerHostProvider('vscode', (connection) => {
      made.push(connection.model);
      return { name: 'vscode', model: connection.model, supportsImages: false, stream: noStream };
    });
    try {
      assert.equal(providerFor({ entry, model: 'copilot/gpt-4o', apiKey: undefined }, {}).model, 'copilot/gpt-4o');
      assert.deepEqual(made, ['copilot/gpt-4o']);
    } finally {
      unregister();
    }
    assert.throws(() => providerFor({ entry, model: 'copilot/gpt-4o', apiKey: undefined }, {}), /works only in Crow's VS Code extension/);
  });
});

async function* noStream(_request: LlmRequest): AsyncIterable<never> {}
