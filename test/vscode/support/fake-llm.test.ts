// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
// The helper other suites rely on to point Crow at the fake LLM server.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startFakeLlm } from './fake-llm';

const KEYS = ['provider', 'model', 'baseUrls', 'defaultAgent', 'permissions.write'];

function explicitValues(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('crow');
  return Object.fromEntries(KEYS.map((key) => [key, config.inspect(key)?.workspaceValue]));
}

suite('fake LLM server for suites in VS Code', () => {
  test('points Crow at the server through its settings, and puts them back', async () => {
    const before = explicitValues();
    const fake = await startFakeLlm({ model: 'scripted', permissions: { write: 'allow' } });
    try {
      const config = vscode.workspace.getConfiguration('crow');
      assert.equal(config.get('provider'), 'openai');
      assert.equal(config.get('model'), 'scripted');
      assert.deepEqual(config.get('baseUrls'), { openai: fake.server.openaiBaseUrl });
      assert.equal(config.get('defaultAgent'), 'build');
      assert.equal(config.get('permissions.write'), 'allow');
    } finally {
      await fake.dispose();
    }
    assert.deepEqual(explicitValues(), before);
  });

  test('the server answers OpenAI requests from the extension host over loopback', async () => {
    const fake = await startFakeLlm();
    try {
      fake.server.enqueue('openai', { blocks: [{ type: 'text', text: 'pong' }] });
      const response = await fetch(`${fake.server.openaiBaseUrl}/chat/completions`, {
        method: 'POST',
        // As the OpenAI SDK sends it: the fake, like OpenAI, answers 401 without a key.
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-extension-host-test' },
        body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'ping' }] }),
      });
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      assert.equal(body.choices[0]?.message.content, 'pong');
      assert.equal(fake.server.requestsFor('openai')[0]?.body.messages[0].content, 'ping');
    } finally {
      await fake.dispose();
    }
  });
});
