import assert from 'node:assert/strict';
import { authUrlProblem, guardAuthFetch, MAX_AUTH_BODY_BYTES, McpAuthRefused } from '../../../src/mcp/oauth-guard';

const REMOTE = 'https://mcp.example.com/mcp';
const LOCAL = 'http://127.0.0.1:8000/mcp';

/** A fetch that answers from a table, recording what it was asked. */
function fake(answers: Record<string, () => Response>): { fetch: (url: string | URL | Request, init?: RequestInit) => Promise<Response>; asked: { url: string; headers: Headers }[] } {
  const asked: { url: string; headers: Headers }[] = [];
  return {
    asked,
    fetch: async (url, init) => {
      const href = String(url);
      asked.push({ url: href, headers: new Headers(init?.headers) });
      const answer = answers[href];
      return answer ? answer() : new Response('{}', { status: 404 });
    },
  };
}

const json = (value: unknown) => () => new Response(JSON.stringify(value), { status: 200, headers: { 'Content-Type': 'application/json' } });
const metadata = (issuer: string, extra: Record<string, unknown> = {}) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  response_types_supported: ['code'],
  code_challenge_methods_supported: ['S256'],
  ...extra,
});

describe('what Crow accepts while signing in (oauth-guard)', () => {
  it('takes https everywhere, and http only on loopback for a server on loopback', () => {
    assert.equal(authUrlProblem('https://auth.example.com/token', REMOTE), undefined);
    assert.equal(authUrlProblem('http://127.0.0.1:9000/token', LOCAL), undefined);
    assert.equal(authUrlProblem('http://localhost:9000/token', LOCAL), undefined);
    assert.match(authUrlProblem('http://auth.example.com/token', REMOTE)!, /http:\/\/auth\.example\.com is plain http, not https/);
    assert.match(authUrlProblem('http://127.0.0.1:9000/token', REMOTE)!, /is on this machine, but the MCP server is not/);
    assert.match(authUrlProblem('javascript:alert(1)', REMOTE)!, /not an https address/);
    assert.match(authUrlProblem('file:///etc/passwd', LOCAL)!, /not an https address/);
    assert.match(authUrlProblem('not a url', REMOTE)!, /is not a URL/);
    assert.match(authUrlProblem('http://127.0.0.1.evil.example/token', LOCAL)!, /plain http/, 'a name that only starts like loopback');
  });

  it('passes the MCP server\'s own messages through, and keeps its configured headers from other origins', async () => {
    const mcp = fake({ [REMOTE]: () => new Response('ok') });
    const raw = fake({ 'https://auth.example.com/.well-known/oauth-authorization-server': json(metadata('https://auth.example.com')) });
    const guard = guardAuthFetch(REMOTE, { mcp: mcp.fetch, raw: raw.fetch }, ['Authorization', 'X-Team']);
    assert.equal(await (await guard.fetch(REMOTE, { headers: { Authorization: 'Bearer static' } })).text(), 'ok');
    await guard.fetch('https://auth.example.com/.well-known/oauth-authorization-server', { headers: { Authorization: 'Bearer static', 'X-Team': 't', Accept: 'application/json' } });
    const sent = raw.asked[0]!.headers;
    assert.equal(sent.get('authorization'), null);
    assert.equal(sent.get('x-team'), null);
    assert.equal(sent.get('accept'), 'application/json');
    assert.equal(guard.refusal(), undefined);
  });

  it('refuses metadata of another issuer, with plain-http endpoints, or without PKCE S256, and says so first', async () => {
    const url = 'https://auth.example.com/.well-known/oauth-authorization-server/tenant';
    const cases: [Record<string, unknown>, RegExp][] = [
      [metadata('https://auth.example.com/other'), /metadata for another issuer .*RFC 8414 §3\.3/],
      [metadata('https://auth.example.com/tenant', { token_endpoint: 'http://tokens.example.com/token' }), /gives its token_endpoint an address Crow will not use: http:\/\/tokens\.example\.com is plain http/],
      [metadata('https://auth.example.com/tenant', { registration_endpoint: 'http://127.0.0.1:1/register' }), /registration_endpoint .*on this machine, but the MCP server is not/],
      [metadata('https://auth.example.com/tenant', { code_challenge_methods_supported: ['plain'] }), /does not say it supports PKCE with S256/],
      [metadata('https://auth.example.com/tenant', { code_challenge_methods_supported: undefined }), /does not say it supports PKCE with S256/],
    ];
    for (const [document, message] of cases) {
      const guard = guardAuthFetch(REMOTE, { mcp: fake({}).fetch, raw: fake({ [url]: json(document) }).fetch }, []);
      await assert.rejects(guard.fetch(url), (err: Error) => err instanceof McpAuthRefused && message.test(err.message));
      assert.match(guard.refusal()!, message);
    }
    const good = guardAuthFetch(REMOTE, { mcp: fake({}).fetch, raw: fake({ [url]: json(metadata('https://auth.example.com/tenant')) }).fetch }, []);
    assert.equal((await (await good.fetch(url)).json()).issuer, 'https://auth.example.com/tenant', 'the issuer with its path, as RFC 8414 §3.1 inserts the well-known part');
  });

  it('refuses protected-resource metadata naming a plain-http authorization server', async () => {
    const url = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
    const guard = guardAuthFetch(REMOTE, { mcp: fake({}).fetch, raw: fake({ [url]: json({ resource: REMOTE, authorization_servers: ['http://auth.example.com'] }) }).fetch }, []);
    await assert.rejects(guard.fetch(url), /names an authorization server Crow will not use/);
  });

  it('refuses a request to a plain-http address before sending it, and a document past the cap while reading it', async () => {
    const raw = fake({});
    const guard = guardAuthFetch(REMOTE, { mcp: fake({}).fetch, raw: raw.fetch }, []);
    await assert.rejects(guard.fetch('http://auth.example.com/token', { method: 'POST', body: 'code=secret' }), /Crow did not follow the server to http:\/\/auth\.example\.com/);
    assert.deepEqual(raw.asked, [], 'nothing was sent');
    const url = 'https://auth.example.com/.well-known/openid-configuration';
    const huge = guardAuthFetch(REMOTE, { mcp: fake({}).fetch, raw: fake({ [url]: () => new Response('x'.repeat(MAX_AUTH_BODY_BYTES + 1), { status: 200 }) }).fetch }, []);
    await assert.rejects(huge.fetch(url), /larger than 256 KiB/);
    const token = 'https://auth.example.com/token';
    const big = guardAuthFetch(REMOTE, { mcp: fake({}).fetch, raw: fake({ [token]: () => new Response('y'.repeat(MAX_AUTH_BODY_BYTES + 1), { status: 200 }) }).fetch }, []);
    await assert.rejects((await big.fetch(token)).text(), /more than 256 KiB|more than 262144 bytes/);
  });
});
