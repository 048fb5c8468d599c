/**
 * MCP tools that report progress (notifications/progress): the call asks
 * for it with a progress token, each report becomes the call's step in
 * tool_progress events, and a call that keeps reporting outlives
 * tool_timeout_sec; one that goes quiet does not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ScriptedProvider } from '../../src/llm/scripted';
import type { McpProblem } from '../../src/mcp/mcp-connection';
import { McpServers } from '../../src/mcp/mcp-servers';
import type { McpServerConfig } from '../../src/mcp/server-config';
import { eventsOfType, runTurn } from '../support/engine';

const FIXTURE = resolve(__dirname, '../fixtures/mcp-server.ts');

describe('MCP tools that report progress', function () {
  this.timeout(30_000);
  let scratch: string;
  let log: string;
  let problems: McpProblem[];
  let open: McpServers[];

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-progress-')));
    log = join(scratch, 'fixture.log');
    problems = [];
    open = [];
  });
  afterEach(async () => {
    await Promise.all(open.map((servers) => servers.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  function fixture(toolTimeoutMs: number): McpServers {
    const config: McpServerConfig = {
      name: 'fx',
      transport: { type: 'stdio', command: process.execPath, args: ['--require', require.resolve('tsx/cjs'), FIXTURE], env: { MCP_FIXTURE_LOG: log } },
      permission: 'execute',
      source: 'config.toml',
      toolTimeoutMs,
    };
    const servers = new McpServers([config], { cwd: scratch, report: (problem) => problems.push(problem) });
    open.push(servers);
    return servers;
  }

  it('asks for progress and shows each report as the call\'s step while it runs', async () => {
    const tools = await fixture(10_000).tools();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'mcp__fx__steps', arguments: { count: 3, everyMs: 300 } }] }, { text: 'Done.' }]);
    const run = await runTurn(provider, [...tools], 'Take the steps');
    assert.match(readFileSync(log, 'utf8'), /steps with a progress token/);
    // The first report shows at once; a later one may be overtaken by the call's end, which supersedes it.
    const steps = eventsOfType(run.events, 'tool_progress').flatMap((event) => (event.step ? [event.step] : []));
    assert.deepEqual(steps[0], { message: 'step 1 of 3', done: 1, total: 3 });
    const done = steps.map((step) => step.done ?? 0);
    assert.deepEqual(done, [...done].sort((a, b) => a - b), 'in order');
    const end = eventsOfType(run.events, 'tool_call_end')[0]!;
    assert.equal(end.result.output, 'took 3 steps');
  });

  it('outlives tool_timeout_sec while it reports progress, and times out once it goes quiet', async () => {
    // Reports every 60 ms for 1.2 s against a 600 ms timeout: only the reports keep it alive.
    const tools = await fixture(600).tools();
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'mcp__fx__steps', arguments: { count: 20, everyMs: 60 } }] },
      { toolCalls: [{ name: 'mcp__fx__hang', arguments: {} }] },
      { text: 'Done.' },
    ]);
    const run = await runTurn(provider, [...tools], 'Take many steps');
    const [reported, quiet] = eventsOfType(run.events, 'tool_call_end');
    assert.equal(reported!.result.status, 'success', reported!.result.error);
    assert.equal(reported!.result.output, 'took 20 steps');
    assert.ok(reported!.durationMs > 600, `it ran ${reported!.durationMs} ms, past the timeout`);
    assert.equal(quiet!.result.status, 'error');
    assert.match(quiet!.result.error ?? '', /did not answer hang, nor report progress, within 0.6 s/);
  });
});
