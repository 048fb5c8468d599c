/**
 * `crow eval` results you can trust (issue 28), through the real binary
 * with the scripted solver on the fake LLM server: a manifest heads every
 * results file and a rerun that differs is refused; every model call of a
 * delegating run counts; a run stopped by its budget fails; intervals count
 * tasks, not repeats; pass@k, pass^k and a paired test; each run's diff,
 * check log and trace; broken task files; shards and their merge against an
 * unsharded run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readResults, readResultsFile } from '../../src/eval/eval-runner';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { scriptedSolver, type SolverMode } from '../../testkit/scripted-solver';
import { runCrow, startCrow, until } from '../support/crow-binary';
import { solverTasks, wrongFirstOnTraps } from '../support/eval-solver';
import { isolatedEnv } from '../support/isolated-env';

const TASKS_DIR = resolve(__dirname, '../../eval/tasks');
const PICKED = 'js-clamp,js-leap-year,js-parse-price,js-greeting-config';
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

describe('crow eval: results you can trust, on many machines', function () {
  this.timeout(180_000);
  let server: FakeLlmServer;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-eval-trust-'));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const crowEval = (args: string[]) => runCrow(['eval', '--provider', 'anthropic', ...args], env, home);
  const solve = (tasks: string, modeOf = wrongFirstOnTraps) =>
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(loadTasks(TASKS_DIR, tasks)), modeOf }));
  const prices = (): void => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[providers.anthropic.models."claude-sonnet-4-6"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n');
  };
  /** A suite of one-off tasks under home/suite. */
  const suite = (tasks: Record<string, { toml: string; files?: Record<string, string> }>): string => {
    const dir = join(home, 'suite');
    for (const [name, task] of Object.entries(tasks)) {
      mkdirSync(join(dir, name, 'files'), { recursive: true });
      writeFileSync(join(dir, name, 'task.toml'), task.toml);
      for (const [path, text] of Object.entries(task.files ?? {})) writeFileSync(join(dir, name, 'files', path), text);
    }
    return dir;
  };
  const taskToml = (check: string, prompt = 'Create done.txt') =>
    `prompt = "${prompt}"\ncategory = "feature"\ndifficulty = "easy"\nlanguage = "javascript"\ncheck = "${check}"\n`;

  it('opens results.jsonl with a manifest, and refuses a rerun into the same --out with another model or a changed task', async () => {
    solve('js-clamp');
    const out = join(home, 'out');
    const first = await crowEval(['--tasks', 'js-clamp', '--agents', 'build', '--out', out]);
    assert.equal(first.code, 0, first.stderr);
    const { manifest, results } = readResultsFile(join(out, 'results.jsonl'));
    assert.ok(manifest, 'the first line is a manifest');
    assert.equal(manifest.crowVersion, JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')).version);
    if (existsSync(resolve(__dirname, '../../.git'))) assert.match(manifest.gitCommit ?? '', /^[0-9a-f]{40}$/, 'the commit crow runs from');
    assert.equal(`${manifest.provider}/${manifest.model}`, 'anthropic/claude-sonnet-4-6');
    assert.match(manifest.tasks['js-clamp']!, /^[0-9a-f]{64}$/);
    assert.deepEqual(manifest.agents.build!.roles, { primary: 'anthropic/claude-sonnet-4-6' });
    assert.equal(manifest.seed, 1);
    assert.equal(results.length, 1);
    const before = readFileSync(join(out, 'results.jsonl'), 'utf8');

    const other = await crowEval(['--tasks', 'js-clamp', '--agents', 'build', '--out', out, '--model', 'totally-different-model']);
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /model: claude-sonnet-4-6 then, totally-different-model now/);
    assert.match(other.stderr, /Give another --out/);
    assert.equal(readFileSync(join(out, 'results.jsonl'), 'utf8'), before, 'nothing was added or lost');

    const copy = join(home, 'tasks');
    cpSync(join(TASKS_DIR, 'js-clamp'), join(copy, 'js-clamp'), { recursive: true });
    const out2 = join(home, 'out2');
    assert.equal((await crowEval(['--tasks-dir', copy, '--agents', 'build', '--out', out2])).code, 0);
    writeFileSync(join(copy, 'js-clamp', 'files', 'test.js'), `${readFileSync(join(copy, 'js-clamp', 'files', 'test.js'), 'utf8')}\n// changed\n`);
    const changed = await crowEval(['--tasks-dir', copy, '--agents', 'build', '--out', out2]);
    assert.equal(changed.code, 2);
    assert.match(changed.stderr, /task js-clamp changed \(hash [0-9a-f]{12} then, [0-9a-f]{12} now\)/);

    const again = await crowEval(['--tasks', 'js-clamp,js-slugify', '--agents', 'build', '--out', out]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /1 already in the results \(resuming\)/);
    assert.ok(readResultsFile(join(out, 'results.jsonl')).manifest!.tasks['js-slugify'], 'the manifest now names the added task');
  });

  it("counts a delegating run's subagent calls, tokens and cost; a run stopped by its budget fails whatever its check says", async () => {
    prices();
    const dir = suite({ delegate: { toml: taskToml('test -f done.txt') }, always: { toml: taskToml('true', 'Say hello') } });
    server.enqueue('anthropic', call('task', { agent: 'worker', task: 'Create done.txt' }), call('write_file', { path: 'done.txt', content: 'ok\n' }), say('Created done.txt.'), say('The worker did it.'));
    const out = join(home, 'out');
    const run = await crowEval(['--tasks-dir', dir, '--tasks', 'delegate', '--agents', 'build', '--out', out, '--concurrency', '1']);
    assert.equal(run.code, 0, run.stderr);
    const [result] = readResults(join(out, 'results.jsonl'));
    assert.equal(result!.passed, true, JSON.stringify(result));
    assert.equal(result!.modelCalls, 4, 'the worker\'s two calls count');
    assert.ok(Math.abs(result!.costUsd! - (result!.tokens.input * 3 + result!.tokens.output * 15) / 1e6) < 1e-9, 'every token is priced');

    server.reset();
    server.enqueue('anthropic', say('Hello.'));
    const out2 = join(home, 'out2');
    const stopped = await crowEval(['--tasks-dir', dir, '--tasks', 'always', '--agents', 'build', '--out', out2, '--budget-tokens', '100']);
    assert.equal(stopped.code, 0, stopped.stderr);
    const [budget] = readResults(join(out2, 'results.jsonl'));
    assert.equal(budget!.ended, 'budget');
    assert.equal(budget!.passed, false, 'over the budget is a failure even though the check passed');
    assert.match(stopped.stdout, /## Runs that failed\n\n- always · build #1: budget — stopped: over the budget of 100 tokens \(its check passed/);
  });

  it('counts each task once in the interval (a repeat of a deterministic run adds nothing), shows pass@k and pass^k, and compares agents with a paired test', async () => {
    solve(PICKED);
    const once = await crowEval(['--tasks', PICKED, '--agents', 'build,build-verified', '--out', join(home, 'once'), '--concurrency', '3']);
    assert.equal(once.code, 0, once.stderr);
    solve(PICKED);
    const twice = await crowEval(['--tasks', PICKED, '--agents', 'build,build-verified', '--out', join(home, 'twice'), '--repeat', '2', '--concurrency', '3']);
    assert.equal(twice.code, 0, twice.stderr);
    assert.match(once.stdout, /\| build \| 2\/4 \| 50% \(15%–85%\) \|/);
    assert.match(twice.stdout, /\| build \| 4\/8 \| 50% \(15%–85%\) \| 50% \| 50% \|/, 'same interval, and pass@2 = pass^2 = 50% for a deterministic agent');
    assert.match(twice.stdout, /\| agent \| solved \| success rate \(95% interval\) \| pass@2 \| pass\^2 \|/);
    assert.match(once.stdout, /- build-verified not build: 2 \(js-leap-year, js-parse-price\) · build-verified − build: \+50 points \(95% paired bootstrap ±0 points to \+100 points\) over 4 shared tasks · exact McNemar p = 0\.500/);
  });

  it('estimates pass@k and pass^k from runs that succeed at a known rate, where a deterministic agent cannot tell them apart', async () => {
    // js-leap-year is solved in the first of its three runs only (the trap's wrong fix after that), js-clamp in all three.
    const tasks = solverTasks(loadTasks(TASKS_DIR, 'js-leap-year,js-clamp'));
    const runsOf = new Map<string, number>();
    let current: SolverMode = 'correct';
    const solver = scriptedSolver({ tasks, modeOf: () => current });
    server.respondWith('anthropic', (body) => {
      const messages = body.messages as unknown[];
      const task = tasks.find((candidate) => JSON.stringify(messages[0]).includes(candidate.prompt.trim().slice(0, 60)));
      if (messages.length === 1 && task) {
        const run = (runsOf.get(task.prompt) ?? 0) + 1;
        runsOf.set(task.prompt, run);
        current = task.wrong && run > 1 ? 'wrong' : 'correct';
      }
      return solver(body);
    });
    const run = await crowEval(['--tasks', 'js-leap-year,js-clamp', '--agents', 'build', '--out', join(home, 'out'), '--repeat', '3', '--concurrency', '1']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([...runsOf.values()], [3, 3], 'three runs of each task');
    // 4 of 6 runs; pass@3 = mean(1, 1) = 100%; pass^3 = mean(0, 1) = 50%.
    assert.match(run.stdout, /\| build \| 4\/6 \| 67% \(\d+%–\d+%\) \| 100% \| 50% \|/);
  });

  it('Ctrl-C during a hidden check records nothing for that run, and the next eval runs it again', async () => {
    // A check that runs until stopped, told apart from any other sleep on the machine by its length.
    const dir = suite({ slow: { toml: taskToml('sleep 31.4159 && true', 'Say hello') } });
    const out = join(home, 'out');
    const args = ['eval', '--provider', 'anthropic', '--tasks-dir', dir, '--agents', 'build', '--out', out];
    const checking = (): boolean => spawnSync('pgrep', ['-f', 'sleep 31.4159']).status === 0;
    server.enqueue('anthropic', say('Hello.'));
    const first = startCrow(args, env, home);
    await until(checking, 'the hidden check to start', 60_000);
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    assert.equal(stopped.code, 130, first.stderr());
    assert.match(first.stderr(), /1 run did not finish: run the same command again to resume/);
    assert.equal(readResults(join(out, 'results.jsonl')).length, 0, 'no result recorded for the interrupted check');

    server.enqueue('anthropic', say('Hello.'));
    const second = startCrow(args, env, home);
    await until(checking, 'the check of the run again', 60_000);
    assert.doesNotMatch(second.stderr(), /already in the results/, 'the interrupted run is run again, not counted as done');
    second.child.kill('SIGINT');
    await second.exited;
  });

  it("keeps every run's diff, whole check output and trace id, and lists failed runs with them", async () => {
    solve('js-clamp,js-leap-year');
    const out = join(home, 'out');
    const run = await crowEval(['--tasks', 'js-clamp,js-leap-year', '--agents', 'build', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const results = readResults(join(out, 'results.jsonl'));
    const clamp = results.find((r) => r.task === 'js-clamp')!;
    const leap = results.find((r) => r.task === 'js-leap-year')!;
    assert.match(clamp.traceId ?? '', /^[0-9a-f]{32}$/);
    assert.equal(clamp.artifacts?.diff, 'runs/js-clamp/build/1/diff.patch');
    assert.match(readFileSync(join(out, clamp.artifacts!.diff), 'utf8'), /^--- a\/clamp\.js\n\+\+\+ b\/clamp\.js\n@@/);
    assert.match(readFileSync(join(out, leap.artifacts!.checkLog), 'utf8'), /AssertionError|assert/i, 'the whole failing output');
    assert.equal(leap.passed, false);
    assert.ok(run.stdout.includes(`- js-leap-year · build #1: completed — check failed`));
    assert.ok(run.stdout.includes(`crow trace ${leap.sessionId} · trace id ${leap.traceId} · diff runs/js-leap-year/build/1/diff.patch · check log runs/js-leap-year/build/1/check.log)`));
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    assert.ok(html.includes(JSON.stringify(`crow trace ${leap.sessionId}`).slice(1, -1)) || html.includes(leap.sessionId));
    assert.match(html, /"diff":"--- a\/clamp\.js/);
    assert.match(html, /<section><h2>Runs that failed<\/h2>/);
  });

  it('reports a broken task file with the others found and runs the valid tasks; --strict stops on them', async () => {
    const dir = suite({
      good: { toml: taskToml('test -f done.txt') },
      'bad-category': { toml: taskToml('true').replace('feature', 'featur') },
      'bad-toml': { toml: 'prompt = "unclosed\n' },
    });
    server.enqueue('anthropic', call('write_file', { path: 'done.txt', content: 'ok\n' }), say('Done.'));
    const run = await crowEval(['--tasks-dir', dir, '--agents', 'build', '--out', join(home, 'out')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /skipping 2 broken task files/);
    assert.match(run.stderr, /bad-category\/task\.toml: category: Invalid/);
    assert.match(run.stderr, /bad-toml\/task\.toml: /);
    assert.match(run.stdout, /\| build \| 1\/1 \|/);
    const strict = await crowEval(['--tasks-dir', dir, '--agents', 'build', '--out', join(home, 'strict'), '--strict']);
    assert.equal(strict.code, 2);
    assert.match(strict.stderr, /2 task files are broken \(--strict stops on any\):[\s\S]*bad-category[\s\S]*bad-toml/);
    assert.ok(!existsSync(join(home, 'strict', 'results.jsonl')), 'nothing ran');
  });

  it('two shards merged give what one unsharded run gives; merge refuses shards made differently', async () => {
    const tasks = 'js-clamp,js-slugify,js-sum-off-by-one,js-word-count,js-leap-year';
    const agents = ['--agents', 'build,build-verified'];
    const evaluate = async (extra: string[]) => {
      solve(tasks);
      const run = await crowEval(['--tasks', tasks, ...agents, '--concurrency', '3', ...extra]);
      assert.equal(run.code, 0, run.stderr);
      return run;
    };
    const zero = await evaluate(['--shard', '0/2', '--out', join(home, 'shard-0')]);
    await evaluate(['--shard', '1/2', '--out', join(home, 'shard-1')]);
    await evaluate(['--out', join(home, 'whole')]);
    assert.match(zero.stderr, /crow eval: 5 runs \(shard 0\/2 of 10\)/);
    const shardResults = [0, 1].map((i) => readResults(join(home, `shard-${i}`, 'results.jsonl')));
    assert.equal(shardResults[0]!.length + shardResults[1]!.length, 10);

    const merged = await runCrow(['eval', 'merge', '--out', join(home, 'merged'), join(home, 'shard-0'), join(home, 'shard-1')], env, home);
    assert.equal(merged.code, 0, merged.stderr);
    const key = (r: { task: string; agent: string; repeat: number }) => `${r.task} ${r.agent} ${r.repeat}`;
    const facts = (dir: string) =>
      readResults(join(home, dir, 'results.jsonl'))
        .map((r) => `${key(r)}: ${r.passed} ${r.ended} ${r.modelCalls} calls ${r.toolCalls} tools ${r.reviewRounds} rounds`)
        .sort();
    assert.deepEqual(facts('merged'), facts('whole'));
    const table = (markdown: string) => markdown.split('\n').filter((line) => /^\| (build|build-verified) \|/.test(line)).map((line) => line.split('|').slice(1, 4).join('|'));
    assert.deepEqual(table(merged.stdout), table(readFileSync(join(home, 'whole', 'report.md'), 'utf8')));
    assert.ok(existsSync(join(home, 'merged', 'runs', 'js-clamp', 'build', '1', 'diff.patch')), 'artifacts come along');
    assert.equal(readResultsFile(join(home, 'merged', 'results.jsonl')).manifest!.shard, undefined);

    solve(tasks);
    const odd = await crowEval(['--tasks', tasks, ...agents, '--shard', '1/2', '--budget-tokens', '123456', '--out', join(home, 'odd')]);
    assert.equal(odd.code, 0, odd.stderr);
    const refused = await runCrow(['eval', 'merge', '--out', join(home, 'bad'), join(home, 'shard-0'), join(home, 'odd')], env, home);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /was made differently[\s\S]*budget/);
    const twice = await runCrow(['eval', 'merge', '--out', join(home, 'bad2'), join(home, 'shard-0'), join(home, 'shard-0')], env, home);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /Shard 0\/2 is given twice/);
    const half = await runCrow(['eval', 'merge', '--out', join(home, 'half'), join(home, 'shard-0')], env, home);
    assert.equal(half.code, 0);
    assert.match(half.stdout, /Shards 1 of 2 are missing from this merge/);
  });
});
