import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pickableAgents } from '../../agents/assemble';
import { AgentRegistry } from '../../config/agent-registry';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { dataHome } from '../../config/paths';
import { missingDefaultKey, resolveSettings } from '../../config/provider-config';
import { ConfigError } from '../../config/settings';
import { htmlReport, markdownReport, reportScript } from '../../eval/eval-report';
import { type EvalProgress, RESULTS_FILE, runEval } from '../../eval/eval-runner';
import { EvalTaskError, loadTasks } from '../../eval/eval-task';
import { count, duration } from '../../telemetry/readable';
import { commandArgs, noPositionals, positiveInteger } from './cli-args';
import { STOP_EXIT_CODES, type StopSignal, UsageError, type CliIO } from './cli-io';
import { roleDefaults } from './role-flags';
import { styleFor } from './terminal-style';

export const EVAL_HELP = `Usage: crow eval [options]

Measures agents against each other on a suite of small coding tasks, on your
own models: every task × agent × repeat runs in a fresh temporary copy of the
task's project with its own stored session (crow trace opens it); then files
the agent never saw are copied in and the task's hidden check decides pass or
fail. Results are appended to DIR/results.jsonl as they come, so running the
same command again resumes an evaluation that was stopped (Ctrl-C keeps what
finished). The report (success rate with a 95% interval, median cost and time,
cost per solved task, per category, per task, solved by one agent and not
another) is printed as markdown and written to DIR/report.md and
DIR/report.html (charts, one self-contained file).

Options:
  --agents LIST          agents to compare (default: build,build-verified,pair)
  --tasks GLOB           task names, comma-separated, * and ? allowed (default: all)
  --tasks-dir DIR        the suite (default: the eval/tasks shipped with crow)
  --repeat N             runs per task and agent (default 1)
  --concurrency N        runs at once (default 2)
  --provider NAME        the provider (default: as for crow run)
  --model NAME           the model (default: as for crow run)
  --reviewer-model M     the reviewer's model, for agents with one
  --reviewer-provider P  the reviewer's provider
  --role-model ROLE=[PROVIDER/]MODEL   as for crow run; repeatable
  --budget-tokens N      tokens one run may use before it is stopped (default 300000)
  --budget-seconds N     wall-clock time of one run (default 600)
  --out DIR              where results and reports go (default: ./crow-eval)
  -h, --help             show this help

Runs call the model for real: writes and commands are allowed inside the
temporary copy (sandboxed where bubblewrap is available), network is not.
What it costs: with the scripted solver of the test suite (npm run bench) a
task takes a median of 4 model calls and about 12k input tokens for build,
6 calls and 16-19k tokens for build-verified and pair (their reviewer reads
the work too). A real model explores and writes more: expect 20-60k tokens
per task and agent, so the 16 shipped tasks × 3 agents come to roughly
1-3 million tokens, a few dollars at $3 per million input tokens. Try
--tasks js-clamp --agents build first.

Exit codes: 0 finished, 1 error, 2 bad usage, 130 stopped (Ctrl-C; run the
same command again to resume).`;

const DEFAULT_AGENTS = ['build', 'build-verified', 'pair'];

export async function evalCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('eval', argv, {
    agents: { type: 'string' },
    tasks: { type: 'string' },
    'tasks-dir': { type: 'string' },
    repeat: { type: 'string' },
    concurrency: { type: 'string' },
    provider: { type: 'string' },
    model: { type: 'string' },
    'reviewer-model': { type: 'string' },
    'reviewer-provider': { type: 'string' },
    'role-model': { type: 'string', multiple: true },
    'budget-tokens': { type: 'string' },
    'budget-seconds': { type: 'string' },
    out: { type: 'string' },
  });
  if (values.help) {
    io.stdout.write(`${EVAL_HELP}\n`);
    return 0;
  }
  noPositionals('eval', positionals);
  const agents = (values.agents ?? DEFAULT_AGENTS.join(',')).split(',').map((agent) => agent.trim()).filter(Boolean);
  checkAgents(agents, io);
  const tasksDir = values['tasks-dir'] !== undefined ? resolve(io.cwd, values['tasks-dir']) : shippedTasks();
  let tasks;
  try {
    tasks = loadTasks(tasksDir, values.tasks);
  } catch (err) {
    if (err instanceof EvalTaskError) throw new UsageError(err.message);
    throw err;
  }
  const overrides = {
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
  };
  // Every flag is checked before anything is read or asked of a provider.
  const repeat = positiveInteger('--repeat', values.repeat, 1);
  const concurrency = positiveInteger('--concurrency', values.concurrency, 2);
  const budget = { tokens: positiveInteger('--budget-tokens', values['budget-tokens'], 300_000), wallMs: positiveInteger('--budget-seconds', values['budget-seconds'], 600) * 1000 };
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
    io.stderr.write(`crow eval: ${tasks.length} tasks × ${agents.join(', ')} on ${settings.provider}/${settings.model} → ${out}\n`);
    const outcome = await runEval({
      tasks,
      agents,
      repeat,
      concurrency,
      env: io.env,
      dataHome: dataHome(io.env),
      overrides,
      roles,
      budget,
      out,
      signal: controller.signal,
      onProgress: (progress) => io.stderr.write(progressLine(progress, style)),
    });
    const markdown = markdownReport(outcome.results, agents);
    writeFileSync(join(out, 'report.md'), markdown, { mode: 0o600 });
    writeFileSync(join(out, 'report.html'), htmlReport(outcome.results, agents, { script: reportScript() }), { mode: 0o600 });
    io.stdout.write(markdown);
    io.stderr.write(`\nResults: ${join(out, RESULTS_FILE)}\nReport: ${join(out, 'report.md')} and ${join(out, 'report.html')} (open it in a browser)\n`);
    if (outcome.unfinished > 0) io.stderr.write(`${outcome.unfinished} runs did not finish: run the same command again to resume.\n`);
    return stoppedBy ? STOP_EXIT_CODES[stoppedBy] : 0;
  } finally {
    stopListening();
  }
}

function progressLine(progress: EvalProgress, style: ReturnType<typeof styleFor>): string {
  switch (progress.kind) {
    case 'planned': {
      const skipped = progress.skipped.map((skip) => `crow eval: skipping ${skip.task}: ${skip.reason}\n`).join('');
      const resumed = progress.resumed > 0 ? `, ${progress.resumed} already in the results (resuming)` : '';
      return `${skipped}crow eval: ${progress.total} runs${resumed}\n`;
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
function checkAgents(agents: readonly string[], io: CliIO): void {
  const known = pickableAgents(AgentRegistry.load(tmpdir(), io.env, { trusted: false }).registry).map((agent) => agent.name);
  if (agents.length === 0) throw new UsageError(`--agents needs at least one agent: ${known.join(', ')}.`);
  for (const agent of agents) {
    if (known.includes(agent)) continue;
    const guess = didYouMean(agent, known);
    throw new UsageError(`Unknown agent "${agent}"${guess ? ` (did you mean "${guess}"?)` : ''}. Agents: ${known.join(', ')}.`);
  }
}

/** The task suite shipped next to the binary (dist/crow.js → eval/tasks) or in the repository. */
function shippedTasks(): string {
  const candidates = [join(__dirname, '..', 'eval', 'tasks'), join(__dirname, '..', '..', '..', 'eval', 'tasks')];
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}
