/**
 * `crow eval` end to end with the scripted solver on the fake LLM server:
 * real agents, real tool calls in temporary copies of the shipped tasks,
 * real hidden checks. The solver fixes trap tasks wrongly on its first
 * attempt, so a lone builder fails them and a verified one passes them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { htmlReport, markdownReport, reportScript } from '../../src/eval/eval-report';
import { type EvalProgress, readResults, runEval } from '../../src/eval/eval-runner';
import { summarize } from '../../src/eval/eval-stats';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { scriptedSolver } from '../../testkit/scripted-solver';
import { runCrow } from '../support/crow-binary';
import { solverTasks, wrongFirstOnTraps } from '../support/eval-solver';
import { isolatedEnv } from '../support/isolated-env';

const TASKS_DIR = resolve(__dirname, '../../eval/tasks');
const PICKED = 'js-clamp,js-leap-year,js-parse-price,js-greeting-config';

describe('crow eval with the scripted solver', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let home: string;
  let out: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-eval-home-'));
    out = join(home, 'out');
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const evaluate = (tasks: ReturnType<typeof loadTasks>, agents: string[], signal = new AbortController().signal, onProgress?: (p: EvalProgress) => void, concurrency = 3) =>
    runEval({
      tasks,
      agents,
      repeat: 1,
      concurrency,
      env,
      dataHome: join(home, 'data'),
      overrides: { provider: 'anthropic' },
      budget: { tokens: 1_000_000, wallMs: 60_000 },
      out,
      signal,
      ...(onProgress ? { onProgress } : {}),
    });

  it('ships at least 15 tasks across every category, each loadable', () => {
    const tasks = loadTasks(TASKS_DIR);
    assert.ok(tasks.length >= 15, `${tasks.length} tasks`);
    assert.deepEqual(
      [...new Set(tasks.map((task) => task.category))].sort(),
      ['bug-fix', 'command-output', 'feature', 'multi-file', 'protected', 'refactor', 'trap'],
    );
    assert.ok(tasks.some((task) => task.language === 'python') && tasks.some((task) => task.language === 'javascript'));
  });

  it('4 tasks × 2 agents: the verifier catches the trap fixes a lone builder ships, and the report says so', async () => {
    const tasks = loadTasks(TASKS_DIR, PICKED);
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks), modeOf: wrongFirstOnTraps }));
    const outcome = await evaluate(tasks, ['build', 'build-verified']);
    assert.equal(outcome.results.length, 8);
    assert.equal(outcome.unfinished, 0);
    const outcomeOf = (task: string, agent: string) => outcome.results.find((r) => r.task === task && r.agent === agent)!;
    for (const trap of ['js-leap-year', 'js-parse-price']) {
      assert.equal(outcomeOf(trap, 'build').passed, false, `build ships the wrong fix of ${trap}`);
      assert.match(outcomeOf(trap, 'build').reason ?? '', /check failed/);
      assert.equal(outcomeOf(trap, 'build-verified').passed, true, `build-verified is sent back on ${trap} and fixes it`);
      assert.equal(outcomeOf(trap, 'build-verified').reviewRounds, 2);
      assert.equal(outcomeOf(trap, 'build-verified').ended, 'approved');
    }
    for (const plain of ['js-clamp', 'js-greeting-config']) {
      assert.equal(outcomeOf(plain, 'build').passed, true, plain);
      assert.equal(outcomeOf(plain, 'build-verified').reviewRounds, 1);
    }
    const clamp = outcomeOf('js-clamp', 'build');
    assert.equal(clamp.ended, 'completed');
    assert.ok(clamp.modelCalls >= 3 && clamp.toolCalls >= 3, JSON.stringify(clamp));
    assert.ok(clamp.tokens.input > 1000, 'the solver reports input tokens from the request size');
    assert.match(clamp.sessionId, /^[0-9a-f-]{36}$/);

    const summary = summarize(outcome.results, ['build', 'build-verified']);
    const [build, verified] = summary.agents;
    assert.deepEqual([build!.passed, build!.runs, verified!.passed, verified!.runs], [2, 4, 4, 4]);
    assert.equal(build!.rate, 0.5);
    assert.ok(build!.low < 0.5 && build!.high > 0.5 && verified!.low > 0.3 && verified!.high > 0.999);
    assert.deepEqual(summary.pairwise.find((p) => p.a === 'build-verified')!.tasks, ['js-leap-year', 'js-parse-price']);
    assert.deepEqual(summary.pairwise.find((p) => p.a === 'build')!.tasks, []);
    assert.deepEqual(summary.categories.trap, { build: { passed: 0, runs: 2 }, 'build-verified': { passed: 2, runs: 2 } });

    const markdown = markdownReport(outcome.results, ['build', 'build-verified']);
    assert.match(markdown, /\| build \| 2\/4 \| 50% \(15%–85%\) \|/);
    assert.match(markdown, /\| build-verified \| 4\/4 \| 100% \(51%–100%\) \|/);
    assert.match(markdown, /build-verified not build: 2 \(js-leap-year, js-parse-price\)/);
    assert.match(markdown, /js-leap-year · build #1: completed — check failed/);
  });

  it('resumes from results.jsonl: finished runs are not run again', async () => {
    const tasks = loadTasks(TASKS_DIR, 'js-clamp,js-slugify');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks) }));
    await evaluate(tasks.slice(0, 1), ['build']);
    const calls = server.requestsFor('anthropic').length;
    const progress: EvalProgress[] = [];
    const second = await evaluate(tasks, ['build'], undefined, (p) => progress.push(p));
    assert.deepEqual(progress[0], { kind: 'planned', total: 2, resumed: 1, skipped: [] });
    assert.equal(second.results.length, 2);
    assert.ok(second.results.every((result) => result.passed));
    assert.equal(readResults(join(out, 'results.jsonl')).length, 2);
    assert.ok(!server.requestsFor('anthropic').slice(calls).some((request) => JSON.stringify(request.body).includes('clamp(15, 0, 10)')), 'js-clamp was not run again');
  });

  it('cancel stops the runs under way, keeps the finished ones, and leaves the rest to resume', async () => {
    const tasks = loadTasks(TASKS_DIR, 'js-clamp,js-sum-off-by-one,js-slugify');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks) }));
    const controller = new AbortController();
    // One at a time: the first to finish cancels the evaluation while the others wait for their turn.
    const outcome = await evaluate(tasks, ['build'], controller.signal, (p) => {
      if (p.kind === 'finished') controller.abort();
    }, 1);
    assert.equal(outcome.cancelled, true);
    assert.ok(outcome.results.length >= 1 && outcome.results.length < 3, `${outcome.results.length} finished`);
    assert.equal(outcome.results.length + outcome.unfinished, 3);
    assert.equal(readResults(join(out, 'results.jsonl')).length, outcome.results.length, 'only finished runs are kept');
  });

  it('a solver that gives up fails the check; one that keeps fixing wrongly runs the reviewer to its round limit', async () => {
    const tasks = loadTasks(TASKS_DIR, 'js-clamp,js-leap-year');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks), modeOf: (task) => (task.wrong ? 'wrong' : 'give-up') }));
    const outcome = await evaluate(tasks, ['build-verified']);
    const clamp = outcome.results.find((result) => result.task === 'js-clamp')!;
    const leap = outcome.results.find((result) => result.task === 'js-leap-year')!;
    assert.equal(clamp.passed, false);
    assert.match(clamp.reason ?? '', /check failed/);
    assert.equal(leap.passed, false);
    assert.equal(leap.ended, 'limit');
    assert.equal(leap.reviewRounds, 5, 'build-verified allows five rounds');
  });

  it('a token budget stops a run and counts it as failed', async () => {
    const tasks = loadTasks(TASKS_DIR, 'js-clamp');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks) }));
    const outcome = await runEval({
      tasks, agents: ['build'], repeat: 1, concurrency: 1, env, dataHome: join(home, 'data'), overrides: { provider: 'anthropic' },
      budget: { tokens: 100, wallMs: 60_000 }, out, signal: new AbortController().signal,
    });
    assert.equal(outcome.results[0]!.ended, 'budget');
    assert.equal(outcome.results[0]!.passed, false);
  });

  it('the HTML report is one file with the data and the bundled Chart.js, loading nothing', async () => {
    const tasks = loadTasks(TASKS_DIR, 'js-clamp');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks) }));
    const outcome = await evaluate(tasks, ['build']);
    const html = htmlReport(outcome.results, ['build'], { script: reportScript(), nonce: 'n0nce' });
    assert.match(html, /script-src 'nonce-n0nce'/);
    assert.match(html, /<script type="application\/json" id="eval-data">\{"agents":\["build"\]/);
    assert.match(html, /Chart/);
    // A CSS url(…) loads; JavaScript's `new URL(…)` (in @vscode/l10n's bundled config, never given a uri here) does not.
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|(?<!new)[:\s]url\(/i, 'nothing is fetched');
    assert.match(html, /default-src 'none'/, 'and the page may not fetch anything');
  });

  it('crow eval on the command line prints the report with costs from the configured prices, and writes report.md, report.html and results.jsonl', async () => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'crow-agent', 'config.toml'),
      '[providers.anthropic.models."claude-sonnet-4-6"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n',
    );
    const tasks = loadTasks(TASKS_DIR, 'js-clamp,py-fizzbuzz');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks) }));
    const run = await runCrow(['eval', '--tasks', 'js-clamp,py-fizzbuzz', '--agents', 'build', '--out', out, '--provider', 'anthropic'], env, home);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^# Crow eval/);
    assert.match(run.stdout, /\| build \| 2\/2 \| 100%/);
    assert.match(run.stderr, /\[2\/2\] ✓/);
    for (const file of ['report.md', 'report.html', 'results.jsonl']) assert.ok(existsSync(join(out, file)), file);
    assert.equal(readFileSync(join(out, 'report.md'), 'utf8'), run.stdout);
    const results = readResults(join(out, 'results.jsonl'));
    const expected = (r: (typeof results)[number]) => (r.tokens.input * 3 + r.tokens.output * 15) / 1e6;
    for (const result of results) assert.ok(Math.abs(result.costUsd! - expected(result)) < 1e-9, `cost of ${result.task}`);
    const perSolved = (results[0]!.costUsd! + results[1]!.costUsd!) / 2;
    assert.match(run.stdout, new RegExp(`\\| \\$${perSolved.toFixed(4).replace('.', '\\.')} \\| 0 \\|`), 'cost per solved task');
    const bad = await runCrow(['eval', '--tasks', 'nothing-like-this'], env, home);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /No task matches "nothing-like-this"/);
    const typo = await runCrow(['eval', '--agents', 'build,bulid-verified'], env, home);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Unknown agent "bulid-verified" \(did you mean "build-verified"\?\)/);
  });
});
