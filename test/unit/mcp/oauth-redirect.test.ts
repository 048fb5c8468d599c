import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { listenForRedirect, SignInDeclined } from '../../../src/mcp/oauth-redirect';

const get = (url: string) => fetch(url, { redirect: 'manual' });

describe('the loopback redirect of a sign-in (RFC 8252 §7.3)', () => {
  it('listens on 127.0.0.1, ignores other paths and forged states, takes the one right callback, then stops listening', async () => {
    const listener = await listenForRedirect({ state: 'the-state', signal: new AbortController().signal });
    assert.match(listener.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const base = new URL(listener.redirectUrl);
    assert.equal((await get(new URL('/favicon.ico', base).href)).status, 404);
    assert.equal((await fetch(listener.redirectUrl, { method: 'POST' })).status, 404);
    const forged = await get(`${listener.redirectUrl}?code=evil&state=other`);
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /not the sign-in Crow is waiting for/);
    const right = await get(`${listener.redirectUrl}?code=the-code&state=the-state`);
    assert.equal(right.status, 200);
    assert.equal(right.headers.get('cache-control'), 'no-store');
    assert.equal(await listener.code, 'the-code');
    await assert.rejects(get(`${listener.redirectUrl}?code=again&state=the-state`), 'no longer listening');
  });

  it('starts the sign-in from an unguessable loopback address that sends the browser on to the page exactly as written', async () => {
    const listener = await listenForRedirect({ state: 'the-state', signal: new AbortController().signal });
    const page = new URL('https://auth.example.com/authorize?resource=http%3A%2F%2F127.0.0.1%3A9%2Fmcp&state=the-state');
    const launcher = listener.launch(page);
    assert.match(launcher, /^http:\/\/127\.0\.0\.1:\d+\/start\/[0-9a-f]{32}$/);
    const sent = await get(launcher);
    assert.equal(sent.status, 302);
    assert.equal(sent.headers.get('location'), page.href, 'the address as written, its percent-encoding kept');
    assert.equal((await get(launcher.replace(/[0-9a-f]{32}$/, '0'.repeat(32)))).status, 404, 'another start address leads nowhere');
    await get(`${listener.redirectUrl}?code=the-code&state=the-state`);
    await listener.code;
    await assert.rejects(get(launcher), 'no longer listening once the sign-in is over');
  });

  it('rejects with what the authorization server said, in one clean line', async () => {
    const listener = await listenForRedirect({ state: 's', signal: new AbortController().signal });
    const description = encodeURIComponent('no\u001b[31m way\n'.repeat(100));
    await get(`${listener.redirectUrl}?error=access_denied&error_description=${description}&state=s`);
    await assert.rejects(listener.code, (err: Error) => err instanceof SignInDeclined && /^the authorization server said "access_denied": "no \[31m way/.test(err.message) && !/[\u001b\n]/.test(err.message) && err.message.length < 260);
  });

  it('takes the port a registration names, or a free one when it is taken; stops when aborted', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = (taken.address() as { port: number }).port;
    const controller = new AbortController();
    const listener = await listenForRedirect({ state: 's', port, signal: controller.signal });
    assert.notEqual(new URL(listener.redirectUrl).port, String(port));
    taken.close();
    controller.abort();
    await assert.rejects(listener.code, /Cancelled while waiting for the sign-in/);
    const free = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => done(p));
      });
    });
    const named = await listenForRedirect({ state: 's', port: free, signal: new AbortController().signal });
    assert.equal(named.redirectUrl, `http://127.0.0.1:${free}/callback`);
    named.close();
  });
});
