/**
 * `crow eval --attempts 3` through the binary, on three shipped tasks with
 * the scripted solver: every run and every attempt fixes its task with
 * probability 1/2 (seeded draws, so the test works out what each must
 * score), wrongly or not at all otherwise; the scripted judge ranks the
 * attempts highest number first. The report's comparison of the single
 * and best-of arms, the judge's accuracy and the oracle must agree with
 * those draws, and the paired statistics recompute from results.jsonl.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readResults } from '../../src/eval/eval-runner';
import { mcnemarExact, pairedBootstrap } from '../../src/eval/eval-stats';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { askerOf, attemptsSolver, solvedBy } from '../support/eval-solver';
import { isolatedEnv } from '../support/isolated-env';

const TASKS_DIR = resolve(__dirname, '../../eval/tasks');
/** js-clamp has no wrong fix (a failing run changes nothing); the other two have one (a failing run ships it). */
const TASKS = ['js-clamp', 'js-leap-year', 'js-parse-price'];
const P = 0.5;
const SEED = 1;
const N = 3;

/** What the draws make of one task: the single run, each attempt, the one the judge's rule chooses. */
function expected(task: string): { single: boolean; attempts: boolean[]; chosen: number; changed: number[] } {
  const attempts = [1, 2, 3].map((n) => solvedBy(task, n, P, SEED));
  const hasWrongFix = task !== 'js-clamp';
  // An attempt changes files when it fixes the task, or ships the wrong fix; the judge ranks the highest number first, and Crow puts those that changed nothing last.
  const changed = [1, 2, 3].filter((n) => attempts[n - 1] || hasWrongFix);
  return { single: solvedBy(task, 'single', P, SEED), attempts, chosen: changed.length > 0 ? Math.max(...changed) : 0, changed };
}

function points(value: number): string {
  const rounded = Math.round(value * 100);
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded)} points`;
}

describe('crow eval --attempts N: best of N with a judge against a single run', function () {
  this.timeout(240_000);
  let server: FakeLlmServer;
  let home: string;
  let out: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-eval-attempts-'));
    out = join(home, 'out');
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('prints both arms, the oracle and the judge accuracy the draws give, and the paired statistics recompute from results.jsonl', async () => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[providers.anthropic.models."claude-sonnet-4-6"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n');
    const judged: string[] = [];
    server.respondWith('anthropic', attemptsSolver(loadTasks(TASKS_DIR, TASKS.join(',')), P, SEED, judged));
    const args = ['eval', '--tasks', TASKS.join(','), '--agents', 'build', '--attempts', String(N), '--concurrency', '3', '--out', out, '--provider', 'anthropic'];
    const run = await runCrow(args, env, home);
    assert.equal(run.code, 0, run.stderr);
    if (process.env.SHOW) console.log(run.stderr, run.stdout);
    assert.match(run.stderr, /3 tasks × build \(each also as 3 attempts judged by judge-attempts\)/);
    assert.match(run.stderr, /\[6\/6\]/);

    // Every run and attempt scored as the draws say; the chosen attempt is the judge's rule's.
    const results = readResults(join(out, 'results.jsonl'));
    assert.equal(results.length, 6);
    const want = Object.fromEntries(TASKS.map((task) => [task, expected(task)]));
    for (const task of TASKS) {
      const single = results.find((r) => r.task === task && r.agent === 'build')!;
      const best = results.find((r) => r.task === task && r.agent === 'build@best-of-3')!;
      assert.equal(single.passed, want[task]!.single, `single run of ${task}`);
      assert.ok(best.bestOf, `${task} has its attempts`);
      assert.deepEqual(best.bestOf.attempts.map((a) => a.passed), want[task]!.attempts, `attempts of ${task}`);
      assert.deepEqual(best.bestOf.attempts.filter((a) => a.files > 0).map((a) => a.n), want[task]!.changed, JSON.stringify(best.bestOf.attempts));
      assert.equal(best.bestOf.chosen, want[task]!.chosen, `the judge's choice on ${task}`);
      assert.equal(best.passed, want[task]!.attempts[want[task]!.chosen - 1], `best of 3 on ${task} is its chosen attempt's check`);
      assert.equal(best.bestOf.judged, want[task]!.changed.length >= 2, `judged only with two attempts to choose between (${task})`);
      // The arm's tokens and cost are its attempts' and its judge's.
      const sum = (u: { input: number; output: number }): number => u.input + u.output;
      assert.equal(sum(best.tokens), best.bestOf.attempts.reduce((total, a) => total + sum(a.tokens), 0) + sum(best.bestOf.judgeTokens));
      for (const arm of [single, best]) assert.ok(Math.abs(arm.costUsd! - (arm.tokens.input * 3 + arm.tokens.output * 15) / 1e6) < 1e-9, `cost of ${arm.agent} on ${task}`);
      for (const n of [1, 2, 3]) {
        const folder = join(out, 'runs', task, 'build@best-of-3', '1', `attempt-${n}`);
        assert.ok(existsSync(join(folder, 'check.log')), `attempt ${n}'s check log`);
        const diff = readFileSync(join(folder, 'diff.patch'), 'utf8');
        assert.equal(diff === '', !want[task]!.changed.includes(n), `attempt ${n}'s diff of ${task}: ${diff}`);
        assert.doesNotMatch(diff, /\.git\b/, 'the worktree\'s .git file is not the attempt\'s work');
      }
      // The run's own diff is its chosen attempt's.
      assert.equal(readFileSync(join(out, best.artifacts!.diff), 'utf8'), readFileSync(join(out, 'runs', task, 'build@best-of-3', '1', `attempt-${best.bestOf.chosen || 1}`, 'diff.patch'), 'utf8'));
    }
    // The draws give a case of each kind: the judge missing a passing attempt (leap year), a lone changer chosen without judging (clamp).
    assert.equal(want['js-leap-year']!.attempts.some(Boolean) && !want['js-leap-year']!.attempts[want['js-leap-year']!.chosen - 1], true);
    assert.equal(want['js-clamp']!.changed.length, 1);
    assert.equal(judged.length, TASKS.filter((task) => want[task]!.changed.length >= 2).length, 'the judge ran where there was a choice');
    for (const shown of judged) for (const n of [1, 2, 3]) assert.match(shown, new RegExp(`<attempt n=\\\\"${n}\\\\">`));
    assert.ok(!server.requests.some((request) => JSON.stringify(request.body).includes('hidden_test')), 'no run, attempt or judge saw the hidden check');

    // The printed comparison, recomputed from the per-task results in the out folder.
    const ordered = [...TASKS].sort();
    const passedOf = (agent: string, task: string): boolean => results.find((r) => r.task === task && r.agent === agent)!.passed;
    const onlyBest = ordered.filter((task) => passedOf('build@best-of-3', task) && !passedOf('build', task)).length;
    const onlySingle = ordered.filter((task) => !passedOf('build@best-of-3', task) && passedOf('build', task)).length;
    const differences = ordered.map((task) => Number(passedOf('build@best-of-3', task)) - Number(passedOf('build', task)));
    const discordant = onlyBest + onlySingle;
    let tail = 0;
    for (let i = 0, choose = 1; i <= Math.min(onlyBest, onlySingle); choose = (choose * (discordant - i)) / (i + 1), i++) tail += choose;
    const p = Math.min(1, (2 * tail) / 2 ** discordant);
    assert.equal(p, mcnemarExact(onlyBest, onlySingle));
    const interval = pairedBootstrap(differences, SEED);
    const difference = differences.reduce((a, b) => a + b, 0) / differences.length;
    assert.ok(
      run.stdout.includes(
        `- build@best-of-3 − build: ${points(difference)} (95% paired bootstrap ${points(interval.low)} to ${points(interval.high)}) over 3 shared tasks · ` +
          `exact McNemar p = ${p.toFixed(3)} (solved only by build@best-of-3: ${onlyBest}; only by build: ${onlySingle})`,
      ),
      run.stdout,
    );
    const solved = (agent: string): number => results.filter((r) => r.agent === agent && r.passed).length;
    const oracle = results.filter((r) => r.bestOf?.attempts.some((a) => a.passed)).length;
    assert.match(run.stdout, /## Best of 3 against one attempt: build/);
    assert.ok(run.stdout.includes(`| solved | ${solved('build')}/3 | ${solved('build@best-of-3')}/3 | ${oracle}/3 |`), run.stdout);
    const total = (agent: string): string => `$${results.filter((r) => r.agent === agent).reduce((sum, r) => sum + r.costUsd!, 0).toFixed(4)}`;
    assert.ok(run.stdout.includes(`| total cost | ${total('build')} | ${total('build@best-of-3')} | — |`), run.stdout);
    const picked = results.filter((r) => r.bestOf?.attempts.some((a) => a.passed) && r.passed).length;
    assert.ok(run.stdout.includes(`- Judge accuracy: picked a passing attempt in ${picked} of the ${oracle} runs where one passed (${Math.round((picked / oracle) * 100)}%); its ranking was used in ${judged.length} of 3 runs`), run.stdout);
    // With these draws: single 2/3, best of 3 2/3, oracle 3/3, the judge right in 2 of 3.
    assert.deepEqual([solved('build'), solved('build@best-of-3'), oracle, picked], [2, 2, 3, 2]);

    // The reports in the out folder: the same markdown, and the page carrying the two arms side by side.
    assert.equal(readFileSync(join(out, 'report.md'), 'utf8'), run.stdout);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    assert.match(html, /id="best-of-section"/);
    assert.match(html, /"bestOf":\[\{"agent":"build","label":"build@best-of-3","count":3,"judge":"judge-attempts"/);

    // crow eval merge keeps the best-of arm in its report.
    const merged = await runCrow(['eval', 'merge', '--out', join(home, 'merged'), out], env, home);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, /## Best of 3 against one attempt: build/);

    // Run again: everything is in the results, nothing is asked of the model; with another N, refused.
    const calls = server.requests.length;
    const again = await runCrow(args, env, home);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /6 already in the results \(resuming\)/);
    assert.equal(server.requests.length, calls);
    const other = await runCrow([...args.slice(0, 6), '2', ...args.slice(7)], env, home);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /attempts: \{"count":3,"judge":"judge-attempts"\} then, \{"count":2,"judge":"judge-attempts"\} now/);
  });

  it('shares the token budget: a budget one run fits in stops every attempt, and the best-of run fails', async () => {
    const tasks = loadTasks(TASKS_DIR, 'js-clamp');
    // Every run and attempt would fix the task; a single run takes about 13,600 tokens.
    server.respondWith('anthropic', attemptsSolver(tasks, 1, SEED));
    const run = await runCrow(['eval', '--tasks', 'js-clamp', '--agents', 'build', '--attempts', '3', '--budget-tokens', '20000', '--out', out, '--provider', 'anthropic'], env, home);
    assert.equal(run.code, 0, run.stderr);
    const results = readResults(join(out, 'results.jsonl'));
    const single = results.find((r) => r.agent === 'build')!;
    const best = results.find((r) => r.agent === 'build@best-of-3')!;
    assert.equal(single.passed, true);
    assert.equal(best.passed, false);
    assert.equal(best.ended, 'budget');
    // Each attempt had a quarter of the 20,000 tokens (the judge the last quarter): every one was stopped before its fix.
    assert.deepEqual(best.bestOf!.attempts.map((a) => [a.ended, a.files, a.passed]), [['budget', 0, false], ['budget', 0, false], ['budget', 0, false]]);
    for (const attempt of best.bestOf!.attempts) assert.ok(attempt.tokens.input + attempt.tokens.output <= 20_000 / 4 + 2_000, `attempt ${attempt.n} used ${attempt.tokens.input + attempt.tokens.output}`);
    assert.match(run.stdout, /\| solved \| 1\/1 \| 0\/1 \| 0\/1 \|/);
    assert.match(run.stdout, /Judge accuracy: no run had a passing attempt; its ranking was used in 0 of 1 runs/);
  });

  it('gives the arm the run\'s wall-clock budget: an attempt that hangs stops the arm at --budget-seconds, and it fails', async () => {
    const solver = attemptsSolver(loadTasks(TASKS_DIR, 'js-clamp'), 1, SEED);
    // Attempt 2's model never answers; the single run and the other attempts fix the task.
    server.respondWith('anthropic', (body) => (askerOf(body) === 2 ? { blocks: [{ type: 'text', text: 'never sent' }], fault: { kind: 'stall_before_first_byte' } } : solver(body)));
    const started = Date.now();
    const run = await runCrow(['eval', '--tasks', 'js-clamp', '--agents', 'build', '--attempts', '3', '--concurrency', '3', '--budget-seconds', '3', '--out', out, '--provider', 'anthropic'], env, home);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(Date.now() - started < 60_000, 'the hanging attempt did not hold the evaluation');
    const results = readResults(join(out, 'results.jsonl'));
    assert.equal(results.find((r) => r.agent === 'build')!.passed, true);
    const best = results.find((r) => r.agent === 'build@best-of-3')!;
    assert.deepEqual([best.passed, best.ended, best.reason], [false, 'timeout', 'stopped: over the budget of 3 s']);
    assert.ok(best.wallMs >= 3_000, `${best.wallMs} ms`);
    assert.equal(best.bestOf!.attempts.find((a) => a.n === 2)!.ended, 'cancelled');
    assert.equal(best.bestOf!.judged, false, 'no judge after the time ran out');
  });

  it('refuses fewer than two attempts, --judge alone, an unknown judge, --attempts without git, with --shard, a container backend or crow eval k8s', async () => {
    const refused = async (args: string[], message: RegExp): Promise<void> => {
      const run = await runCrow(['eval', '--tasks', 'js-clamp', '--provider', 'anthropic', '--out', out, ...args], env, home);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
    };
    await refused(['--attempts', '1'], /--attempts must be from 2 to 8, got 1: one attempt is the single run it is compared with\./);
    await refused(['--attempts', '9'], /--attempts must be from 2 to 8, got 9/);
    await refused(['--attempts', 'two'], /--attempts must be a positive integer, got "two"/);
    await refused(['--judge', 'judge-attempts'], /--judge goes with --attempts N/);
    await refused(['--attempts', '3', '--judge', 'jduge-attempts'], /Unknown judge "jduge-attempts" \(did you mean "judge-attempts"\?\)/);
    await refused(['--attempts', '3', '--shard', '0/2'], /--attempts does not go with --shard/);
    await refused(['--attempts', '3', '--backend', 'podman', '--image', 'crow-eval'], /--attempts runs each attempt in a git worktree of a local copy.*use --backend local/);
    const noGit = join(home, 'empty-path');
    mkdirSync(noGit);
    const withoutGit = await runCrow(['eval', '--tasks', 'js-clamp', '--provider', 'anthropic', '--out', out, '--attempts', '3'], { ...env, PATH: noGit }, home);
    assert.equal(withoutGit.code, 2, withoutGit.stderr);
    assert.match(withoutGit.stderr, /--attempts needs git on PATH/);
    const k8s = await runCrow(['eval', 'k8s', '--image', 'crow-eval', '--shards', '2', '--attempts', '3'], env, home);
    assert.equal(k8s.code, 2);
    assert.match(k8s.stderr, /crow eval k8s does not run --attempts/);
    assert.equal(server.requests.length, 0, 'no model was asked');
    assert.ok(!existsSync(join(out, 'results.jsonl')), 'nothing was written');
  });

});
