/**
 * `crow login` / `crow logout` through the built binary: typed by a person
 * in a real pseudo-terminal (tmux), piped by a script, read by `crow run`
 * and by `crow acp` through a real ACP client, against the fake LLM server
 * that accepts only the one key (any other is refused as the real API
 * refuses it). The OS keychain is turned off (CROW_KEYCHAIN=off) except in
 * the suite that brings its own Secret Service, so no test touches the
 * keychain of the person running it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthMethod } from '@agentclientprotocol/sdk';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow, startAcp, startCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { NO_SECRET_SERVICE, type SecretService, startSecretService } from '../support/secret-service';
import { describeUnless } from '../support/skip-reasons';
import { NO_TMUX, Terminal } from '../support/terminal';

const KEY = 'sk-ant-api03-Zq7xW2mN9pL4kR8vT1yB6cH3jF5dG0sA_crowlogin';
const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

/** The key the last model request carried (Crow's Anthropic client sends it as a bearer token; the fake accepts either, as the API does). */
function sentKey(server: FakeLlmServer): string | undefined {
  const headers = server.requests.at(-1)?.headers ?? {};
  const bearer = /^Bearer (\S+)$/.exec(String(headers.authorization ?? ''))?.[1];
  return (headers['x-api-key'] as string | undefined) ?? bearer;
}

/** Every file under `folder`, read as text, for checking that a key never landed in one. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

describe('crow login and crow logout', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let workspace: string;
  let home: string;

  before(async () => {
    server = await FakeLlmServer.start({ apiKeys: [KEY] });
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-login-ws-'));
    home = mkdtempSync(join(tmpdir(), 'crow-login-home-'));
  });
  afterEach(() => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  /** No key in the environment: only what crow login stores. */
  const env = (extra: Record<string, string> = {}) => isolatedEnv(home, { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, CROW_KEYCHAIN: 'off', LANG: 'C.UTF-8', ...extra });
  const crow = (args: string[], extra: Record<string, string> = {}) => runCrow(args, env(extra), workspace);
  const keyFile = () => join(home, 'data', 'crow-agent', 'keys', 'keys.json');
  /** crow login --key-stdin with `input` piped in. */
  async function loginPiped(input: string, args: string[] = ['--provider', 'anthropic']): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = startCrow(['login', ...args, '--key-stdin'], env(), workspace);
    child.child.stdin.end(input);
    const { code } = await child.exited;
    return { code, stdout: child.stdout(), stderr: child.stderr() };
  }

  describeUnless(NO_TMUX, 'typed by a person in a terminal', () => {
    let terminal: Terminal | undefined;
    afterEach(() => {
      terminal?.close();
      terminal = undefined;
    });
    const login = (): Terminal => {
      terminal = Terminal.start([process.execPath, CROW, 'login'], { cwd: workspace, env: env() });
      return terminal;
    };

    it('asks the provider, takes the key with nothing on screen, and crow run uses it; after crow logout, crow run says how to sign in', async () => {
      const tty = login();
      await tty.waitFor(/Provider \[1\]:/);
      assert.match(tty.screen(), /1\) anthropic \(anthropic, ANTHROPIC_API_KEY\) — the default\n\s+2\) openai \(openai, OPENAI_API_KEY\)/);
      tty.typeLine('1');
      await tty.waitFor(/API key for anthropic .*nothing is shown/);
      tty.typeLine(KEY);
      assert.equal(await tty.waitForExit(), 0, tty.screen());
      const screen = tty.screen();
      assert.match(screen, /Stored the API key for provider "anthropic" \(ANTHROPIC_API_KEY\) in .*keys\.json, a file only you can read \(no OS keychain to use: CROW_KEYCHAIN=off\)/);
      assert.ok(!screen.includes(KEY.slice(0, 12)) && !screen.includes(KEY.slice(-12)), `no part of the key on screen:\n${screen}`);
      assert.equal(statSync(keyFile()).mode & 0o777, 0o600);

      server.enqueue('anthropic', say('Hello from the fake.'));
      const run = await crow(['run', 'Say hello']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /Hello from the fake\./);
      assert.equal(sentKey(server), KEY, 'the stored key reached the model');
      assert.ok(!run.stderr.includes(KEY) && !run.stdout.includes(KEY));
      assert.ok(filesUnder(join(home, 'data', 'crow-agent', 'sessions')).every((text) => !text.includes(KEY)), 'no session file holds the key');

      const logout = await crow(['logout']);
      assert.equal(logout.code, 0, logout.stderr);
      assert.match(logout.stdout, /Forgot the API key of provider "anthropic" \(ANTHROPIC_API_KEY, from the key file\)/);
      const after = await crow(['run', 'Say hello']);
      assert.equal(after.code, 2);
      assert.match(after.stderr, /No API key for provider "anthropic".*run crow login --provider anthropic, or set the environment variable ANTHROPIC_API_KEY/);
    });

    it('Ctrl-C at the key question stores nothing and exits 130', async () => {
      const tty = login();
      await tty.waitFor(/Provider \[1\]:/);
      tty.typeLine('');
      await tty.waitFor(/API key for anthropic/);
      tty.press('s', 'k', 'C-c');
      assert.equal(await tty.waitForExit(), 130, tty.screen());
      assert.match(tty.screen(), /cancelled; nothing was stored/);
      assert.equal(existsSync(keyFile()), false);
    });

    it('refuses a key typed with an arrow key in it (an escape sequence), and an unknown provider is asked again', async () => {
      const tty = login();
      await tty.waitFor(/Provider \[1\]:/);
      tty.typeLine('mistral');
      await tty.waitFor(/"mistral" is none of them: type a number from 1 to 2/);
      tty.typeLine('anthropic');
      await tty.waitFor(/API key for anthropic/);
      tty.press('s', 'k', '-', 'Up', 'x', 'Enter');
      assert.equal(await tty.waitForExit(), 1, tty.screen());
      assert.match(tty.screen(), /nothing was stored: the key holds an escape character/);
      assert.equal(existsSync(keyFile()), false);
    });
  });

  describe('from a script', () => {
    it('without a terminal and without --key-stdin, exits 2 saying how to pipe the key', async () => {
      const result = await crow(['login', '--provider', 'anthropic']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /needs a terminal to ask for the key.*printf %s "\$KEY" \| crow login --provider NAME --key-stdin/);
    });

    it('--key-stdin stores the key (one trailing line end taken off); --status says where, and neither it nor crow config shows the key', async () => {
      const stored = await loginPiped(`${KEY}\n`);
      assert.equal(stored.code, 0, stored.stderr);
      const status = await crow(['login', '--status']);
      assert.equal(status.stdout, `ANTHROPIC_API_KEY (anthropic): in ${keyFile()}\n`);
      const shadowed = await crow(['login', '--status'], { ANTHROPIC_API_KEY: 'from-the-environment' });
      assert.match(shadowed.stdout, /ANTHROPIC_API_KEY is set in this environment, which wins/);
      const config = await crow(['config', 'validate']);
      const provider = await crow(['config', 'get', 'provider']);
      for (const output of [stored.stdout, stored.stderr, status.stdout, status.stderr, config.stdout, config.stderr, provider.stdout, provider.stderr]) assert.ok(!output.includes(KEY));
    });

    it('refuses a key with a line break, escape sequences or control characters, an empty one and an over-long one, storing nothing', async () => {
      const cases: [string, RegExp][] = [
        [`${KEY}\nsecond-line`, /line break \(it spans several lines\)/],
        [`sk-\u001b]0;title\u0007abc`, /escape character/],
        ['sk-\u0000abc', /control character/],
        ['   \n', /the key is empty/],
        [`sk-${'a'.repeat(5000)}`, /5003 characters long/],
      ];
      for (const [input, message] of cases) {
        const result = await loginPiped(input);
        assert.equal(result.code, 1, JSON.stringify(input.slice(0, 20)));
        assert.match(result.stderr, message);
        assert.equal(existsSync(keyFile()), false);
      }
    });

    it('--check stores a key only once the provider accepted it (one model-list request), and a refused key is not stored', async () => {
      const refused = await loginPiped('sk-ant-wrong-0123456789', ['--provider', 'anthropic', '--check']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /refused the key \(HTTP 401\)/);
      assert.equal(existsSync(keyFile()), false);
      assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), ['anthropic/wrong-key']);
      const accepted = await loginPiped(KEY, ['--provider', 'anthropic', '--check']);
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.match(accepted.stderr, /accepted the key/);
      assert.equal(server.requests.length, 0, 'only GET /v1/models was asked (not recorded as a model call)');
    });

    it('where the keychain module is not installed, the binary still signs in, keeping the key in the file and saying why', async () => {
      // The two files of the binary, away from any node_modules: what an install without the optional dependency has.
      const bin = mkdtempSync(join(tmpdir(), 'crow-login-bin-'));
      try {
        for (const file of ['crow.js', 'crow-cli.js']) writeFileSync(join(bin, file), readFileSync(join(CROW, '..', file)));
        const child = spawn(process.execPath, [join(bin, 'crow.js'), 'login', '--provider', 'anthropic', '--key-stdin'], { cwd: workspace, env: isolatedEnv(home) });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stdin.end(KEY);
        assert.equal(await new Promise((done) => child.on('close', done)), 0);
        assert.match(stdout, /a file only you can read \(no OS keychain to use: the keychain module \(@napi-rs\/keyring\) is not installed or does not load here: Cannot find module '@napi-rs\/keyring'/);
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    });

    it('an unknown provider gets a "did you mean" and exit 2', async () => {
      const result = await loginPiped(KEY, ['--provider', 'antropic']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /Unknown provider "antropic".*Did you mean "anthropic"\?/);
    });
  });

  describe('a key record Crow must not trust', () => {
    it('a world-readable record is refused by every command (its keys treated as seen), and logout --all removes it', async () => {
      assert.equal((await loginPiped(KEY)).code, 0);
      chmodSync(keyFile(), 0o644);
      const status = await crow(['login', '--status']);
      assert.equal(status.code, 2);
      assert.match(status.stderr, /can be used by other users \(mode 644\).*treat the keys in it as seen/);
      const run = await crow(['run', 'hi']);
      assert.match(run.stderr, /crow: warning: Crow does not use its API key record/);
      assert.match(run.stderr, /No API key for provider "anthropic"/);
      assert.equal((await loginPiped(KEY)).code, 2, 'crow login does not write over it either');
      assert.equal((await crow(['logout', '--all'])).code, 0);
      assert.equal(existsSync(keyFile()), false);
    });

    it('a link in its place is never followed: not read, not written through, and logout --all removes only the link', async () => {
      assert.equal((await loginPiped(KEY)).code, 0);
      const elsewhere = join(home, 'planted.json');
      writeFileSync(elsewhere, readFileSync(keyFile()), { mode: 0o600 });
      rmSync(keyFile());
      symlinkSync(elsewhere, keyFile());
      const run = await crow(['run', 'hi']);
      assert.match(run.stderr, /is a link/);
      assert.equal(server.requests.length, 0);
      assert.equal((await crow(['logout', '--all'])).code, 0);
      assert.ok(existsSync(elsewhere) && !existsSync(keyFile()));
    });

    it('a damaged record is reported by crow run, and crow login keeps it aside while starting a new one', async () => {
      assert.equal((await loginPiped(KEY)).code, 0);
      writeFileSync(keyFile(), '{"version":1,"keys":{', { mode: 0o600 });
      const run = await crow(['run', 'hi']);
      assert.match(run.stderr, /crow: warning: .*keys\.json is damaged/);
      const again = await loginPiped(KEY);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /the key record was damaged; it is kept as .*keys\.json\.damaged-\d+/);
    });
  });

  describe('crow acp, through a real ACP client', () => {
    it('advertises crow login as a terminal auth method; a prompt needs a key, crow login stores one while the agent runs, authenticate then succeeds and the prompt reaches the model with it', async () => {
      const agent = startAcp(workspace, home, { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, CROW_KEYCHAIN: 'off' }, {
        capabilities: { auth: { terminal: true }, _meta: { 'terminal-auth': true } },
      });
      try {
        const init = await agent.client.initialize();
        const login = init.authMethods?.[0] as AuthMethod & { type: 'terminal'; args: string[]; _meta: { 'terminal-auth': { command: string; args: string[]; label: string } } };
        assert.equal(login.id, 'crow-login');
        assert.equal(login.type, 'terminal');
        assert.deepEqual(login.args, ['login']);
        assert.equal(login._meta['terminal-auth'].command, process.execPath);
        assert.deepEqual(login._meta['terminal-auth'].args.slice(-2), [CROW, 'login']);
        assert.deepEqual(init.authMethods?.map((method) => method.id), ['crow-login', 'env:ANTHROPIC_API_KEY']);

        const { sessionId } = await agent.client.newSession(workspace);
        await assert.rejects(agent.client.prompt(sessionId, 'Hi'), (err: { code?: number; message?: string }) => err.code === -32000 && /ANTHROPIC_API_KEY/.test(err.message ?? ''));
        await assert.rejects(agent.client.agent.request('authenticate', { methodId: 'crow-login' }), (err: { code?: number; message?: string }) =>
          err.code === -32000 && /No API key yet for ANTHROPIC_API_KEY: run "crow login"/.test(err.message ?? ''));

        // What a client does with the method: run the command it names, with its args appended to the agent's (crow acp login).
        const { command, args } = login._meta['terminal-auth'];
        const terminal = spawn(command, [...args, '--provider', 'anthropic', '--key-stdin'], { cwd: workspace, env: env() });
        terminal.stdin.end(KEY);
        assert.equal(await new Promise((done) => terminal.on('close', done)), 0);
        const appended = await runCrow(['acp', 'login', '--status'], env(), workspace);
        assert.match(appended.stdout, /ANTHROPIC_API_KEY \(anthropic\)/, 'crow acp login is crow login');

        assert.deepEqual(await agent.client.agent.request('authenticate', { methodId: 'crow-login' }), {});
        server.enqueue('anthropic', say('Signed in.'), say('Still signed in.'));
        assert.equal((await agent.client.prompt(sessionId, 'Hi')).stopReason, 'end_turn', 'the session opened before the sign-in uses the key');
        assert.equal(sentKey(server), KEY);
        const fresh = await agent.client.newSession(workspace);
        assert.equal((await agent.client.prompt(fresh.sessionId, 'Hi again')).stopReason, 'end_turn');
        assert.equal(sentKey(server), KEY);
      } finally {
        await agent.stop();
      }
      assert.ok(!agent.stderr().includes(KEY), 'the key is not in stderr');
      for (const folder of ['state', join('data', 'crow-agent', 'sessions')]) {
        assert.ok(filesUnder(join(home, folder)).every((text) => !text.includes(KEY)), `the key is in no file under ${folder}`);
      }
    });

    it('offers the terminal method in the form each client asked for: the schema\'s auth.terminal, or the _meta["terminal-auth"] the registry\'s verifier and Zed send', async () => {
      const methods = async (capabilities: Record<string, unknown>) => {
        const agent = startAcp(workspace, home, { ANTHROPIC_API_KEY: KEY, CROW_KEYCHAIN: 'off' }, { capabilities });
        try {
          return (await agent.client.initialize()).authMethods as (AuthMethod & { type?: string; args?: string[]; _meta?: Record<string, unknown> })[];
        } finally {
          await agent.stop();
        }
      };
      const [schema] = await methods({ auth: { terminal: true } });
      assert.deepEqual([schema?.id, schema?.type, schema?.args, schema?._meta], ['crow-login', 'terminal', ['login'], undefined]);
      const registry = await methods({ terminal: true, fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true, 'terminal-auth': true } });
      assert.equal(registry.length, 1, 'a key is in the environment: only crow login is offered');
      assert.equal(registry[0]?.type, 'terminal', 'what the registry\'s parse_auth_methods reads first');
      assert.deepEqual(Object.keys(registry[0]?._meta ?? {}), ['terminal-auth']);
    });

    it('to a client without terminal auth, crow login is a method to call once the person has run it', async () => {
      assert.equal((await loginPiped(KEY)).code, 0);
      const agent = startAcp(workspace, home, { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, CROW_KEYCHAIN: 'off' });
      try {
        const init = await agent.client.initialize();
        assert.deepEqual(init.authMethods?.map((method) => [method.id, (method as { type?: string }).type]), [['crow-login', undefined]], 'a key is stored: no variable is missing');
        assert.match(init.authMethods?.[0]?.description ?? '', /Run "crow login" in a terminal/);
        assert.deepEqual(await agent.client.agent.request('authenticate', { methodId: 'crow-login' }), {});
      } finally {
        await agent.stop();
      }
    });
  });

  describeUnless(NO_SECRET_SERVICE, 'with a real Secret Service (GNOME Keyring on a private D-Bus)', () => {
    let service: SecretService;
    beforeEach(async () => {
      service = await startSecretService(home);
    });
    afterEach(() => service.stop());
    const keyring = (extra: Record<string, string> = {}) => env({ CROW_KEYCHAIN: 'on', ...service.env, ...extra });

    it('keeps the key in the keyring (the record names it, never holds it), crow run reads it there, and logout removes it', async () => {
      const child = startCrow(['login', '--provider', 'anthropic', '--key-stdin'], keyring(), workspace);
      child.child.stdin.end(KEY);
      assert.equal((await child.exited).code, 0, child.stderr());
      assert.match(child.stdout(), /in the Secret Service keyring/);
      assert.ok(!readFileSync(keyFile(), 'utf8').includes(KEY));
      server.enqueue('anthropic', say('From the keyring.'));
      const run = await runCrow(['run', 'Hi'], keyring(), workspace);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(sentKey(server), KEY);
      const logout = await runCrow(['logout'], keyring(), workspace);
      assert.match(logout.stdout, /from the OS keychain/);
      const gone = await runCrow(['run', 'Hi'], keyring(), workspace);
      assert.equal(gone.code, 2);
    });

    it('a key removed from the keyring behind Crow\'s back is reported with what to do', async () => {
      const child = startCrow(['login', '--provider', 'anthropic', '--key-stdin'], keyring(), workspace);
      child.child.stdin.end(KEY);
      assert.equal((await child.exited).code, 0, child.stderr());
      service.stop();
      service = await startSecretService(mkdtempSync(join(home, 'other-')));
      const run = await runCrow(['run', 'Hi'], keyring(), workspace);
      assert.match(run.stderr, /crow: warning: The key for ANTHROPIC_API_KEY is no longer in the Secret Service keyring .* Run crow login again/);
    });
  });
});
