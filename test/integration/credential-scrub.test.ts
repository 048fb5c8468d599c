/**
 * Credentials the vendors' SDKs and tools read from the environment never
 * reach a command the model runs, sandbox on or off, nor a hook: not by
 * name, and not turned around (`rev`) or re-encoded (`base64`) past the
 * output redactor. Found by name (database, CI and cloud names too) and by
 * value (a URL with a password, a connection string's key, a vendor's
 * token, a provider's key under another name), and redacted from what is
 * stored. Through the real binary, on loopback.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { binarySuite } from '../support/binary-suite';
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
  // Database, cache, CI and cloud names.
  PGPASSWORD: 'pg-password-0123456789abcdef',
  MYSQL_PWD: 'mysql-pwd-0123456789abcdef',
  REDISCLI_AUTH: 'redis-auth-0123456789abcdef',
  AZURE_DEVOPS_EXT_PAT: 'azure-devops-pat-0123456789abcdef',
  CI_JOB_JWT: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.ci-job-jwt-signature',
  // By value: a URL holding a password, a connection string's key, a token in its vendor's form, a provider's key under another name.
  DATABASE_URL: 'postgres://app:db-url-password-0123456789@db.internal:5432/app',
  AZURE_STORAGE_CONNECTION_STRING: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=azure-account-key-0123456789abcdef;EndpointSuffix=core.windows.net',
  DEPLOY_HELPER: 'ghp_deployhelper0123456789abcdefghijklmn',
  MY_CLAUDE: 'sk-ant-test-key-0123456789',
};

/** Variables a build needs that are no credential, and must still reach commands and hooks. */
const ORDINARY: Record<string, string> = {
  SSH_AUTH_SOCK: '/run/user/ssh-agent.socket',
  PGUSER: 'app',
  PGHOST: 'db.internal',
  PLAIN_URL: 'https://example.com/path',
};

/** The user's config naming CORP_LLM as a provider's key variable. */
const CORP_PROVIDER = '[providers.corp]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "CORP_LLM"\n';

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
  const fx = binarySuite('scrub');
  beforeEach(() => {
    execFileSync('git', ['init', '-q'], { cwd: fx.root });
    mkdirSync(join(fx.home, 'config/crow-agent'), { recursive: true });
    writeFileSync(join(fx.home, 'config/crow-agent/config.toml'), CORP_PROVIDER);
  });

  it(`${route}: no credential variable reaches a command, by name, reversed or in base64`, async () => {
    const names = [...Object.keys(CREDENTIALS), ...Object.keys(ORDINARY)];
    fx.llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'env | rev; echo; env | base64 -w0; echo; echo listed' } }] },
      {
        blocks: [
          { type: 'tool_call', name: 'bash', arguments: { command: names.map((name) => `printf '%s' "$${name}" | rev; echo`).join('; ') + '; echo echoed' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'Nothing there.' }] },
    );
    const env = isolatedEnv(fx.home, {
      ANTHROPIC_API_KEY: 'sk-ant-test-key-0123456789',
      ANTHROPIC_BASE_URL: fx.llm.anthropicBaseUrl,
      CROW_SANDBOX: route === 'sandbox off' ? 'off' : 'required',
      ...CREDENTIALS,
      ...ORDINARY,
    });
    const run = await runCrow(['run', 'Look around', '--cwd', fx.root, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'execute'], env, fx.root);
    assert.equal(run.code, 0, run.stderr);
    const seen = told(fx.llm);
    assert.match(seen, /listed/);
    assert.match(seen, /echoed/);
    assert.match(seen, /HTAP/, 'the environment was there, reversed (PATH)');
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      for (const spelling of spellings(value)) assert.ok(!seen.includes(spelling), `${name} reached a command (${spelling})`);
      assert.ok(!seen.includes([...`${name}=`].reverse().join('')), `${name} is still set for commands`);
    }
    for (const [name, value] of Object.entries(ORDINARY)) assert.ok(seen.includes([...value].reverse().join('')), `${name} reached the command`);
  });
}

/** Every file under `folder`, read whole. */
function allFilesIn(folder: string): string {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');
}

function hooksAndRecords(): void {
  const fx = binarySuite('scrub');
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    mkdirSync(join(fx.home, 'config/crow-agent'), { recursive: true });
    writeFileSync(join(fx.home, 'config/crow-agent/config.toml'), CORP_PROVIDER);
    env = isolatedEnv(fx.home, { ANTHROPIC_API_KEY: 'sk-ant-test-key-0123456789', ANTHROPIC_BASE_URL: fx.llm.anthropicBaseUrl, CROW_SANDBOX: 'off', ...CREDENTIALS, ...ORDINARY });
  });

  it('no credential variable reaches a hook, and the ordinary ones do', async () => {
    const dump = join(fx.home, 'hook-env');
    writeFileSync(
      join(fx.home, 'config/crow-agent/config.toml'),
      `${CORP_PROVIDER}\n[[hooks]]\nevent = "user_prompt_submit"\ncommand = ${JSON.stringify(`cat > /dev/null; env > '${dump}'`)}\n`,
    );
    fx.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
    const run = await runCrow(['run', 'Hello', '--provider', 'anthropic', '--model', 'claude-test', '--no-undo'], env, fx.root);
    assert.equal(run.code, 0, run.stderr);
    const seen = readFileSync(dump, 'utf8');
    assert.match(seen, /^CROW_PROJECT_DIR=/m, 'the hook ran');
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      assert.doesNotMatch(seen, new RegExp(`^${name}=`, 'm'), `${name} reached the hook`);
      assert.ok(!seen.includes(value), `the value of ${name} reached the hook`);
    }
    for (const name of Object.keys(ORDINARY)) assert.match(seen, new RegExp(`^${name}=`, 'm'), `${name} reached the hook`);
  });

  it('what is stored (history, events, trace) and what crow trace prints hold none of the credentials', async () => {
    const all = Object.values(CREDENTIALS);
    const secrets = all.join(' ');
    fx.llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'think', arguments: { thought: `Noting ${secrets}` } }] },
      { blocks: [{ type: 'text', text: `Seen: ${secrets}` }] },
    );
    const run = await runCrow(['run', `Remember ${secrets}`, '--provider', 'anthropic', '--model', 'claude-test', '--no-undo'], env, fx.root);
    assert.equal(run.code, 0, run.stderr);
    const stored = allFilesIn(join(fx.home, 'data'));
    assert.match(stored, /\[REDACTED\]/);
    const [id] = readdirSync(join(fx.home, 'data', 'crow-agent', 'sessions'));
    const trace = await runCrow(['trace', id!, '--json'], env, fx.root);
    assert.equal(trace.code, 0, trace.stderr);
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      assert.ok(!stored.includes(value), `the value of ${name} was stored`);
      assert.ok(!trace.stdout.includes(value), `the value of ${name} is in the trace`);
    }
    assert.ok(!stored.includes('db-url-password-0123456789'), "the URL's password on its own too");
  });
}

describe('credential variables and the commands the model runs', function () {
  this.timeout(30_000);
  describe('without the sandbox', () => suite('sandbox off'));
  describeSandboxed('in the sandbox', () => suite('sandbox on'));
  describe('hooks and what is stored', hooksAndRecords);
});
