/**
 * `crow run --attempts N` through the binary: three attempts of the build
 * agent on the same prompt, each in its own git worktree, the scripted
 * model making them differ (one fails its check, two pass with different
 * changes); the judge's ranking; the best applied to the person's working
 * tree and taken back by `crow undo`; the worktrees gone afterwards.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { isolatedEnv } from '../support/isolated-env';
import { JUDGE_SAYS, ORIGINAL, REVIEWER_SAYS, WRITES, git, greeterRepository, scriptAttempts } from '../support/attempts-fixture';
import { CROW, runCrow } from '../support/crow-binary';
import { describeUnless } from '../support/skip-reasons';
import { NO_TMUX, Terminal } from '../support/terminal';

describe('crow run --attempts: parallel attempts in git worktrees, judged, applied and undone', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let home: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let judged: string[];

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-attempts-'));
    repo = join(home, 'project');
    greeterRepository(repo, { 'README.md': '# Greeter\n' });
    // Uncommitted work the attempts must start from: a changed file and an untracked one (the check itself).
    writeFileSync(join(repo, 'README.md'), '# Greeter\n\nSays hello.\n');
    writeFileSync(join(repo, 'check.js'), "if (require('./greet.js')() !== 'hello') { console.log('wrong greeting'); process.exit(1); }\n");
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    judged = [];
    scriptAttempts(
      server,
      'Here is my ranking.\n```json\n{"ranking": [{"attempt": 3, "reason": "Correct, and documents the function."}, {"attempt": 2, "reason": "Wrong word."}, {"attempt": 1, "reason": "Correct but bare."}]}\n```',
      judged,
    );
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('runs three attempts from the working tree as it is, ranks the failed check last, applies the best, and crow undo takes it back', async () => {
    const run = await runCrow(['run', '--attempts', '3', '--concurrency', '3', '--check', 'node check.js', '--apply-best', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(run.code, 0, run.stderr);
    if (process.env.SHOW) console.log(run.stderr, run.stdout);

    // Each attempt started from the uncommitted work: the untracked check.js ran in every worktree, and judged each.
    assert.match(run.stderr, /attempt 1: check passed/);
    assert.match(run.stderr, /attempt 2: check FAILED/);
    assert.match(run.stderr, /attempt 3: check passed/);
    // The judge saw every attempt's diff and check.
    assert.equal(judged.length, 1);
    for (const n of [1, 2, 3]) assert.match(judged[0]!, new RegExp(`<attempt n=\\\\"${n}\\\\">`));
    assert.match(judged[0]!, /wrong greeting/);

    // The table: ranked by the judge, but the failed check last whatever the judge said.
    const table = run.stdout.trim().split('\n');
    assert.match(table[0]!, /^Attempts, best first, ranked by the judge/);
    const ranks = table.slice(2).map((row) => row.split(/\s{2,}/));
    assert.deepEqual(ranks.map((row) => [row[0], row[1], row[3]]), [['1', '3', 'passed'], ['2', '1', 'passed'], ['3', '2', 'FAILED']]);
    assert.match(table[2]!, /Correct, and documents the function\./);

    // The best is applied to the person's files, their own uncommitted work kept.
    assert.match(run.stderr, /Applied attempt 3: 1 file changed\. Undo with crow undo\./);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[3]);
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), '# Greeter\n\nSays hello.\n');
    // No worktree is left, in git's list or on disk; HEAD and the index are as they were.
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length, 1);
    const attemptsFolder = join(repo, '.git', 'crow-attempts');
    assert.ok(!existsSync(attemptsFolder) || readdirSync(attemptsFolder).length === 0);
    assert.equal(git(repo, 'log', '--oneline').split('\n').length, 1);
    assert.deepEqual(git(repo, 'status', '--porcelain').split('\n').map((line) => line.trim()), ['M README.md', 'M greet.js', '?? check.js']);

    const undo = await runCrow(['undo', '--yes'], env, repo);
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), '# Greeter\n\nSays hello.\n');
  });

  it("is judged by the agent's own reviewer when its flow has one, with the judge's read-only tools; --judge still wins", async () => {
    const systems: string[] = [];
    scriptAttempts(server, '{"ranking": [{"attempt": 2, "reason": "Reviewed: fine."}, {"attempt": 1, "reason": "Reviewed: bare."}]}', judged, systems);
    const run = await runCrow(['run', '--attempts', '2', '--concurrency', '2', '--agent', 'pair', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(run.code, 0, run.stderr);
    // pair reviews with "reviewer": its system prompt (prompts/reviewer.hbs), in the person's folder, judged.
    assert.equal(systems.length, 1);
    assert.ok(systems[0]!.includes(REVIEWER_SAYS) && !systems[0]!.includes(JUDGE_SAYS), systems[0]);
    assert.ok(systems[0]!.includes(`Workspace root: ${repo}`), "the judge works in the person's folder");
    const judgeRequest = server.requests.find((request) => JSON.stringify(request.body['system']) === systems[0]);
    const tools = (judgeRequest!.body['tools'] as { name: string }[]).map((tool) => tool.name).sort();
    assert.deepEqual(tools, ['glob', 'grep', 'list_directory', 'read_file', 'think'], "judge-attempts' read-only tools, none that writes or runs");
    assert.match(judged[0]!, /Answer with one JSON object/, "the judge's task is the ranking request");
    assert.match(run.stdout, /^Attempts, best first, ranked by the judge, the agent's reviewer \(reviewer\)/);

    systems.length = 0;
    const named = await runCrow(['run', '--attempts', '2', '--concurrency', '2', '--agent', 'pair', '--judge', 'judge-attempts', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(named.code, 0, named.stderr);
    assert.ok(systems[0]!.includes(JUDGE_SAYS) && !systems[0]!.includes(REVIEWER_SAYS), '--judge names the judge');
    assert.match(named.stdout, /ranked by the judge, judge-attempts/);
  });

  it("ranks by checks, then cost, saying so, when the agent's reviewer answers no ranking it can read", async () => {
    scriptAttempts(server, 'Both attempts look fine to me.');
    const run = await runCrow(['run', '--attempts', '2', '--concurrency', '2', '--agent', 'pair', '--check', 'node check.js', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Attempts, best first, not judged \(the agent's reviewer \(reviewer\) gave no ranking Crow could read\): ranked by checks, then cost/);
    const ranks = run.stdout.trim().split('\n').slice(2).map((row) => row.split(/\s{2,}/));
    assert.deepEqual(ranks.map((row) => [row[1], row[3]]), [['1', 'passed'], ['2', 'FAILED']], 'the failed check last');
  });

  it('applies nothing without a terminal or --apply-best, and says how to pick one', async () => {
    const run = await runCrow(['run', '--attempts', '2', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(run.code, 0, run.stderr);
    // Without --concurrency, as many at once as the provider takes subagents: a server on loopback, one.
    assert.match(run.stderr, /Running 2 attempts of the default agent, 1 at a time/);
    assert.match(run.stderr, /Nothing applied: pick an attempt on a terminal, or pass --apply-best/);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
  });

  it('refuses, saying what to do, outside a git repository, below its top folder, and with flags that do not go together', async () => {
    const plain = join(home, 'plain');
    mkdirSync(plain);
    const outside = await runCrow(['run', '--attempts', '2', '--provider', 'anthropic', 'x'], env, plain);
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /is not in a git repository: attempts run in git worktrees\. Run git init and commit once/);

    mkdirSync(join(repo, 'sub'));
    const below = await runCrow(['run', '--attempts', '2', '--provider', 'anthropic', 'x'], env, join(repo, 'sub'));
    assert.equal(below.code, 2);
    assert.match(below.stderr, /Attempts run from the top folder of the repository/);

    const one = await runCrow(['run', '--attempts', '1', 'x'], env, repo);
    assert.match(one.stderr, /--attempts must be from 2 to 8, got 1\./);
    const lone = await runCrow(['run', '--check', 'npm test', 'x'], env, repo);
    assert.match(lone.stderr, /--check goes with --attempts N\./);
    const resumed = await runCrow(['run', '--attempts', '2', '--continue', 'x'], env, repo);
    assert.match(resumed.stderr, /--attempts starts new sessions/);
    assert.equal(server.requests.length, 0, 'no model was asked');
  });
  it("shares the folder's [limits] among the attempts and the judge, so together they stay within them", async () => {
    // Each attempt reads about 3,300 tokens per model call: 20,000 in all lets each of 3 attempts and the judge 5,000, one call.
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[limits]\nmax_tokens_per_prompt = 20000\n\n[limits.concurrency]\nanthropic = 3\n');
    const run = await runCrow(['run', '--attempts', '3', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Running 3 attempts of the default agent, 3 at a time/, "[limits] concurrency decides how many at once");
    for (const n of [1, 2, 3]) assert.match(run.stderr, new RegExp(`attempt ${n}: stopped by a limit, 1 file changed`));
  });

  it('removes the worktrees of a run whose process was killed before it could, and leaves a live one alone', async () => {
    const base = git(repo, 'rev-parse', 'HEAD');
    const abandoned = join(repo, '.git', 'crow-attempts', 'lx0abc-999999', '1');
    git(repo, 'worktree', 'add', '--detach', '--quiet', abandoned, base);
    const live = join(repo, '.git', 'crow-attempts', `lx0abc-${process.pid}`);
    mkdirSync(live, { recursive: true });
    const run = await runCrow(['run', '--attempts', '2', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!existsSync(abandoned), 'the abandoned worktree is gone');
    assert.ok(!git(repo, 'worktree', 'list', '--porcelain').includes('lx0abc-999999'));
    assert.ok(existsSync(live), "a running process's folder is left");
  });

  describeUnless(NO_TMUX, 'on a terminal', () => {
    it('asks which attempt to apply, says so when the answer is not one of them, and applies the one typed', async () => {
      const terminal = Terminal.start([process.execPath, CROW, 'run', '--attempts', '2', '--provider', 'anthropic', 'Make greet.js say hello'], { cwd: repo, env });
      try {
        await terminal.waitFor(/Apply which attempt\? \d, \d \(Enter: none\)/, 60_000);
        terminal.typeLine('7');
        await terminal.waitFor(/"7" is not one of/);
        terminal.typeLine('2');
        await terminal.waitFor(/Applied attempt 2: 1 file changed\. Undo with crow undo\./, 30_000);
        assert.equal(await terminal.waitForExit(), 0);
        assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[2]);
      } finally {
        terminal.close();
      }
    });
  });
});
