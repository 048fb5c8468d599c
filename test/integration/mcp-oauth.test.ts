/**
 * Signing in to a remote MCP server (OAuth 2.1), through the built binary:
 * `crow mcp login` against a strict local authorization server with a
 * scripted browser (CROW_BROWSER), then `crow run` using the server's tool;
 * refreshing without the person, signing in again when that fails, logging
 * out, a server without auth left alone, hostile authorization servers
 * refused, and no token, code or verifier in anything Crow printed or kept
 * outside its sign-in file.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeAuthorizationServerOptions } from '../support/fake-authorization-server';
import { CROW } from '../support/crow-binary';
import { call, oauthHarness, say } from '../support/mcp-oauth-harness';
import { HAVE_TMUX, Terminal } from '../support/terminal';
import type { OAuthMcpServer } from '../support/oauth-mcp-server';

describe('signing in to a remote MCP server (crow mcp login, crow run)', function () {
  this.timeout(60_000);
  const h = oauthHarness();
  const { configure, login, visited, authFolder, serve, crow, assertNoSecretsOutside } = h;
  let docs: OAuthMcpServer;

  const run = (prompt: string) => crow(['run', '--no-undo', prompt]);
  const toolsOffered = (request: number): string[] => (h.llm.requestsFor('anthropic')[request]!.body.tools as { name: string }[]).map((tool) => tool.name);
  const toModel = (request: number): string => JSON.stringify(h.llm.requestsFor('anthropic')[request]!.body.messages.at(-1));

  it('signs in with discovery, registration, PKCE and the resource parameter; crow run then uses the server\'s tool', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    const signedIn = await login();
    assert.equal(signedIn.code, 0, signedIn.stderr);
    assert.match(signedIn.stdout, /^Signed in to MCP server "docs": it offers 1 tool\. .*crow mcp logout docs forgets it\.\n$/);
    const issuer = new URL(docs.authorization.issuer);
    assert.match(signedIn.stderr, new RegExp(`Its authorization server is ${issuer.host}\\. Sign in on its page:\\n  ${issuer.origin}/authorize\\?`));
    assert.match(signedIn.stderr, /Waiting for you to finish in the browser… .*\(Ctrl-C cancels; gives up after 1 min\)/);
    assert.deepEqual(docs.authorization.log, ['register', 'authorize scope=docs.read', 'token authorization_code']);
    const authorizeUrl = new URL(visited().split('\n')[0]!);
    assert.equal(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorizeUrl.searchParams.get('resource'), docs.url);
    assert.match(authorizeUrl.searchParams.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.ok((authorizeUrl.searchParams.get('state') ?? '').length >= 32, 'an unguessable state');

    const files = readdirSync(authFolder());
    assert.equal(files.length, 1);
    assert.equal(statSync(authFolder()).mode & 0o777, 0o700);
    assert.equal(statSync(join(authFolder(), files[0]!)).mode & 0o777, 0o600);
    assert.ok(!files[0]!.includes('127.0.0.1'), 'the file is named by a digest, not the URL');

    h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'tokens' }), say('Found it.'));
    const ran = await run('Look it up');
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(toolsOffered(0).includes('mcp__docs__lookup'));
    assert.match(toModel(1), /the docs say tokens is documented/);
    assert.doesNotMatch(ran.stderr, /sign in/);
    assertNoSecretsOutside(docs);
  });

  it('reports a server that needs sign-in once, runs without its tools, and registers nothing until the person signs in', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    h.llm.enqueue('anthropic', say('Without the docs.'));
    const ran = await run('Hello');
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stderr.match(/MCP server "docs" needs you to sign in: run `crow mcp login docs`\. Its tools are unavailable until then\./g)?.length, 1, ran.stderr);
    assert.ok(!toolsOffered(0).some((name) => name.startsWith('mcp__docs__')));
    assert.deepEqual(docs.authorization.log, [], 'no registration, no authorization without the person');
    assert.ok(h.spans().some((span) => span.name === 'mcp oauth sign-in needed docs' && span.status === 'error'), 'a span in the trace');
    assert.equal(visited(), '', 'no browser opened by crow run');
  });

  it('refreshes an expired access token without the person: on the server\'s 401, and before connecting when it is about to run out', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    assert.equal((await login()).code, 0);
    docs.authorization.expireAccessTokens();
    h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'refresh' }), say('Done.'));
    const first = await run('Look it up');
    assert.equal(first.code, 0, first.stderr);
    assert.match(toModel(1), /the docs say refresh is documented/);
    assert.ok(docs.log.includes('401 expired token (RFC 6750 §3.1)'), docs.log.join('\n'));
    assert.equal(docs.authorization.log.filter((line) => line === 'token refresh_token').length, 1);

    // Issued from now on for 30 s: less than the minute of margin, so the next run renews it before its first request.
    docs.authorization.setAccessTtl(30);
    docs.authorization.expireAccessTokens();
    h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'again' }), say('Done.'), call('mcp__docs__lookup', { topic: 'early' }), say('Done.'));
    assert.equal((await run('Look it up')).code, 0);
    const rejectedBefore = docs.log.filter((line) => line.startsWith('401')).length;
    assert.equal((await run('Look it up')).code, 0);
    assert.match(toModel(5), /the docs say early is documented/);
    assert.equal(docs.log.filter((line) => line.startsWith('401')).length, rejectedBefore, 'renewed before connecting: no 401 this time');
    assert.equal(docs.authorization.log.filter((line) => line === 'token refresh_token').length, 3);
    assert.equal(h.spans().filter((span) => span.name === 'mcp oauth refresh docs' && span.status === 'ok').length, 3, 'each refresh is a span');
    assertNoSecretsOutside(docs);
  });

  it('asks the person to sign in again when the refresh token was revoked, and forgets the dead tokens', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    assert.equal((await login()).code, 0);
    docs.authorization.expireAccessTokens();
    docs.authorization.revokeRefreshTokens();
    h.llm.enqueue('anthropic', say('Without the docs.'));
    const ran = await run('Hello');
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stderr.match(/MCP server "docs" needs you to sign in: run `crow mcp login docs`/g)?.length, 1, ran.stderr);
    assert.ok(docs.authorization.log.includes('refused: the refresh token was revoked (RFC 6749 §6)'));
    const [file] = readdirSync(authFolder());
    assert.doesNotMatch(readFileSync(join(authFolder(), file!), 'utf8'), /access_token/, 'the refused tokens were dropped');
    assert.equal((await login()).code, 0, 'signing in again works');
    h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'back' }), say('Done.'));
    assert.equal((await run('Look it up')).code, 0);
    assert.match(toModel(2), /the docs say back is documented/);
    assertNoSecretsOutside(docs);
  });

  it('logs out: the sign-in is forgotten and the next run asks for it', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    assert.equal((await login()).code, 0);
    const out = await crow(['mcp', 'logout', 'docs']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'Signed out of MCP server "docs": Crow forgot its sign-in.\n');
    assert.deepEqual(readdirSync(authFolder()), []);
    assert.equal((await crow(['mcp', 'logout', 'docs'])).stdout, 'Crow had no sign-in for MCP server "docs".\n');
    h.llm.enqueue('anthropic', say('Without the docs.'));
    assert.match((await run('Hello')).stderr, /MCP server "docs" needs you to sign in/);
  });

  it('leaves a server without auth alone, and says so when asked to sign in to it', async () => {
    const plain = await serve({ open: true });
    configure({ plain: `url = "${plain.url}"` });
    h.llm.enqueue('anthropic', call('mcp__plain__lookup', { topic: 'open' }), say('Done.'));
    const ran = await run('Look it up');
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(toModel(1), /the docs say open is documented/);
    assert.doesNotMatch(ran.stderr, /sign in/);
    const signIn = await login('plain');
    assert.equal(signIn.code, 0, signIn.stderr);
    assert.equal(signIn.stdout, 'MCP server "plain" did not ask for a sign-in: it offers 1 tool, no sign-in needed.\n');
    assert.equal(visited(), '');
    assert.ok(!existsSync(authFolder()) || readdirSync(authFolder()).length === 0, 'nothing stored');
  });

  it('uses a client registered beforehand (config.toml oauth), on its registered port, with its scopes', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    docs = await serve({ clients: [{ client_id: 'crow-preregistered', redirect_uris: [`http://127.0.0.1:${port}/callback`] }] });
    configure({ docs: `url = "${docs.url}"\noauth = { client_id = "crow-preregistered", scopes = ["docs.read", "docs.search"], callback_port = ${port} }` });
    const signedIn = await login();
    assert.equal(signedIn.code, 0, signedIn.stderr);
    assert.deepEqual(docs.authorization.log, ['authorize scope=docs.read docs.search', 'token authorization_code'], 'no registration; the scopes configured');
    const authorizeUrl = new URL(visited().split('\n')[0]!);
    assert.equal(authorizeUrl.searchParams.get('client_id'), 'crow-preregistered');
    h.llm.enqueue('anthropic', call('mcp__docs__lookup', { topic: 'mine' }), say('Done.'));
    assert.equal((await run('Look it up')).code, 0);
    assert.match(toModel(1), /the docs say mine is documented/);
  });

  it('ignores a callback with a forged state, and reports a denied consent clearly', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    const forged = await login('docs', { FAKE_BROWSER_MODE: 'forged-first' });
    assert.equal(forged.code, 0, forged.stderr);
    const denied = await login('docs', { FAKE_BROWSER_MODE: 'deny' });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /crow: could not sign in to MCP server "docs": the authorization server said "access_denied": "The person said no\."\n$/);
    const timedOut = await crow(['mcp', 'login', 'docs', '--timeout', '1'], { FAKE_BROWSER_MODE: 'ignore' });
    assert.equal(timedOut.code, 1);
    assert.match(timedOut.stderr, /nobody finished signing in within 1 s; run the sign-in again when you are ready/);
  });

  (HAVE_TMUX ? it : it.skip)('on a terminal: counts the wait, and Ctrl-C cancels it, storing no token and closing the loopback address', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"` });
    const terminal = Terminal.start([process.execPath, CROW, 'mcp', 'login', 'docs'], { cwd: h.workspace, env: h.env({ FAKE_BROWSER_MODE: 'ignore' }) });
    try {
      await terminal.waitFor(/Waiting for you to finish in the browser… 0:0[1-9] \(Ctrl-C cancels; gives up after 5 min\)/);
      const redirect = new URL(new URL(/http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.exec(terminal.screen())![0]).searchParams.get('redirect_uri')!);
      terminal.press('C-c');
      assert.equal(await terminal.waitForExit(), 130, terminal.screen());
      assert.match(terminal.screen(), /crow: sign-in cancelled; no token was stored\./);
      await assert.rejects(fetch(redirect), 'the loopback address no longer listens');
      assert.ok(!existsSync(authFolder()) || readdirSync(authFolder()).every((file) => !readFileSync(join(authFolder(), file), 'utf8').includes('access_token')));
    } finally {
      terminal.close();
    }
  });

  it('says what is wrong with a crow mcp command, and what to do', async () => {
    docs = await serve();
    configure({ docs: `url = "${docs.url}"`, files: 'command = "npx"' });
    const none = await crow(['mcp']);
    assert.equal(none.code, 2);
    assert.match(none.stdout, /login NAME\|URL +sign in to a remote MCP server/);
    assert.match((await crow(['mcp', 'sign'])).stderr, /Unknown command "crow mcp sign": crow mcp list \| login \| logout/);
    assert.match((await crow(['mcp', 'login'])).stderr, /crow mcp login takes one server: crow mcp login NAME/);
    const typo = await crow(['mcp', 'login', 'doc']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /There is no MCP server "doc" in config\.toml; did you mean "docs"\?/);
    assert.match((await crow(['mcp', 'login', 'files'])).stderr, /MCP server "files" runs as a command \(stdio\): it has no sign-in/);
    assert.match((await crow(['mcp', 'login', 'docs', '--timeout', 'soon'])).stderr, /--timeout must be a positive integer/);
    const help = await crow(['mcp', 'login', '--help']);
    assert.match(help.stdout, /CROW_BROWSER \(a command, the URL added last\)/);
    assert.deepEqual(docs.authorization.log, []);
  });

  it('signs in to a server given by URL (an ACP client\'s), kept under that URL', async () => {
    docs = await serve();
    const signedIn = await crow(['mcp', 'login', docs.url, '--timeout', '20']);
    assert.equal(signedIn.code, 0, signedIn.stderr);
    assert.match(signedIn.stdout, /^Signed in to MCP server "http:\/\/127\.0\.0\.1:\d+\/mcp": it offers 1 tool\./);
    assert.equal(readdirSync(authFolder()).length, 1);
  });

  describe('refuses a hostile authorization server before anything secret is sent', () => {
    const cases: [FakeAuthorizationServerOptions['hostile'] & string, RegExp][] = [
      ['http-token-endpoint', /gives its token_endpoint an address Crow will not use: http:\/\/tokens\.example\.test is plain http, not https/],
      ['http-authorization-endpoint', /gives its authorization_endpoint an address Crow will not use: http:\/\/login\.example\.test is plain http, not https/],
      ['huge-metadata', /the metadata at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server is larger than 256 KiB/],
      ['no-pkce', /does not say it supports PKCE with S256/],
      ['other-issuer', /published metadata for another issuer \("https:\/\/login\.example\.test", not http:\/\/127\.0\.0\.1:\d+; RFC 8414 §3\.3\)/],
    ];
    it('a server whose metadata claims another resource, or a plain-http authorization server', async () => {
      for (const [hostileMetadata, message] of [
        ['other-resource', /Protected resource http:\/\/127\.0\.0\.1:\d+\/elsewhere does not match expected http:\/\/127\.0\.0\.1:\d+\/mcp/],
        ['http-authorization-server', /names an authorization server Crow will not use: http:\/\/auth\.example\.test is plain http/],
      ] as const) {
        docs = await serve({ hostileMetadata });
        configure({ docs: `url = "${docs.url}"` });
        const signIn = await login();
        assert.equal(signIn.code, 1, signIn.stdout);
        assert.match(signIn.stderr, message);
        assert.equal(visited(), '', 'the browser was not opened');
        assert.deepEqual(docs.authorization.log, [], 'nothing registered');
      }
    });

    it('a token endpoint that quotes the code and verifier back: the error shows neither', async () => {
      docs = await serve({ hostile: 'echo-secrets' });
      configure({ docs: `url = "${docs.url}"` });
      const signIn = await login();
      assert.equal(signIn.code, 1, signIn.stdout);
      assert.match(signIn.stderr, /the authorization server did not give Crow a token: .*no: code \[redacted\] with verifier \[redacted\]/);
      assertNoSecretsOutside(docs);
    });

    for (const [hostile, message] of cases) {
      it(`${hostile}`, async () => {
        docs = await serve({ hostile });
        configure({ docs: `url = "${docs.url}"` });
        const signIn = await login();
        assert.equal(signIn.code, 1, signIn.stdout);
        assert.match(signIn.stderr, /crow: could not sign in to MCP server "docs": /);
        assert.match(signIn.stderr, message);
        assert.match(signIn.stderr, /check the server's url \(http:\/\/127\.0\.0\.1:\d+\/mcp\), or tell its operator/);
        assert.equal(visited(), '', 'the browser was not opened');
        assert.ok(!docs.authorization.log.some((line) => line.startsWith('token')), 'nothing reached a token endpoint');
        h.llm.enqueue('anthropic', say('Without the docs.'));
        const ran = await run('Hello');
        assert.match(ran.stderr, /MCP server "docs" (could not start: signing in to it was refused|needs you to sign in)/);
      });
    }
  });
});
