import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pickableAgents } from '../../agents/assemble';
import { JUDGE_AGENT } from '../../attempts/judge';
import { AgentRegistry } from '../../config/agent-registry';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { dataHome } from '../../config/paths';
import { missingDefaultKey, resolveSettings } from '../../config/provider-config';
import { ConfigError } from '../../config/settings';
import { ContainerError, CONTAINER_ENGINES, type ContainerBackend } from '../../eval/container-workspace';
import { withoutSecrets } from '../../config/secret-variables';
import { bestOfLabel } from '../../eval/eval-best-of';
import { childProcess } from '../../vocabulary/first-use';
import { type EvalProgress, ManifestMismatchError, RESULTS_FILE, runEval } from '../../eval/eval-runner';
import { type EvalTask, EvalTaskError, loadSuite } from '../../eval/eval-task';
import { count, duration } from '../../telemetry/readable';
import { commandArgs, noPositionals, positiveInteger } from './cli-args';
import { STOP_EXIT_CODES, type StopSignal, UsageError, type CliIO } from './cli-io';
import { roleDefaults } from './role-flags';
import { styleFor } from './terminal-style';
import { EVAL_OPTIONS, parseShard, writeReports } from './eval-options';

export const EVAL_HELP = `Usage: crow eval [options]
       crow eval merge --out DIR FOLDER…
       crow eval k8s --image NAME --shards N [--parallelism P] [eval options]

Measures agents against each other on a suite of small coding tasks, on your
own models: every task × agent × repeat runs in a fresh temporary copy of the
task's project with its own stored session (crow trace opens it); then files
the agent never saw are copied in and the task's hidden check decides pass or
fail. Results are appended to DIR/results.jsonl as they come, after a
manifest of what they are made with (crow version and commit, provider,
model, each agent's definition and role models, each task's hash, budget,
backend, seed). Running the same command again resumes an evaluation that
was stopped (Ctrl-C keeps what finished); a rerun that differs in any of
those is refused rather than mixed with the old results. Each run keeps its
diff and its check output under DIR/runs/. The report (success rate with a
95% interval counting each task once, pass@k and pass^k over --repeat, cost,
time and tokens, per category, per task, solved by one agent and not another
with a paired test, failed runs with their trace) is printed as markdown and
written to DIR/report.md and DIR/report.html (charts and every run's diff and
check log, one self-contained file).

Options:
  --agents LIST          agents to compare (default: build,build-verified,pair)
  --tasks GLOB           task names, comma-separated, * and ? allowed (default: all)
  --tasks-dir DIR        the suite (default: the eval/tasks shipped with crow)
  --strict               stop when any task file is broken (default: report it, run the rest)
  --repeat N             runs per task and agent (default 1)
  --concurrency N        runs at once (default 2)
  --provider NAME        the provider (default: as for crow run)
  --model NAME           the model (default: as for crow run)
  --reviewer-model M     the reviewer's model, for agents with one
  --reviewer-provider P  the reviewer's provider
  --role-model ROLE=[PROVIDER/]MODEL   as for crow run; repeatable
  --budget-tokens N      tokens one run may use before it is stopped (default 300000)
  --budget-seconds N     wall-clock time of one run (default 600)
  --seed N               orders the shards and seeds the report's bootstrap (default 1)
  --shard I/N            run only slice I of N (0 ≤ I < N) of the runs; merge the slices after
  --backend B            local (default: the local sandbox), podman or docker
  --image NAME           the container image each run starts fresh from (with --backend)
  --out DIR              where results and reports go (default: ./crow-eval)
  --attempts N           also run each task as N attempts (2 to 8) side by side,
                         each in its own git worktree, ranked by a judge: the
                         best-of arm AGENT@best-of-N, compared with the single
                         run on the same tasks and token budget (see below)
  --judge AGENT          with --attempts: the agent that ranks the attempts
                         (default judge-attempts, one judge for every agent
                         compared; crow run's default is the agent's reviewer)
  -h, --help             show this help

With --attempts N, every task × agent × repeat runs twice: once as a single
run, once as N attempts whose judge's first choice is checked. The attempts
and the judge share the run's --budget-tokens in N+1 equal parts, and the
arm as a whole has --budget-seconds; the attempts of one run go at most
--concurrency at once. Every attempt's worktree is checked too, for two
more figures: the oracle (any attempt passed: the ceiling of a perfect
judge) and the judge's accuracy (it picked a passing attempt when one
existed). The report adds the two arms side by side with the paired test.
Not with --shard or a container --backend.

crow eval merge --out DIR FOLDER… combines evaluation folders (the shards of
one evaluation) into DIR with one report; folders made with other settings,
or holding the same run twice, are refused.

crow eval k8s writes a Kubernetes Indexed Job (YAML, to stdout or --file)
whose pods each run one shard (--shard $JOB_COMPLETION_INDEX/N) with the
options given and print its results to their log; crow eval k8s collect
gathers them into one report. See crow eval k8s --help.

Runs call the model for real: writes and commands are allowed inside the
temporary copy (sandboxed where bubblewrap is available, or in the run's
container), network is not. What it costs: with the scripted solver of the
test suite (npm run bench) a task takes a median of 4 model calls and about
12k input tokens for build, 6 calls and 16-19k tokens for build-verified and
pair (their reviewer reads the work too). A real model explores and writes
more: expect 20-60k tokens per task and agent, so the 16 shipped tasks × 3
agents come to roughly 1-3 million tokens, a few dollars at $3 per million
input tokens. Try --tasks js-clamp --agents build first.

Exit codes: 0 finished, 1 error, 2 bad usage, 130 stopped (Ctrl-C; run the
same command again to resume).`;

const DEFAULT_AGENTS = ['build', 'build-verified', 'pair'];
/** As for crow run --attempts. */
const MAX_ATTEMPTS = 8;

export async function evalCommand(argv: string[], io: CliIO): Promise<number> {
  const subcommands = (): typeof import('./eval-subcommands') => require('./eval-subcommands') as typeof import('./eval-subcommands');
  if (argv[0] === 'merge') return subcommands().mergeCommand(argv.slice(1), io);
  if (argv[0] === 'k8s') return (require('./eval-k8s-command') as typeof import('./eval-k8s-command')).k8sCommand(argv.slice(1), io, evalCommand);
  const { values, positionals } = commandArgs('eval', argv, { ...EVAL_OPTIONS, shard: { type: 'string' }, out: { type: 'string' }, attempts: { type: 'string' }, judge: { type: 'string' } });
  if (values.help) {
    io.stdout.write(`${EVAL_HELP}\n`);
    return 0;
  }
  noPositionals('eval', positionals);
  const agents = (values.agents ?? DEFAULT_AGENTS.join(',')).split(',').map((agent) => agent.trim()).filter(Boolean);
  checkAgents(agents, io);
  const tasks = loadEvalTasks(values, io);
  const overrides = {
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
  };
  // Every flag is checked before anything is read or asked of a provider.
  const repeat = positiveInteger('--repeat', values.repeat, 1);
  const concurrency = positiveInteger('--concurrency', values.concurrency, 2);
  const budget = { tokens: positiveInteger('--budget-tokens', values['budget-tokens'], 300_000), wallMs: positiveInteger('--budget-seconds', values['budget-seconds'], 600) * 1000 };
  const seed = positiveInteger('--seed', values.seed, 1);
  const shard = values.shard !== undefined ? parseShard(values.shard) : undefined;
  const container = containerBackend(values.backend, values.image);
  const attempts = attemptsChoice(values, { shard: shard !== undefined, container: container !== undefined }, io);
  const roles = roleDefaults(values['role-model'] ?? [], values['reviewer-model'], values['reviewer-provider']);
  const settings = resolveSettings(io.cwd, overrides, io.env, { trusted: false });
  const missing = missingDefaultKey(settings, io.env);
  if (missing.length > 0) throw new ConfigError(`crow eval calls ${settings.provider} for real: set ${missing.join(' or ')} (or pick another --provider).`);
  const out = resolve(io.cwd, values.out ?? 'crow-eval');
  const style = styleFor(io.stderr, io.env);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const stopListening = io.onInterrupt((signal) => {
    stoppedBy = signal;
    io.stderr.write('\nStopping the runs under way; finished ones are kept (run the same command again to resume)…\n');
    controller.abort();
  });
  try {
    const where = container ? ` in ${container.engine} containers of ${container.image}` : '';
    const arms = attempts ? `${agents.join(', ')} (each also as ${attempts.count} attempts judged by ${attempts.judge})` : agents.join(', ');
    io.stderr.write(`crow eval: ${tasks.length} tasks × ${arms} on ${settings.provider}/${settings.model}${where} → ${out}\n`);
    let outcome;
    try {
      outcome = await runEval({
        tasks,
        agents,
        repeat,
        concurrency,
        env: io.env,
        dataHome: dataHome(io.env),
        overrides,
        roles,
        budget,
        seed,
        ...(shard ? { shard } : {}),
        ...(container ? { container } : {}),
        ...(attempts ? { attempts } : {}),
        out,
        signal: controller.signal,
        onProgress: (progress) => io.stderr.write(progressLine(progress, style)),
      });
    } catch (err) {
      if (err instanceof ManifestMismatchError || err instanceof ContainerError) throw new UsageError(err.message);
      throw err;
    }
    const note = outcome.unfinished > 0 ? `${outcome.unfinished} run${outcome.unfinished === 1 ? '' : 's'} did not finish: run the same command again to resume.` : undefined;
    const reported = attempts ? agents.flatMap((agent) => [agent, bestOfLabel(agent, attempts.count)]) : agents;
    const markdown = writeReports(out, outcome.results, reported, { manifest: outcome.manifest, ...(note ? { note } : {}) });
    io.stdout.write(markdown);
    io.stderr.write(`\nResults: ${join(out, RESULTS_FILE)}\nReport: ${join(out, 'report.md')} and ${join(out, 'report.html')} (open it in a browser)\n`);
    if (note) io.stderr.write(`${note}\n`);
    return stoppedBy ? STOP_EXIT_CODES[stoppedBy] : 0;
  } finally {
    stopListening();
  }
}

/** The tasks to run: all that load, each broken one reported (or, with --strict, every broken one and a stop). */
function loadEvalTasks(values: { tasks?: string; 'tasks-dir'?: string; strict?: boolean }, io: CliIO): EvalTask[] {
  const tasksDir = values['tasks-dir'] !== undefined ? resolve(io.cwd, values['tasks-dir']) : shippedTasks();
  let suite;
  try {
    suite = loadSuite(tasksDir, values.tasks);
  } catch (err) {
    if (err instanceof EvalTaskError) throw new UsageError(err.message);
    throw err;
  }
  if (suite.problems.length === 0) return suite.tasks;
  const listed = suite.problems.map((problem) => `  - ${problem}`).join('\n');
  if (values.strict) throw new UsageError(`${suite.problems.length} task file${suite.problems.length === 1 ? ' is' : 's are'} broken (--strict stops on any):\n${listed}\nFix them, or run without --strict to run the valid tasks.`);
  if (suite.tasks.length === 0) throw new UsageError(`No task could be loaded:\n${listed}`);
  io.stderr.write(`crow eval: skipping ${suite.problems.length} broken task file${suite.problems.length === 1 ? '' : 's'} (fix them, or pass --strict to stop on them):\n${listed}\n`);
  return suite.tasks;
}

/** --attempts N and its --judge, checked; undefined without --attempts. */
function attemptsChoice(values: { attempts?: string; judge?: string }, others: { shard: boolean; container: boolean }, io: CliIO): { count: number; judge: string } | undefined {
  if (values.attempts === undefined) {
    if (values.judge !== undefined) throw new UsageError('--judge goes with --attempts N: it names the agent that ranks the attempts.');
    return undefined;
  }
  const count = positiveInteger('--attempts', values.attempts);
  if (count < 2 || count > MAX_ATTEMPTS) throw new UsageError(`--attempts must be from 2 to ${MAX_ATTEMPTS}, got ${count}: one attempt is the single run it is compared with.`);
  if (others.shard) throw new UsageError('--attempts does not go with --shard: run the comparison in one place (crow eval k8s and crow eval merge do not carry attempts).');
  if (others.container) throw new UsageError('--attempts runs each attempt in a git worktree of a local copy, which a container backend does not have: use --backend local (the default).');
  const judge = values.judge ?? JUDGE_AGENT;
  if (judge.trim() === '') throw new UsageError(`--judge needs an agent, e.g. --judge ${JUDGE_AGENT}.`);
  checkJudge(judge, io);
  if (childProcess().spawnSync('git', ['--version'], { stdio: 'ignore', env: withoutSecrets(io.env) }).status !== 0) {
    throw new UsageError('--attempts needs git on PATH: each task copy becomes a repository whose worktrees hold the attempts. Install git, then run again.');
  }
  return { count, judge };
}

/** The judge is an agent a run can open: any the registry knows (judge-attempts is one no person picks for a task). */
function checkJudge(judge: string, io: CliIO): void {
  const { registry } = AgentRegistry.load(tmpdir(), io.env, { trusted: false });
  const known = registry.acpAgents().map((agent) => agent.name);
  if (known.includes(registry.named(judge))) return;
  const guess = didYouMean(judge, known);
  throw new UsageError(`Unknown judge "${judge}"${guess ? ` (did you mean "${guess}"?)` : ''}. Agents: ${known.join(', ')}.`);
}

function containerBackend(backend: string | undefined, image: string | undefined): ContainerBackend | undefined {
  if (backend === undefined || backend === 'local') {
    if (image !== undefined) throw new UsageError('--image needs --backend podman or --backend docker.');
    return undefined;
  }
  if (!(CONTAINER_ENGINES as readonly string[]).includes(backend)) throw new UsageError(`--backend must be local, podman or docker, got "${backend}".`);
  if (image === undefined) throw new UsageError(`--backend ${backend} needs --image NAME: the image each run starts a fresh container from (see eval/container/ for one built from Debian packages).`);
  return { engine: backend as ContainerBackend['engine'], image };
}

function progressLine(progress: EvalProgress, style: ReturnType<typeof styleFor>): string {
  switch (progress.kind) {
    case 'planned': {
      const skipped = progress.skipped.map((skip) => `crow eval: skipping ${skip.task}: ${skip.reason}\n`).join('');
      const resumed = progress.resumed > 0 ? `, ${progress.resumed} already in the results (resuming)` : '';
      const shard = progress.shard ? ` (shard ${progress.shard.index}/${progress.shard.count} of ${progress.shard.of})` : '';
      return `${skipped}crow eval: ${progress.total} runs${shard}${resumed}\n`;
    }
    case 'started':
      return style.dim(`  … ${progress.task} · ${progress.agent} #${progress.repeat}\n`);
    case 'finished': {
      const { result } = progress;
      const mark = result.passed ? style.green('✓') : style.red('✗');
      const tokens = result.tokens.input + result.tokens.output + result.tokens.cacheRead + result.tokens.cacheWrite;
      const why = result.passed ? '' : style.dim(` — ${result.ended}${result.reason ? `: ${result.reason}` : ''}`);
      return `[${progress.done}/${progress.total}] ${mark} ${result.task} · ${result.agent} #${result.repeat} · ${duration(result.wallMs)} · ${count(tokens)} tokens${why}\n`;
    }
  }
}

/** Every agent named is one a run can use (the built-in ones and the user's; a task's temp copy has no project agents). */
export function checkAgents(agents: readonly string[], io: CliIO): void {
  const { registry } = AgentRegistry.load(tmpdir(), io.env, { trusted: false });
  const known = pickableAgents(registry).map((agent) => agent.name);
  if (agents.length === 0) throw new UsageError(`--agents needs at least one agent: ${known.join(', ')}.`);
  for (const agent of agents) {
    if (known.includes(registry.named(agent))) continue;
    const guess = didYouMean(agent, known);
    throw new UsageError(`Unknown agent "${agent}"${guess ? ` (did you mean "${guess}"?)` : ''}. Agents: ${known.join(', ')}.`);
  }
}

/** The task suite shipped next to the binary (dist/crow.js → eval/tasks) or in the repository. */
export function shippedTasks(): string {
  const candidates = [join(__dirname, '..', 'eval', 'tasks'), join(__dirname, '..', '..', '..', 'eval', 'tasks')];
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}
