/**
 * The VS Code door's sign-in to remote MCP servers, in the parts that run
 * without the workbench: tokens in SecretStorage per server URL, what the
 * command offers to pick, the chat notice's "Sign in…" and the message it
 * posts back (checked like every webview message).
 */
import assert from 'node:assert/strict';
import { editorAction } from '../../../../src/adapters/vscode/chat/chat-actions';
import { TranscriptTranslator } from '../../../../src/adapters/vscode/chat/transcript-translator';
import { SecretTokenStore } from '../../../../src/adapters/vscode/mcp-secret-store';
import { signInChoices, vscodeSignInHint } from '../../../../src/adapters/vscode/mcp-sign-in-choices';
import type { McpServerConfig } from '../../../../src/mcp/server-config';
import { isWebviewMessage } from '../../../../webview/chat/message-checks';
import { quietViewActions } from '../../../support/view-actions';

const remote = (name: string, url: string): McpServerConfig => ({ name, transport: { type: 'http', url, headers: {} }, permission: 'execute', source: 'config.toml' });

describe('signing in to MCP servers in VS Code (the parts without the workbench)', () => {
  it('keeps one secret per server URL, never handing it to another server, and forgets it on request', async () => {
    const secrets = new Map<string, string>();
    const storage = { get: async (key: string) => secrets.get(key), store: async (key: string, value: string) => void secrets.set(key, value), delete: async (key: string) => void secrets.delete(key) };
    const store = new SecretTokenStore(storage);
    await store.save({ serverUrl: 'https://docs.example.com/mcp', tokens: { access_token: 'at', token_type: 'Bearer' } });
    assert.deepEqual([...secrets.keys()].map((key) => /^crow\.mcpAuth\.[0-9a-f]{32}$/.test(key)), [true]);
    assert.equal((await store.load('https://DOCS.example.com/mcp#x'))?.tokens?.access_token, 'at');
    assert.equal(await store.load('https://other.example.com/mcp'), undefined);
    // A secret that names another server (moved by hand, or damaged) is not used.
    const [key] = [...secrets.keys()];
    secrets.set(key!, JSON.stringify({ serverUrl: 'https://other.example.com/mcp', tokens: { access_token: 'x', token_type: 'Bearer' } }));
    assert.equal(await store.load('https://docs.example.com/mcp'), undefined);
    secrets.set(key!, '{');
    assert.equal(await store.load('https://docs.example.com/mcp'), undefined);
    assert.equal(await store.remove('https://docs.example.com/mcp'), true);
    assert.equal(secrets.size, 0);
  });

  it('offers the remote servers that need a sign-in, or all remote ones when each has one', () => {
    const stdio: McpServerConfig = { name: 'files', transport: { type: 'stdio', command: 'x', args: [], env: {} }, permission: 'execute', source: 'config.toml' };
    const servers = [stdio, remote('docs', 'https://docs.example.com/mcp'), remote('wiki', 'https://wiki.example.com/mcp')];
    assert.deepEqual(signInChoices(servers, (url) => url.includes('wiki')).map((choice) => choice.label), ['docs']);
    assert.deepEqual(signInChoices(servers, () => true).map((choice) => [choice.label, choice.description, choice.signedIn]), [
      ['docs', 'https://docs.example.com/mcp', true],
      ['wiki', 'https://wiki.example.com/mcp', true],
    ]);
    assert.deepEqual(signInChoices([stdio], () => false), []);
    assert.match(vscodeSignInHint(), /use "Crow: Sign In to MCP Server…" \(the Sign in button here, or the Command Palette\)/);
  });

  it('the chat notice of a server that needs sign-in offers it, and the view\'s answer runs the command for that server', async () => {
    const [shown] = new TranscriptTranslator().handle({
      type: 'notice',
      agent: 'build',
      level: 'warning',
      message: 'MCP server "docs" needs you to sign in: use it.',
      title: 'MCP server "docs" needs you to sign in',
      action: { kind: 'mcp_sign_in', server: 'docs' },
    });
    assert.deepEqual(shown, { type: 'notice', level: 'warning', text: 'MCP server "docs" needs you to sign in: use it.', action: { kind: 'mcp_sign_in', server: 'docs' } });
    assert.equal(isWebviewMessage({ type: 'mcp_sign_in', server: 'docs' }), true);
    for (const bad of [{ type: 'mcp_sign_in' }, { type: 'mcp_sign_in', server: 3 }, { type: 'mcp_sign_in', server: '' }, { type: 'mcp_sign_in', server: 'x'.repeat(3000) }]) {
      assert.equal(isWebviewMessage(bad), false, JSON.stringify(bad).slice(0, 80));
    }
    const asked: string[] = [];
    await editorAction(quietViewActions({ signInMcp: async (server) => void asked.push(server) }), { type: 'mcp_sign_in', server: 'docs' }, { id: undefined, diffOf: () => undefined, approvalDiffOf: () => undefined });
    assert.deepEqual(asked, ['docs']);
  });
});
