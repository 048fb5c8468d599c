// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
// Crow's models, registered as VS Code language models, answer through the
// fake LLM server: what VS Code's Chat and other extensions get from vendor "crow".
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { keptModels, type LanguageModelsRegistration, registerLanguageModels } from '../../src/adapters/vscode/language-models';
import type { Settings } from '../../src/config/settings';
import { FakeLlmServer } from '../../testkit/fake-llm-server';

const VENDOR = 'crow';

/**
 * The default provider points at the fake server; "cloud" has no key, so it
 * is not offered; "local" needs none, and its server lists what it serves:
 * not its default model (as a local server behind "openai" does not serve
 * OpenAI's default), which is therefore not offered.
 */
function settingsFor(server: FakeLlmServer): Settings {
  return {
    provider: 'openai',
    model: 'fake-gpt',
    maxRetries: 0,
    providers: {
      openai: {
        name: 'openai',
        type: 'openai',
        baseUrl: server.openaiBaseUrl,
        apiKeyEnv: 'OPENAI_API_KEY',
        defaultModel: 'fake-gpt',
        models: { 'fake-gpt': { contextWindow: 64_000, tools: true, vision: true } },
      },
      cloud: { name: 'cloud', type: 'anthropic', apiKeyEnv: 'CLOUD_API_KEY', defaultModel: 'cloud-large', models: {} },
      local: { name: 'local', type: 'openai', baseUrl: server.openaiBaseUrl, defaultModel: 'gpt-not-served-here', models: { 'qwen-small': { vision: false } } },
    },
  };
}

async function crowModel(id: string): Promise<vscode.LanguageModelChat> {
  const [model] = await vscode.lm.selectChatModels({ vendor: VENDOR, id });
  assert.ok(model, `model ${id} is offered by vendor "${VENDOR}"`);
  return model;
}

/** Waits, over at most `attempts` model-list changes (or half-second polls), until the crow models satisfy `ready`. */
async function crowModelsWhen(ready: (ids: string[]) => boolean, attempts = 40): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    const ids = (await vscode.lm.selectChatModels({ vendor: VENDOR })).map((model) => model.id);
    if (ready(ids) || attempt === attempts) return ids;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 500);
      const subscription = vscode.lm.onDidChangeChatModels(done);
      function done(): void {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      }
    });
  }
}

async function textOf(response: vscode.LanguageModelChatResponse): Promise<string> {
  let text = '';
  for await (const chunk of response.text) text += chunk;
  return text;
}

suite('Crow models as VS Code language models', function () {
  let server: FakeLlmServer;
  let settings: Settings;
  let env: NodeJS.ProcessEnv;
  let registration: LanguageModelsRegistration;

  suiteSetup(async function () {
    if (typeof (vscode.lm as { registerLanguageModelChatProvider?: unknown }).registerLanguageModelChatProvider !== 'function') {
      this.skip();
    }
    // The extension may have registered vendor "crow" itself; one provider per vendor is allowed.
    const api: unknown = await vscode.extensions.getExtension('crow-agent.crow-agent')?.activate();
    (api as { languageModels?: vscode.Disposable } | undefined)?.languageModels?.dispose();

    server = await FakeLlmServer.start();
    server.models = ['fake-gpt', 'qwen-small'];
    settings = settingsFor(server);
    env = { OPENAI_API_KEY: 'sk-test-not-real' };
    registration = registerLanguageModels({ settings: () => settings, env: async () => env });
  });

  suiteTeardown(async () => {
    registration?.dispose();
    await server?.close();
  });

  setup(() => server.reset());

  test('offers the default model and the models of providers it can reach, only those their servers serve', async () => {
    const ids = await crowModelsWhen((found) => found.includes('openai/fake-gpt'));
    assert.deepEqual([...ids].sort(), ['local/qwen-small', 'openai/fake-gpt']);
    const model = await crowModel('openai/fake-gpt');
    assert.equal(model.family, 'fake-gpt');
    assert.equal(model.vendor, VENDOR);
    assert.equal(model.maxInputTokens, 64_000 - 8192);
  });

  test('streams the model\'s text to the caller', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Hello from the fake model.' }] });
    const model = await crowModel('openai/fake-gpt');

    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('Say hello.')], {});

    assert.equal(await textOf(response), 'Hello from the fake model.');
    const [request] = server.requestsFor('openai');
    assert.equal(request?.body.model, 'fake-gpt');
    assert.deepEqual(request?.body.messages, [{ role: 'user', content: 'Say hello.' }]);
    assert.equal(request?.headers.authorization, 'Bearer sk-test-not-real');
  });

  test('returns a scripted tool call as a LanguageModelToolCallPart, and sends its result back', async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_call', id: 'call_7', name: 'read_file', arguments: { path: 'src/a.ts' } }] },
      { blocks: [{ type: 'text', text: 'It exports nothing.' }] },
    );
    const model = await crowModel('openai/fake-gpt');
    const tools: vscode.LanguageModelChatTool[] = [
      { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
    ];
    const ask = vscode.LanguageModelChatMessage.User('What is in src/a.ts?');

    const first = await model.sendRequest([ask], { tools });
    const parts: unknown[] = [];
    for await (const part of first.stream) parts.push(part);

    const call = parts.find((part): part is vscode.LanguageModelToolCallPart => part instanceof vscode.LanguageModelToolCallPart);
    assert.ok(call, `a tool call part arrives (got ${JSON.stringify(parts)})`);
    assert.equal(call.callId, 'call_7');
    assert.equal(call.name, 'read_file');
    assert.deepEqual(call.input, { path: 'src/a.ts' });
    assert.equal(server.requestsFor('openai')[0]?.body.tools?.[0]?.function?.name, 'read_file');

    const second = await model.sendRequest(
      [
        ask,
        vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelTextPart('Reading it.'), call]),
        vscode.LanguageModelChatMessage.User([
          new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart('export {};')]),
        ]),
      ],
      { tools },
    );
    assert.equal(await textOf(second), 'It exports nothing.');
    const sent = server.requestsFor('openai')[1]?.body.messages;
    assert.deepEqual(sent.slice(1), [
      {
        role: 'assistant',
        content: 'Reading it.',
        tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_7', content: 'export {};' },
    ]);
  });

  test('passes images on to a model configured with vision', async function () {
    // LanguageModelDataPart is newer than our @types/vscode; VS Code 1.139 has it.
    const DataPart = (vscode as unknown as { LanguageModelDataPart?: { image(data: Uint8Array, mimeType: string): object } }).LanguageModelDataPart;
    if (!DataPart) this.skip();
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'A red pixel.' }] });
    const model = await crowModel('openai/fake-gpt');
    // A real 1×1 PNG: the workbench decodes (and may re-encode) images on their way to the model.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const parts = [new vscode.LanguageModelTextPart('What is this?'), DataPart.image(png, 'image/png')];

    const response = await model.sendRequest([new vscode.LanguageModelChatMessage(vscode.LanguageModelChatMessageRole.User, parts as never)], {});

    assert.equal(await textOf(response), 'A red pixel.');
    const [text, image] = server.requestsFor('openai')[0]?.body.messages[0].content;
    assert.deepEqual(text, { type: 'text', text: 'What is this?' });
    assert.equal(image.type, 'image_url');
    assert.match(image.image_url.url, /^data:image\/[a-z]+;base64,[A-Za-z0-9+/]+=*$/);
  });

  test('cancelling the request aborts it at the server', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: ['first ', 'second ', 'third'] }], fault: { kind: 'stall_after', events: 2 } });
    const model = await crowModel('openai/fake-gpt');
    const cancellation = new vscode.CancellationTokenSource();

    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('Talk slowly.')], {}, cancellation.token);
    let text = '';
    try {
      for await (const chunk of response.text) {
        text += chunk;
        cancellation.cancel();
      }
    } catch (error) {
      // Ending in a cancellation error is as good as ending quietly: what matters is that it ends.
      assert.ok(!(error instanceof Error) || /cancel/i.test(`${error.name} ${error.message}`), `ended by cancellation, not ${String(error)}`);
    }
    assert.equal(text, 'first ');
  });

  test('a rejected key fails the request with a message saying how to set one', async () => {
    server.enqueue('openai', { kind: 'http_error', status: 401, message: 'Incorrect API key provided.' });
    const model = await crowModel('openai/fake-gpt');

    await assert.rejects(async () => textOf(await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {})), (error: Error) => {
      assert.match(error.message, /HTTP 401/);
      assert.match(error.message, /Crow: Set API Key/);
      assert.doesNotMatch(error.message, /sk-test-not-real/);
      return true;
    });
  });

  test('after refresh(), follows the settings: a default provider without a key is offered and explains itself', async () => {
    settings = { ...settings, provider: 'cloud', model: 'cloud-large' };
    registration.refresh();

    const ids = await crowModelsWhen((found) => found.includes('cloud/cloud-large'));
    assert.ok(ids.includes('cloud/cloud-large'), `the new default is offered (got ${ids.join(', ')})`);
    const model = await crowModel('cloud/cloud-large');

    await assert.rejects(async () => textOf(await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {})), (error: Error) => {
      assert.match(error.message, /No API key for provider "cloud"/);
      assert.match(error.message, /Crow: Set API Key/);
      assert.match(error.message, /CLOUD_API_KEY/);
      return true;
    });
    assert.equal(server.requests.length, 0, 'nothing was sent without a key');
  });

  test('before the engine is loaded, offers the list kept from last time at once, then, once it loads, the current one', async () => {
    registration.dispose();
    const kept = [
      { id: 'gone/old-model', name: 'old-model (gone)', family: 'old-model', version: 'old-model', maxInputTokens: 1000, maxOutputTokens: 100, capabilities: { toolCalling: true } },
    ];
    let stored: unknown = kept;
    // The engine as the extension has it: nothing loads it until the test does (the chat view opening, a prompt).
    let engineLoaded = false;
    const onLoad: (() => void)[] = [];
    let settingsRead = 0;
    registration = registerLanguageModels({
      settings: () => (settingsRead++, settings),
      env: async () => env,
      cache: { read: () => keptModels(stored), write: (models) => (stored = JSON.parse(JSON.stringify(models))) },
      engine: { loaded: () => engineLoaded, onLoad: (listener) => onLoad.push(listener) },
    });
    const first = await crowModelsWhen((found) => found.length > 0);
    assert.deepEqual(first, ['gone/old-model'], 'the kept list is offered at once');
    assert.equal(settingsRead, 0, 'offering it loads nothing');
    engineLoaded = true;
    for (const listener of onLoad.splice(0)) listener();
    const current = await crowModelsWhen((found) => found.includes('cloud/cloud-large') && !found.includes('gone/old-model'));
    assert.ok(current.includes('cloud/cloud-large') && !current.includes('gone/old-model'), `then the current list replaces it (got ${current.join(', ')})`);
    assert.ok(keptModels(stored)?.some((model) => model.id === 'cloud/cloud-large'), 'and the current list is kept for next time');
    assert.equal(keptModels([{ id: 'x' }]), undefined, 'a damaged kept list is not offered');
    assert.equal(keptModels('not a list'), undefined);
    assert.equal(keptModels([{ ...kept[0], capabilities: null }]), undefined);
  });
});
