/**
 * A key kept by `crow login` (Crow's private key file here: the test
 * machine has no OS keychain) is what the extension's engine uses when
 * neither VS Code's secret storage nor the extension host's environment has
 * one, and it never reaches the chat view.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Crow } from '../../src/adapters/vscode/crow';
import { LoginKeys } from '../../src/config/login-keys';
import { dataHome } from '../../src/config/paths';
import { useFakeLlm } from './support/fake-llm';

const STORED = 'sk-crow-login-STORED-0123456789';

suite('A key from crow login in VS Code', () => {
  const server = useFakeLlm({});
  let crow: Crow;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<Crow>('crow-agent.crow-agent');
    assert.ok(extension);
    crow = await extension.activate();
    await vscode.commands.executeCommand('crow.chat.focus');
  });

  test('is sent to the provider when nothing else holds one, and never posted to the view', async () => {
    assert.equal(process.env.OPENAI_API_KEY, undefined, 'the harness gives the extension host no key');
    const store = new LoginKeys(dataHome(process.env), () => ({ unavailable: 'no keychain in this test' }));
    store.save('OPENAI_API_KEY', 'openai', STORED);
    const posted: unknown[] = [];
    const subscription = crow.chat.onDidPost((message) => posted.push(structuredClone(message)));
    try {
      await crow.controller().newSession();
      server().enqueue('openai', { blocks: [{ type: 'text', text: 'Signed in.' }] });
      await crow.controller().handle({ type: 'send', text: 'Hello with the stored key' });
      assert.equal(server().requests.at(-1)?.headers.authorization, `Bearer ${STORED}`);
      assert.doesNotMatch(JSON.stringify(posted), new RegExp(STORED));
    } finally {
      subscription.dispose();
      store.remove('OPENAI_API_KEY');
    }
  });
});
