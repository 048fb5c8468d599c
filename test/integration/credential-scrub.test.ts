/**
 * Credentials the vendors' SDKs and tools read from the environment never
 * reach a command the model runs, sandbox on or off: not by name, and not
 * turned around (`rev`) or re-encoded (`base64`) past the output redactor.
 * Through the real binary, on loopback.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../src/testing/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed } from '../support/sandbox';

/** Variables the SDKs and CLIs read credentials from, each with a value a leak would show. */
const CREDENTIALS: Record<string, string> = {
  ANTHROPIC_AUTH_TOKEN: 'anthropic-auth-token-0123456789abcdef',
  MISTRAL_API_KEY: 'mistral-key-0123456789abcdef',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-0123456789abcdef',
  AWS_SESSION_TOKEN: 'aws-session-0123456789abcdef',
  GOOGLE_API_KEY: 'google-key-0123456789abcdef',
  GEMINI_API_KEY: 'gemini-key-0123456789abcdef',
  AZURE_OPENAI_API_KEY: 'azure-key-0123456789abcdef',
  AZURE_CLIENT_SECRET: 'azure-secret-0123456789abcdef',
  GITHUB_TOKEN: 'ghp_githubtoken0123456789abcdef',
  GH_TOKEN: 'gho_ghtoken0123456789abcdef',
  HF_TOKEN: 'hf_hftoken0123456789abcdef',
  HUGGING_FACE_HUB_TOKEN: 'hf_hubtoken0123456789abcdef',
  NPM_TOKEN: 'npm_npmtoken0123456789abcdef',
  // A name the user's config gives a provider key, which no pattern knows.
  CORP_LLM: 'corp-llm-0123456789abcdef',
};

/** Every way a value could come back to the model: as is, reversed, in base64. */
function spellings(value: string): string[] {
  return [value, [...value].reverse().join(''), Buffer.from(value).toString('base64').replace(/=+$/, '')];
}

function told(server: FakeLlmServer): string {
  return server
    .requestsFor('anthropic')
    .slice(1)
    .map((request) => JSON.stringify(request.body.messages.at(-1)))
    .join('\n');
}

function suite(route: 'sandbox off' | 'sandbox on'): void {
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-scrub-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-scrub-ws-'));
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    mkdirSync(join(home, 'config/crow-agent'), { recursive: true });
    writeFileSync(
      join(home, 'config/crow-agent/config.toml'),
      '[providers.corp]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "CORP_LLM"\n',
    );
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it(`${route}: no credential variable reaches a command, by name, reversed or in base64`, async () => {
    const names = Object.keys(CREDENTIALS);
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'env | rev; echo; env | base64 -w0; echo; echo listed' } }] },
      {
        blocks: [
          { type: 'tool_call', name: 'bash', arguments: { command: names.map((name) => `printf '%s' "$${name}" | rev; echo`).join('; ') + '; echo echoed' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'Nothing there.' }] },
    );
    const env = isolatedEnv(home, {
      ANTHROPIC_API_KEY: 'sk-ant-test-key-0123456789',
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      CROW_SANDBOX: route === 'sandbox off' ? 'off' : 'required',
      ...CREDENTIALS,
    });
    const run = await runCrow(['run', 'Look around', '--cwd', workspace, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'execute'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    const seen = told(server);
    assert.match(seen, /listed/);
    assert.match(seen, /echoed/);
    assert.match(seen, /HTAP/, 'the environment was there, reversed (PATH)');
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      for (const spelling of spellings(value)) assert.ok(!seen.includes(spelling), `${name} reached a command (${spelling})`);
      assert.ok(!seen.includes([...`${name}=`].reverse().join('')), `${name} is still set for commands`);
    }
  });
}

describe('credential variables and the commands the model runs', function () {
  this.timeout(30_000);
  describe('without the sandbox', () => suite('sandbox off'));
  describeSandboxed('in the sandbox', () => suite('sandbox on'));
});
