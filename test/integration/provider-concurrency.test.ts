/**
 * `[limits] concurrency` through the real binary: set with crow config, and
 * obeyed when a model starts several subagents in one response.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

describe('provider concurrency in [limits]', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-concurrency-'));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  /** The parent starts three explorers at once; each answers slowly, so that the ones let through overlap. */
  async function threeExplorers(): Promise<number> {
    const task = (n: number) => ({ type: 'tool_call' as const, name: 'task', arguments: { agent: 'explorer', task: `Look at part ${n}.` } });
    const slow: ScriptedReply = { blocks: [{ type: 'text', text: ['Part ', 'looked ', 'at, ', 'nothing ', 'odd.'] }], latencyMs: 80 };
    server.enqueue('anthropic', { blocks: [task(1), task(2), task(3)] }, slow, slow, slow, { blocks: [{ type: 'text', text: 'All three looked at.' }] });
    const run = await runCrow(['run', 'Look at the three parts'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requestsFor('anthropic').length, 5);
    return server.peakConcurrency('anthropic');
  }

  it('runs one subagent at a time on a server of your own by default (seed 002: local 1)', async () => {
    assert.equal(await threeExplorers(), 1);
  });

  it('crow config set limits.concurrency.local 2 lets two run at once, and get reads it back', async () => {
    const set = await runCrow(['config', 'set', 'limits.concurrency.local', '2'], env, workspace);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /^limits\.concurrency\.local = 2 \(in .*config\.toml\)$/m);
    const get = await runCrow(['config', 'get', 'limits.concurrency.local'], env, workspace);
    assert.equal(get.stdout, '2\n');
    assert.equal(await threeExplorers(), 2);
  });

  it('refuses a concurrency that is not a whole number from 1 to 64, writing nothing', async () => {
    const set = await runCrow(['config', 'set', 'limits.concurrency.anthropic', '0'], env, workspace);
    assert.notEqual(set.code, 0);
    assert.match(set.stderr, /limits\.concurrency\.anthropic/);
    assert.match(set.stderr, /nothing was written/);
  });
});
