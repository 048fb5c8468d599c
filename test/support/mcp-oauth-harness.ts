/**
 * What the tests of signing in to remote MCP servers share: a home per test
 * (config, data, state), the fake model, OAuth-protected MCP servers with
 * their authorization servers (oauth-mcp-server.ts), the person's
 * config.toml naming them, `crow …` through the built binary with the
 * scripted browser (CROW_BROWSER), and a look for secrets in what Crow
 * printed and stored.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from './crow-binary';
import { isolatedEnv } from './isolated-env';
import { OAuthMcpServer } from './oauth-mcp-server';

const BROWSER = resolve(__dirname, 'fake-browser.cjs');

export const call = (name: string, args: unknown) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
export const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

/** Registers the mocha hooks and returns the per-test state; call inside a describe. */
export function oauthHarness() {
  const servers: OAuthMcpServer[] = [];
  const state = {
    llm: undefined as unknown as FakeLlmServer,
    home: '',
    workspace: '',
    browserLog: '',
    /** Everything the binary printed in this test. */
    outputs: [] as string[],
    /** Environment of a crow process: isolated under `home`, the fake model, the scripted browser. */
    env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
      return isolatedEnv(state.home, {
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: state.llm.anthropicBaseUrl,
        CROW_BROWSER: `${process.execPath} ${BROWSER}`,
        FAKE_BROWSER_LOG: state.browserLog,
        ...extra,
      });
    },
    async serve(options: Parameters<typeof OAuthMcpServer.start>[0] = {}): Promise<OAuthMcpServer> {
      const server = await OAuthMcpServer.start(options);
      servers.push(server);
      return server;
    },
    /** The person's own config.toml: the servers by name, with their tools allowed to run. */
    configure(tables: Record<string, string>): void {
      const dir = join(state.home, 'config/crow-agent');
      mkdirSync(dir, { recursive: true });
      const text = Object.entries(tables).map(([name, body]) => `[mcp_servers.${name}]\n${body}\npermission = "read"\n`);
      writeFileSync(join(dir, 'config.toml'), text.join('\n'));
    },
    async crow(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const result = await runCrow(args, state.env(extra), state.workspace);
      state.outputs.push(result.stdout, result.stderr);
      return result;
    },
    login(name = 'docs', extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return state.crow(['mcp', 'login', name, '--timeout', '20'], extra);
    },
    authFolder(): string {
      return join(state.home, 'data/crow-agent/mcp-auth');
    },
    /** The names and statuses of every span the sessions stored (a span's start and end are two records). */
    spans(): { name: string; status?: string }[] {
      const found: { name: string; status?: string }[] = [];
      const walk = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.isDirectory()) walk(join(dir, entry.name));
          else if (entry.name === 'trace.jsonl') found.push(...readFileSync(join(dir, entry.name), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { name: string; status?: string }));
        }
      };
      if (existsSync(join(state.home, 'data'))) walk(join(state.home, 'data'));
      return found;
    },
    /** The addresses the scripted browser visited. */
    visited(): string {
      return existsSync(state.browserLog) ? readFileSync(state.browserLog, 'utf8') : '';
    },
    /** No code, token or verifier the authorization server saw is in what Crow printed or kept outside mcp-auth/. */
    assertNoSecretsOutside(server: OAuthMcpServer, printed?: readonly string[]): void {
      const everywhere = `${(printed ?? state.outputs).join('\n')}\n${storedText(state.home, state.authFolder())}`;
      assert.ok(server.authorization.secrets.length > 0, 'the authorization server saw secrets');
      for (const secret of server.authorization.secrets) {
        assert.ok(!everywhere.includes(secret), `a code, token or verifier (${secret.slice(0, 6)}…) was printed or stored outside mcp-auth/`);
      }
    },
  };
  before(async () => (state.llm = await FakeLlmServer.start()));
  after(() => state.llm.close());
  beforeEach(() => {
    state.llm.reset();
    state.home = mkdtempSync(join(tmpdir(), 'crow-oauth-home-'));
    state.workspace = mkdtempSync(join(tmpdir(), 'crow-oauth-ws-'));
    state.browserLog = join(mkdtempSync(join(tmpdir(), 'crow-oauth-browser-')), 'visited.log');
    state.outputs = [];
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    rmSync(state.home, { recursive: true, force: true });
    rmSync(state.workspace, { recursive: true, force: true });
  });
  return state;
}

/** Every file under `home` but those in `except`, as text. */
function storedText(home: string, except: string): string {
  const texts: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (path === except) continue;
      if (entry.isDirectory()) walk(path);
      else texts.push(readFileSync(path, 'latin1'));
    }
  };
  walk(home);
  return texts.join('\n');
}
