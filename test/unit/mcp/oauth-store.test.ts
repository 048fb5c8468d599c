import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTokenStore } from '../../../src/mcp/oauth-file-store';
import { McpOAuthProvider, McpSignInNeeded } from '../../../src/mcp/oauth-provider';
import { authKey, type McpAuthRecord, type McpTokenStore } from '../../../src/mcp/oauth-store';

const URL_A = 'https://docs.example.com/mcp';
const tokens = (n: number) => ({ access_token: `at-${n}`, token_type: 'Bearer', refresh_token: `rt-${n}`, expires_in: 3600 });

/** A store in memory, as VS Code's SecretStorage store behaves. */
class MemoryStore implements McpTokenStore {
  readonly records = new Map<string, McpAuthRecord>();
  async load(url: string) {
    return this.records.get(authKey(url));
  }
  async save(record: McpAuthRecord) {
    this.records.set(authKey(record.serverUrl), structuredClone(record));
  }
  async remove(url: string) {
    return this.records.delete(authKey(url));
  }
}

describe('MCP sign-ins kept (oauth-store, oauth-file-store)', () => {
  let data: string;
  beforeEach(() => (data = mkdtempSync(join(tmpdir(), 'crow-auth-store-'))));
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  it('keeps one 0600 file per server URL in a 0700 folder, named by a digest, and a renamed server keeps its sign-in', async () => {
    const store = new FileTokenStore(data);
    await store.save({ serverUrl: URL_A, tokens: tokens(1) });
    await store.save({ serverUrl: 'https://docs.example.com/other', tokens: tokens(2) });
    const files = readdirSync(store.folder);
    assert.equal(files.length, 2);
    assert.ok(files.every((file) => /^[0-9a-f]{32}\.json$/.test(file)));
    assert.equal(statSync(store.folder).mode & 0o777, 0o700);
    assert.ok(files.every((file) => (statSync(join(store.folder, file)).mode & 0o777) === 0o600));
    assert.equal((await store.load('HTTPS://Docs.Example.com:443/mcp#frag'))?.tokens?.access_token, 'at-1', 'the same server, spelt differently');
    assert.equal((await store.load('https://docs.example.com/mcp?tenant=b'))?.tokens, undefined, 'another resource on the same host');
    assert.equal(await store.remove(URL_A), true);
    assert.equal(await store.remove(URL_A), false);
    assert.equal(await store.load(URL_A), undefined);
  });

  it('never hands one server\'s record to another, and ignores a damaged or foreign file', async () => {
    const store = new FileTokenStore(data);
    await store.save({ serverUrl: URL_A, tokens: tokens(1) });
    const [file] = readdirSync(store.folder);
    // A record copied under another server's name (or planted) names its own server: not used.
    const other = new FileTokenStore(data);
    writeFileSync(join(store.folder, 'x.json'), '');
    const planted = JSON.stringify({ serverUrl: 'https://evil.example.com/mcp', tokens: tokens(9) });
    writeFileSync(join(store.folder, file!), planted, { mode: 0o600 });
    assert.equal(await other.load(URL_A), undefined);
    writeFileSync(join(store.folder, file!), '{not json', { mode: 0o600 });
    assert.equal(await store.load(URL_A), undefined);
    writeFileSync(join(store.folder, file!), JSON.stringify({ serverUrl: authKey(URL_A), tokens: { access_token: 42 } }), { mode: 0o600 });
    assert.equal(await store.load(URL_A), undefined, 'wrong types');
  });

  it('refuses a file others can read, a link, and a folder others can write', async () => {
    const store = new FileTokenStore(data);
    await store.save({ serverUrl: URL_A, tokens: tokens(1) });
    const [file] = readdirSync(store.folder);
    chmodSync(join(store.folder, file!), 0o644);
    await assert.rejects(store.load(URL_A), /can be used by other users \(mode 644\)\. Remove it, then sign in again\./);
    rmSync(join(store.folder, file!));
    writeFileSync(join(data, 'elsewhere.json'), JSON.stringify({ serverUrl: authKey(URL_A), tokens: tokens(1) }), { mode: 0o600 });
    symlinkSync(join(data, 'elsewhere.json'), join(store.folder, file!));
    await assert.rejects(store.load(URL_A), /is a link/);
    const shared = join(data, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    await assert.rejects(new FileTokenStore(shared).save({ serverUrl: URL_A }), /does not keep MCP sign-ins in a folder others can use/);
  });

  it('in a session: registers nothing and opens nothing (sign-in needed), and drops only the tokens that failed to refresh', async () => {
    const store = new MemoryStore();
    const session = new McpOAuthProvider({ serverUrl: URL_A, store });
    await assert.rejects(session.clientInformation(), McpSignInNeeded);
    await assert.rejects(session.redirectToAuthorization(new URL('https://auth.example.com/authorize')), McpSignInNeeded);
    await store.save({ serverUrl: URL_A, client: { client_id: 'c1' }, tokens: tokens(1) });
    assert.equal((await session.tokens())?.access_token, 'at-1');
    // Another process refreshed meanwhile (rotation): the failure of the old refresh token keeps the new tokens.
    await store.save({ serverUrl: URL_A, client: { client_id: 'c1' }, tokens: tokens(2) });
    await session.invalidateCredentials('tokens');
    assert.equal((await store.load(URL_A))?.tokens?.access_token, 'at-2');
    assert.equal((await session.tokens())?.access_token, 'at-2');
    await session.invalidateCredentials('tokens');
    assert.equal((await store.load(URL_A))?.tokens, undefined);
    assert.equal((await store.load(URL_A))?.client?.client_id, 'c1', 'the registration stays');
  });

  it('signing in: stored tokens are not used, a registration only for its exact redirect URI, a configured client id always, and the verifier is never stored', async () => {
    const store = new MemoryStore();
    await store.save({ serverUrl: URL_A, client: { client_id: 'c1', redirect_uris: ['http://127.0.0.1:5000/callback'] }, tokens: tokens(1) });
    const opened: URL[] = [];
    const hooks = (port: number) => ({ redirectUrl: `http://127.0.0.1:${port}/callback`, state: 'st', open: async (url: URL) => void opened.push(url) });
    const same = new McpOAuthProvider({ serverUrl: URL_A, store, signIn: hooks(5000) });
    assert.equal(await same.tokens(), undefined);
    assert.equal((await same.clientInformation())?.client_id, 'c1');
    assert.equal(await new McpOAuthProvider({ serverUrl: URL_A, store, signIn: hooks(5001) }).clientInformation(), undefined);
    const configured = new McpOAuthProvider({ serverUrl: URL_A, store, settings: { clientId: 'mine', scopes: ['a', 'b'] }, signIn: hooks(5001) });
    assert.equal((await configured.clientInformation())?.client_id, 'mine');
    assert.equal(configured.clientMetadata.scope, 'a b');
    assert.equal(configured.clientMetadata.token_endpoint_auth_method, 'none');
    same.saveCodeVerifier('the-verifier');
    await same.redirectToAuthorization(new URL('https://auth.example.com/authorize?x=1'));
    assert.equal(opened.length, 1);
    await assert.rejects(same.redirectToAuthorization(new URL('http://auth.example.com/authorize')), /did not open the authorization page: http:\/\/auth\.example\.com is plain http/);
    await same.saveTokens(tokens(3));
    assert.equal((await same.tokens())?.access_token, 'at-3');
    assert.ok(!JSON.stringify([...store.records.values()]).includes('the-verifier'));
    const expiresAt = (await store.load(URL_A))!.expiresAt!;
    assert.ok(Math.abs(expiresAt - (Date.now() + 3_600_000)) < 5_000);
  });
});
