/**
 * crow eval's own cost: the harness's overhead per run (copying the task,
 * opening the session, copying the hidden files in and running the check;
 * model time excluded) beside the whole run, with the scripted solver on the
 * fake LLM server, so the "model" answers at once. Also the tokens a run
 * reads per task and agent, the figure the cost note of crow eval --help
 * rests on. Nothing here fails on time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runEval } from '../src/eval/eval-runner';
import { loadTasks } from '../src/eval/eval-task';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { scriptedSolver } from '../testkit/scripted-solver';
import { solverTasks, wrongFirstOnTraps } from '../test/support/eval-solver';
import { median } from './common';

const AGENTS = ['build', 'build-verified', 'pair'];

export async function evalBenchmark(): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = mkdtempSync(join(tmpdir(), 'crow-bench-eval-'));
  try {
    const tasks = loadTasks(resolve(__dirname, '../eval/tasks'));
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks), modeOf: wrongFirstOnTraps }));
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    const started = Date.now();
    const { results } = await runEval({
      tasks,
      agents: AGENTS,
      repeat: 1,
      concurrency: 1,
      env,
      dataHome: join(home, 'data'),
      overrides: { provider: 'anthropic' },
      budget: { tokens: 1_000_000, wallMs: 120_000 },
      out: join(home, 'out'),
      signal: new AbortController().signal,
    });
    const overhead = median(results.map((result) => result.overheadMs));
    const wall = median(results.map((result) => result.wallMs));
    console.log(`crow eval: ${tasks.length} tasks × ${AGENTS.length} agents, one run at a time, scripted solver (${((Date.now() - started) / 1000).toFixed(1)} s in all)`);
    console.log(`  ${'harness overhead per run (set-up + check), median'.padEnd(52)} ${overhead.toFixed(0)} ms`);
    console.log(`  ${'whole run, median'.padEnd(52)} ${wall.toFixed(0)} ms   (overhead / run ${(overhead / wall).toFixed(2)})`);
    for (const agent of AGENTS) {
      const mine = results.filter((result) => result.agent === agent);
      const input = median(mine.map((result) => result.tokens.input));
      const calls = median(mine.map((result) => result.modelCalls));
      console.log(`  ${`${agent}: model calls, input tokens per task (median)`.padEnd(52)} ${calls} calls, ${Math.round(input)} tokens`);
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
