/**
 * What the tests of MCP servers asking things (elicitation, sampling) share:
 * a workspace and home per test, the fake model, the ask fixture server
 * configured for `crow run` or given to `crow acp` by a TestClient, and the
 * spans the session stored.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { ClientCapabilities } from '@agentclientprotocol/sdk';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { TestClient, type TestClientOptions } from './acp-client';
import { startCrow } from './crow-binary';
import { isolatedEnv } from './isolated-env';
import type { Terminal } from './terminal';
import { trustFolder } from './trust';

const FIXTURE = resolve(__dirname, '../fixtures/mcp-ask-server.ts');
export const ASK_FIXTURE_ARGS = ['--require', require.resolve('tsx/cjs'), FIXTURE];
export const EVERYTHING = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export const call = (name: string, args: unknown) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
export const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

export interface StoredSpan {
  name: string;
  kind: string;
  parentSpanId?: string;
  spanId: string;
  status?: string;
  attributes: Record<string, unknown>;
}

/** Registers the mocha hooks and returns the per-test state; call inside a describe. */
export function askHarness() {
  const state = {
    llm: undefined as unknown as FakeLlmServer,
    workspace: '',
    home: '',
    log: '',
    terminal: undefined as Terminal | undefined,
    env(): NodeJS.ProcessEnv {
      return isolatedEnv(state.home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: state.llm.anthropicBaseUrl, LANG: 'C.UTF-8', MCP_FIXTURE_LOG: state.log });
    },
    /** The last message of the model's request number `request`, as JSON. */
    toModel(request: number): string {
      return JSON.stringify(state.llm.requestsFor('anthropic')[request]!.body.messages.at(-1));
    },
    /** The project configures the fixture server as "ask"; the folder is trusted. */
    configure(): void {
      mkdirSync(join(state.workspace, '.crow'), { recursive: true });
      const args = JSON.stringify(ASK_FIXTURE_ARGS);
      writeFileSync(join(state.workspace, '.crow/config.toml'), `[mcp_servers.ask]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${args}\nenv = ["MCP_FIXTURE_LOG"]\n`);
      trustFolder(state.workspace, state.env());
    },
    /** Every span record the data home holds (a span's start and its end are two records). */
    spans(): StoredSpan[] {
      const found: string[] = [];
      const walk = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.isDirectory()) walk(join(dir, entry.name));
          else if (entry.name === 'trace.jsonl') found.push(join(dir, entry.name));
        }
      };
      walk(join(state.home, 'data'));
      return found.flatMap((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as StoredSpan));
    },
    /** `crow acp` with a TestClient, one session whose MCP server is the fixture ("ask") or server-everything. */
    async acpSession(options: { capabilities?: ClientCapabilities; everything?: true } & Pick<TestClientOptions, 'elicit' | 'permission'>) {
      const crow = startCrow(['acp'], state.env(), state.workspace);
      const stream = acp.ndJsonStream(Writable.toWeb(crow.child.stdin), Readable.toWeb(crow.child.stdout) as unknown as ReadableStream<Uint8Array>);
      const client = new TestClient(stream, {
        capabilities: { session: { notices: {} }, ...options.capabilities },
        permission: options.permission ?? (() => 'allow_once'),
        ...(options.elicit ? { elicit: options.elicit } : {}),
      });
      await client.initialize();
      const { sessionId } = await client.agent.request('session/new', {
        cwd: state.workspace,
        mcpServers: options.everything
          ? [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] }]
          : [{ name: 'ask', command: process.execPath, args: ASK_FIXTURE_ARGS, env: [{ name: 'MCP_FIXTURE_LOG', value: state.log }] }],
      });
      const close = async (): Promise<void> => {
        client.close();
        crow.child.stdin.end();
        assert.equal((await crow.exited).code, 0, crow.stderr());
      };
      return { client, sessionId, close };
    },
  };
  before(async () => (state.llm = await FakeLlmServer.start()));
  after(() => state.llm.close());
  beforeEach(() => {
    state.llm.reset();
    state.workspace = mkdtempSync(join(tmpdir(), 'crow-mcp-ask-ws-'));
    state.home = mkdtempSync(join(tmpdir(), 'crow-mcp-ask-home-'));
    state.log = join(state.home, 'fixture.log');
  });
  afterEach(() => {
    state.terminal?.close();
    state.terminal = undefined;
    rmSync(state.workspace, { recursive: true, force: true });
    rmSync(state.home, { recursive: true, force: true });
  });
  return state;
}

/** Runs acpx (a client we did not write) on `crow acp` with the fixture as its MCP server "ask"; undefined when acpx is not installed. */
export async function acpxExec(state: ReturnType<typeof askHarness>, prompt: string): Promise<{ code: number | null; stdout: string } | undefined> {
  const acpx = resolve(__dirname, '../../node_modules/.bin/acpx');
  if (!existsSync(acpx)) return undefined;
  const config = join(state.home, 'acpx-mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: [{ name: 'ask', command: process.execPath, args: ASK_FIXTURE_ARGS, env: [] }] }));
  const crow = `${process.execPath} ${resolve(__dirname, '../../dist/crow.js')} acp`;
  const child = spawn(acpx, ['--agent', crow, '--cwd', state.workspace, '--approve-all', '--mcp-config', config, '--format', 'json', 'exec', prompt], {
    cwd: state.workspace,
    env: state.env(),
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { code, stdout };
}
