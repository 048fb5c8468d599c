/**
 * The sign-in tests' authorization server and MCP server refuse what real
 * ones refuse (each rule's source is cited where it is enforced, in
 * test/support/fake-authorization-server.ts and oauth-mcp-server.ts).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { OAuthMcpServer } from '../support/oauth-mcp-server';

const REDIRECT = 'http://127.0.0.1:5999/callback';

describe('the fake authorization server and OAuth MCP server are strict', function () {
  this.timeout(20_000);
  let server: OAuthMcpServer;
  let clientId: string;
  beforeEach(async () => {
    server = await OAuthMcpServer.start({ codeTtlMs: 300 });
    const registered = await post('/register', JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }), 'application/json');
    assert.equal(registered.status, 201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  afterEach(() => server.close());

  const as = (path: string) => `${server.authorization.issuer}${path}`;
  const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') => fetch(as(path), { method: 'POST', body, headers: { 'Content-Type': type } });
  const token = (params: Record<string, string>) => post('/token', new URLSearchParams({ client_id: clientId, ...params }).toString());

  /** Authorizes with `overrides` on a valid request; where the consent sends the browser (or the error page's status). */
  async function authorize(overrides: Record<string, string | null> = {}, verifier = randomBytes(32).toString('base64url')): Promise<{ location: URL | undefined; status: number; verifier: string }> {
    const params = new URLSearchParams();
    const wanted: Record<string, string | null> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 's',
      resource: server.url,
      ...overrides,
    };
    for (const [key, value] of Object.entries(wanted)) if (value !== null) params.set(key, value);
    const page = await fetch(as(`/authorize?${params}`), { redirect: 'manual' });
    if (page.status !== 200) return { location: page.headers.get('location') ? new URL(page.headers.get('location')!) : undefined, status: page.status, verifier };
    const link = /id="approve" href="([^"]+)"/.exec(await page.text())![1]!;
    const consent = await fetch(as(link), { redirect: 'manual' });
    return { location: new URL(consent.headers.get('location')!), status: consent.status, verifier };
  }

  async function tokens(): Promise<{ access_token: string; refresh_token: string }> {
    const { location, verifier } = await authorize();
    const answer = await token({ grant_type: 'authorization_code', code: location!.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT, resource: server.url });
    assert.equal(answer.status, 200);
    return (await answer.json()) as { access_token: string; refresh_token: string };
  }

  const callMcp = (bearer: string | undefined, query = '') =>
    fetch(`${server.url}${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });

  it('registers only public clients with loopback or https redirect URIs', async () => {
    assert.equal((await post('/register', JSON.stringify({ redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' }), 'application/json')).status, 400);
    assert.equal((await post('/register', JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }), 'application/json')).status, 400);
    assert.equal((await post('/register', JSON.stringify({ token_endpoint_auth_method: 'none' }), 'application/json')).status, 400);
  });

  it('demands PKCE S256, the MCP server as resource, and a redirect URI registered exactly', async () => {
    const noPkce = await authorize({ code_challenge: null, code_challenge_method: null });
    assert.equal(noPkce.location?.searchParams.get('error'), 'invalid_request');
    assert.equal((await authorize({ code_challenge_method: 'plain' })).location?.searchParams.get('error'), 'invalid_request');
    assert.equal((await authorize({ resource: null })).location?.searchParams.get('error'), 'invalid_target');
    assert.equal((await authorize({ resource: 'https://other.example/mcp' })).location?.searchParams.get('error'), 'invalid_target');
    const otherPort = await authorize({ redirect_uri: 'http://127.0.0.1:6000/callback' });
    assert.deepEqual([otherPort.status, otherPort.location], [400, undefined], 'no redirect to an unregistered URI');
  });

  it('redeems a code once, briefly, with its verifier, redirect URI and resource; a replay revokes what it gave', async () => {
    const { location, verifier } = await authorize();
    const code = location!.searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, resource: server.url };
    const wrongVerifier = await token({ ...base, code_verifier: randomBytes(32).toString('base64url') });
    assert.equal(wrongVerifier.status, 400);
    assert.match(await wrongVerifier.text(), /code_verifier does not match/);
    assert.equal((await token(base)).status, 400, 'a code that failed once is spent');

    const second = await authorize();
    const secondBase = { ...base, code: second.location!.searchParams.get('code')!, code_verifier: second.verifier };
    assert.match(await (await token({ ...secondBase, redirect_uri: 'http://127.0.0.1:1/callback' })).text(), /redirect_uri differs/);
    const third = await authorize();
    const thirdBase = { ...base, code: third.location!.searchParams.get('code')!, code_verifier: third.verifier };
    const good = (await (await token(thirdBase)).json()) as { access_token: string };
    assert.equal((await callMcp(good.access_token)).status, 200);
    assert.match(await (await token(thirdBase)).text(), /used already/);
    assert.equal((await callMcp(good.access_token)).status, 401, 'the replay revoked the tokens the code gave');

    const late = await authorize();
    await new Promise((done) => setTimeout(done, 400));
    assert.match(await (await token({ ...base, code: late.location!.searchParams.get('code')!, code_verifier: late.verifier })).text(), /the code expired/);
  });

  it('rotates refresh tokens, and a rotated one presented again revokes the family', async () => {
    const first = await tokens();
    const refreshed = (await (await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, resource: server.url })).json()) as { access_token: string; refresh_token: string };
    assert.notEqual(refreshed.refresh_token, first.refresh_token);
    assert.equal((await callMcp(refreshed.access_token)).status, 200);
    assert.equal((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).status, 400);
    assert.equal((await callMcp(refreshed.access_token)).status, 401);
    assert.equal((await token({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token })).status, 400);
  });

  it('the MCP server answers 401 with resource_metadata, and refuses expired, foreign-audience and query-string tokens', async () => {
    const none = await callMcp(undefined);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), `Bearer resource_metadata="${server.metadataUrl}"`);
    const metadata = (await (await fetch(server.metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    assert.deepEqual([metadata.resource, metadata.authorization_servers], [server.url, [server.authorization.issuer]]);
    const { access_token } = await tokens();
    assert.equal((await callMcp(access_token)).status, 200);
    assert.equal((await callMcp(server.authorization.mint('https://other.example/mcp'))).status, 401);
    assert.equal((await callMcp(access_token, `?access_token=${access_token}`)).status, 401);
    server.authorization.expireAccessTokens();
    const expired = await callMcp(access_token);
    assert.equal(expired.status, 401);
    assert.match(expired.headers.get('www-authenticate')!, /error="invalid_token"/);
  });
});
