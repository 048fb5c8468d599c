/**
 * Signing in to a remote MCP server as an ACP client's user meets it: the
 * session tells them the server needs sign-in (a notice, and the agent's
 * log), they run `crow mcp login` in a terminal, and the next prompt of the
 * same `crow acp` uses the server's tools without a restart. Then acpx, a
 * client we did not write, after a sign-in.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startAcp } from '../support/crow-binary';
import { call, oauthHarness, say } from '../support/mcp-oauth-harness';

const ACPX = resolve(__dirname, '../../node_modules/.bin/acpx');
const CROW_ACP = `${process.execPath} ${resolve(__dirname, '../../dist/crow.js')} acp`;

describe('signing in to a remote MCP server with crow acp', function () {
  this.timeout(60_000);
  const h = oauthHarness();
  const toModel = (request: number): string => JSON.stringify(h.llm.requestsFor('anthropic')[request]!.body.messages.at(-1));
  const toolsOffered = (request: number): string[] => (h.llm.requestsFor('anthropic')[request]!.body.tools as { name: string }[]).map((tool) => tool.name);

  it('tells the session the server needs sign-in, and its next prompt uses the tools once crow mcp login ran, without a restart', async () => {
    const docs = await h.serve();
    h.configure({ docs: `url = "${docs.url}"` });
    const env = h.env() as Record<string, string>;
    const crow = startAcp(h.workspace, h.home, env, { capabilities: { session: { notices: {} } }, permission: () => 'allow_once' });
    try {
      const { client } = crow;
      await client.initialize();
      const { sessionId } = await client.agent.request('session/new', { cwd: h.workspace, mcpServers: [] });
      h.llm.enqueue('anthropic', say('Without the docs.'));
      assert.equal((await client.prompt(sessionId, 'Hello')).stopReason, 'end_turn');
      const notices = client.updates(sessionId, 'notice').filter((notice) => notice.severity === 'warning');
      assert.deepEqual(notices.map((notice) => notice.title), ['MCP server "docs" needs you to sign in']);
      assert.match(notices[0]!.description ?? '', /run `crow mcp login docs`\. Its tools are unavailable until then\./);
      assert.match(crow.stderr(), /MCP server "docs" needs you to sign in: run `crow mcp login docs`/, 'in the agent\'s log too');
      assert.ok(!toolsOffered(0).some((name) => name.startsWith('mcp__docs__')));

      const signedIn = await h.login();
      assert.equal(signedIn.code, 0, signedIn.stderr);

      h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'acp' }), say('Found it.'));
      assert.equal((await client.prompt(sessionId, 'Look it up')).stopReason, 'end_turn');
      assert.ok(toolsOffered(1).includes('mcp__docs__lookup'), toolsOffered(1).join());
      assert.match(toModel(2), /the docs say acp is documented/);
      assert.equal(client.updates(sessionId, 'notice').filter((notice) => notice.severity === 'warning').length, 1, 'told once');
    } finally {
      assert.equal(await crow.stop(), 0, crow.stderr());
    }
    h.assertNoSecretsOutside(docs, [...h.outputs, crow.stderr()]);
  });

  it('names the server\'s URL in the notice for a server the client gave, whose sign-in crow mcp login URL makes', async () => {
    const docs = await h.serve();
    const crow = startAcp(h.workspace, h.home, h.env() as Record<string, string>, { capabilities: { session: { notices: {} } }, permission: () => 'allow_once' });
    try {
      const { client } = crow;
      await client.initialize();
      const { sessionId } = await client.agent.request('session/new', { cwd: h.workspace, mcpServers: [{ type: 'http', name: 'docs', url: docs.url, headers: [] }] });
      h.llm.enqueue('anthropic', say('Without the docs.'));
      await client.prompt(sessionId, 'Hello');
      const [notice] = client.updates(sessionId, 'notice').filter((update) => update.severity === 'warning');
      assert.match(notice?.description ?? '', new RegExp(`needs you to sign in: run \`crow mcp login ${docs.url.replace(/[.]/g, '\\.')}\` in a terminal`));
      assert.equal((await h.crow(['mcp', 'login', docs.url, '--timeout', '20'])).code, 0);
      h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'given' }), say('Found it.'));
      await client.prompt(sessionId, 'Look it up');
      assert.match(toModel(2), /the docs say given is documented/);
    } finally {
      assert.equal(await crow.stop(), 0, crow.stderr());
    }
  });

  it('acpx: after crow mcp login, the server\'s tool works in an ACP session', async function () {
    if (!existsSync(ACPX)) return this.skip();
    const docs = await h.serve();
    h.configure({ docs: `url = "${docs.url}"` });
    assert.equal((await h.login()).code, 0);
    h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'acpx' }), say('Found it.'));
    const child = spawn(ACPX, ['--agent', CROW_ACP, '--cwd', h.workspace, '--approve-all', '--format', 'json', 'exec', 'Look it up'], { cwd: h.workspace, env: h.env() });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    assert.equal(code, 0, stdout.slice(-2000));
    assert.match(toModel(1), /the docs say acpx is documented/);
    assert.match(stdout, /"tool_call".*lookup/);
    assert.doesNotMatch(stdout, /needs you to sign in/);
    h.assertNoSecretsOutside(docs, [...h.outputs, stdout]);
  });

  it('acpx: without a sign-in, the session is told the server needs one', async function () {
    if (!existsSync(ACPX)) return this.skip();
    const docs = await h.serve();
    h.configure({ docs: `url = "${docs.url}"` });
    h.llm.enqueue('anthropic', say('Without the docs.'));
    const child = spawn(ACPX, ['--agent', CROW_ACP, '--cwd', h.workspace, '--approve-all', '--format', 'json', 'exec', 'Hello'], { cwd: h.workspace, env: h.env() });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    assert.equal(code, 0, stdout.slice(-2000));
    assert.match(stdout, /MCP server \\"docs\\" needs you to sign in: run `crow mcp login docs`/);
  });
});
