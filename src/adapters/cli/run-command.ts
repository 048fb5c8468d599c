import { definedOnly } from '../../config/provider-config';
import type { Limits } from '../../config/settings';
import type { RunStatus } from '../../engine/events';
import { HostError } from '../../host/host-error';
import type { HostSession } from '../../host/host-session';
import { commandArgs, positiveInteger, workspaceFolder } from './cli-args';
import { roleDefaults } from './role-flags';
import { STOP_EXIT_CODES, type StopSignal, UsageError, type CliIO } from './cli-io';
import { RunRenderer } from './run-renderer';
import { SteerInput } from './steer-input';
import { openRunSession, type RunChoices } from './run-setup';
import { type AttemptsChoices, runWithAttempts } from './attempts-command';
import { styleFor } from './terminal-style';
import { dataHome } from '../../config/paths';
import { isSessionId } from '../../session/folder-index';
import { recordEnd, startBackground } from './background-runs';
import { AttemptsError, checkAttemptsRoot } from '../../attempts/attempt-trees';

export const RUN_HELP = `Usage: crow run [options] "<prompt>"

Runs the prompt through an agent in a workspace and streams it: the answer
on stdout; thinking, tool calls (a running command's last lines, redrawn in
place on a terminal), reviews, retries and usage on stderr.
The prompt may also come on stdin (echo "..." | crow run -), and may be a
slash command such as "/review" (see crow agents list). On a terminal, a
line typed while it works is queued for the agents' next step (after the
tool calls running then), or sent as the next prompt if the run ends first.

Options:
  --agent NAME         the agent to run (default: default_agent, else build);
                       crow agents list shows them all
  --session ID         continue a stored session (crow sessions list)
  --continue           continue the newest session of this folder
  --cwd DIR            workspace root (default: the current folder)
  --provider NAME      default provider (default: $CROW_PROVIDER, config, anthropic)
  --model NAME         default model (default: $CROW_MODEL, config, provider default)
  --base-url URL       the default provider's base URL, e.g. http://localhost:11434/v1
  --reviewer-model M   the reviewing coagent's model (agents with a reviewer)
  --reviewer-provider P  the reviewer's provider (its default model unless
                       --reviewer-model names one)
  --role-model ROLE=[PROVIDER/]MODEL
                       a role's model (and provider): primary or reviewer;
                       repeatable, e.g. --role-model reviewer=openai/gpt-5.4
  --max-iterations N   model calls allowed per agent turn (default 50)
  --max-cost USD       stop before a model call once the prompt cost this
                       much (limits.max_cost_per_prompt; needs model prices)
  --max-session-cost USD  the same for the whole session, earlier prompts
                       included (limits.max_cost_per_session)
  --max-tokens N       stop before a model call once the prompt used this
                       many tokens, subagents included (limits.max_tokens_per_prompt)
  --allow LIST         allow without asking: read,write,execute,network or all
                       (default: reads allowed; writes, commands and network
                       ask on a terminal and are denied when nobody can answer)
  --attempts N         run the prompt N times side by side, each in its own git
                       worktree of this repository (uncommitted work included),
                       then a judge ranks them and you pick one to apply
                       (crow undo takes it back); see "Parallel attempts" below
  --check CMD          with --attempts: a command run in each attempt's worktree
                       when it ends (exit 0 passes); failed ones rank last
  --judge AGENT        with --attempts: the agent that ranks them (default:
                       the agent's own reviewer when its flow has one, else
                       judge-attempts)
  --concurrency K      with --attempts: at most K running at once (default: the
                       provider's [limits] concurrency, as for subagents)
  --apply-best         with --attempts: apply the best without asking, if it
                       finished and passed its check
  --keep-worktrees     with --attempts: keep the worktrees to look at
  --background         run detached from this terminal: prints the session id
                       at once; crow sessions list shows it running, crow
                       sessions show ID its output, crow sessions stop ID
                       stops it (with --attempts, nothing is applied unless
                       --apply-best; the ranking is in crow sessions show ID,
                       and crow sessions apply ID N applies attempt N later)
  --json               print events as JSON lines on stdout instead
  --no-undo            do not record the workspace for \`crow undo\`
  --verbose            name each tool call's tool (read_file, bash, …) beside its words
  -h, --help           show this help

Parallel attempts: writes in an attempt's own worktree are allowed without
asking; commands follow your rules (in the sandbox they run, otherwise they
would be asked, and nobody can answer an attempt, so they are refused).
--max-cost and --max-tokens are shared: each attempt and the judge get an
equal part, so together they stay within them.

Keys come from ANTHROPIC_API_KEY / OPENAI_API_KEY or the variable a provider
names (never from flags). Exit codes: 0 done or your turn, 1 error, 2 bad
usage or configuration, 3 stopped by a limit, 130 cancelled (Ctrl-C), 143
stopped by SIGTERM, 129 by SIGHUP; each signal first stops the commands the
agent runs, and a second one quits at once.`;

/** Attempts in one run at most. */
const MAX_ATTEMPTS = 8;

const EXIT_CODES: Record<RunStatus, number> = {
  completed: 0,
  needs_input: 0,
  error: 1,
  limit: 3,
  budget: 3,
  cancelled: 130,
};

/** The spending limits the flags set, over config.toml's [limits]. */
function limitFlags(values: { 'max-cost'?: string; 'max-session-cost'?: string; 'max-tokens'?: string }): Limits {
  return definedOnly({
    maxCostPerPrompt: values['max-cost'] === undefined ? undefined : dollars('--max-cost', values['max-cost']),
    maxCostPerSession: values['max-session-cost'] === undefined ? undefined : dollars('--max-session-cost', values['max-session-cost']),
    maxTokensPerPrompt: values['max-tokens'] === undefined ? undefined : positiveInteger('--max-tokens', values['max-tokens']),
  });
}

function dollars(flag: string, value: string): number {
  const amount = Number(value.replace(/^\$/, ''));
  if (value.trim() === '' || !Number.isFinite(amount) || amount <= 0) throw new UsageError(`${flag} must be a positive amount of US dollars, e.g. 0.50, got "${value}"`);
  return amount;
}

function runArgs(argv: string[]) {
  return commandArgs('run', argv, {
      agent: { type: 'string' },
      session: { type: 'string' },
      continue: { type: 'boolean', default: false },
      cwd: { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      'reviewer-model': { type: 'string' },
      'reviewer-provider': { type: 'string' },
      'role-model': { type: 'string', multiple: true },
      'max-iterations': { type: 'string' },
      'max-cost': { type: 'string' },
      'max-session-cost': { type: 'string' },
      'max-tokens': { type: 'string' },
      allow: { type: 'string' },
      attempts: { type: 'string' },
      check: { type: 'string' },
      judge: { type: 'string' },
      concurrency: { type: 'string' },
      'apply-best': { type: 'boolean', default: false },
      'keep-worktrees': { type: 'boolean', default: false },
      'no-undo': { type: 'boolean', default: false },
      background: { type: 'boolean', default: false },
      'background-id': { type: 'string' },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
  });
}

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = runArgs(argv);
  if (values.help) {
    io.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  if (values.session !== undefined && values.continue) throw new UsageError('Use --session ID or --continue, not both.');
  const attempts = attemptChoices(values);
  if (values.background) {
    if (values['background-id'] !== undefined) throw new UsageError('--background-id is for crow itself: start a background run with --background.');
    if (values.session !== undefined || values.continue) throw new UsageError('--background starts a new session; it does not go with --session or --continue (yet).');
    if (positionals.length !== 1 || positionals[0] === '-') throw new UsageError('crow run --background takes the prompt as an argument, not on stdin: crow run --background "Fix the failing test"');
    const root = workspaceFolder(io.cwd, values.cwd);
    // Said here, at once, rather than in a log read later.
    if (attempts) await checkAttemptsRoot(root, io.env).catch((err: unknown) => {
      throw err instanceof AttemptsError ? new UsageError(err.message) : err;
    });
    return startBackground(withoutBackground(argv), { root, prompt: positionals[0]!, ...(attempts ? { attempts: attempts.count } : {}) }, dataHome(io.env), io);
  }
  const backgroundId = values['background-id'];
  if (backgroundId === undefined) return runInForeground(values, positionals, attempts, io);
  if (!isSessionId(backgroundId)) throw new UsageError(`--background-id ${JSON.stringify(backgroundId)} is not a session id.`);
  if (values.session !== undefined || values.continue) throw new UsageError('--background-id starts a new session; it does not go with --session or --continue.');
  let code = 1;
  try {
    code = await runInForeground(values, positionals, attempts, io, backgroundId);
    return code;
  } catch (err) {
    code = err instanceof UsageError ? 2 : 1;
    throw err;
  } finally {
    recordEnd(dataHome(io.env), backgroundId, code);
  }
}

type RunValues = ReturnType<typeof runArgs>['values'];

/** The run in this process: a prompt (or --attempts N) streamed; the exit code. `id`: the new session's id (a background run's). */
async function runInForeground(values: RunValues, positionals: string[], attempts: ReturnType<typeof attemptChoices>, io: CliIO, id?: string): Promise<number> {
  const prompt = await readPrompt(positionals, io);
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const renderer = values.json || attempts ? undefined : terminalRenderer(io, values.verbose);
  const stopListening = io.onInterrupt((signal) => {
    stoppedBy = signal;
    io.stderr.write(signal === 'SIGINT' ? '\nCancelling… (press Ctrl-C again to quit at once)\n' : `\nCancelling: ${signal} received…\n`);
    if (signal !== 'SIGINT') renderer?.stoppedBy(signal);
    controller.abort();
  });
  const interactive = io.stdinIsTTY && io.stderr.isTTY === true && !values.json;
  // Lines typed while it works are queued for the agents; an approval's answer is read around them.
  const steer = interactive && !attempts ? new SteerInput(io, styleFor(io.stderr, io.env)) : undefined;
  try {
    const choices: RunChoices = {
      root: workspaceFolder(io.cwd, values.cwd),
      overrides: {
        ...(values.provider !== undefined ? { provider: values.provider } : {}),
        ...(values.model !== undefined ? { model: values.model } : {}),
        ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
      },
      roles: roleDefaults(values['role-model'] ?? [], values['reviewer-model'], values['reviewer-provider']),
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
      ...(values.session !== undefined ? { session: values.session } : values.continue ? { session: 'latest' } : {}),
      ...(id !== undefined ? { id } : {}),
      ...(values.allow !== undefined ? { allow: values.allow } : {}),
      ...(values['max-iterations'] !== undefined ? { maxIterations: positiveInteger('--max-iterations', values['max-iterations']) } : {}),
      limits: limitFlags(values),
      undo: !values['no-undo'],
      interactive,
      ...(renderer ? { screen: steer ? steer.around(renderer) : renderer } : {}),
    };
    if (attempts) {
      const background = id !== undefined ? { background: { data: dataHome(io.env), id } } : {};
      const code = await runWithAttempts(prompt, choices, { ...attempts, json: values.json, ...background }, io, controller.signal);
      return stoppedBy ? STOP_EXIT_CODES[stoppedBy] : code;
    }
    const host = await openRunSession(choices, io);
    try {
      let code = await stream(host, prompt, renderer, io, controller.signal, steer);
      // What was typed after the agents' last step goes out as the next prompt, in the same session.
      for (let next = await steer?.leftOver(); next && next.length > 0 && !controller.signal.aborted; next = await steer?.leftOver()) {
        code = await stream(host, next.join('\n\n'), renderer, io, controller.signal, steer);
      }
      return stoppedBy ? STOP_EXIT_CODES[stoppedBy] : code;
    } finally {
      steer?.stop();
      await host.close();
    }
  } finally {
    stopListening();
  }
}

/** The arguments again without --background (those before a "--": after it, everything is the prompt). */
function withoutBackground(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.filter((arg, index) => arg !== '--background' || (end !== -1 && index > end));
}

/** The --attempts choices, or undefined without --attempts; a UsageError for flags that only go with it, or that it cannot take. */
function attemptChoices(values: {
  attempts?: string;
  check?: string;
  judge?: string;
  concurrency?: string;
  'apply-best'?: boolean;
  'keep-worktrees'?: boolean;
  session?: string;
  continue?: boolean;
}): Omit<AttemptsChoices, 'json'> | undefined {
  if (values.attempts === undefined) {
    const only = (['check', 'judge', 'concurrency', 'apply-best', 'keep-worktrees'] as const).find((flag) => values[flag] !== undefined && values[flag] !== false);
    if (only) throw new UsageError(`--${only} goes with --attempts N.`);
    return undefined;
  }
  const count = positiveInteger('--attempts', values.attempts);
  if (count < 2 || count > MAX_ATTEMPTS) throw new UsageError(`--attempts must be from 2 to ${MAX_ATTEMPTS}, got ${count}.`);
  if (values.session !== undefined || values.continue) throw new UsageError('--attempts starts new sessions; it does not go with --session or --continue.');
  if (values.check !== undefined && values.check.trim() === '') throw new UsageError('--check needs a command, e.g. --check "npm test".');
  return {
    count,
    ...(values.concurrency !== undefined ? { concurrency: positiveInteger('--concurrency', values.concurrency) } : {}),
    ...(values.check !== undefined ? { check: values.check } : {}),
    ...(values.judge !== undefined ? { judge: values.judge } : {}),
    applyBest: values['apply-best'] === true,
    keep: values['keep-worktrees'] === true,
  };
}

/** The renderer of a run on a terminal: markdown rendered when stdout is a terminal with colour, raw text otherwise. */
function terminalRenderer(io: CliIO, verbose: boolean): RunRenderer {
  const outStyle = styleFor(io.stdout, io.env);
  // Loaded only for a terminal (a file of its own in dist/, see terminal-markdown.ts).
  const markdown =
    io.stdout.isTTY === true && outStyle.color
      ? (require('./terminal-markdown') as typeof import('./terminal-markdown')).terminalMarkdown(Math.min(io.stdout.columns || 100, 100))
      : undefined;
  // Lines redrawn in place need a terminal that moves its cursor; a dumb one gets what a pipe gets.
  const live = io.stderr.isTTY === true && io.env.TERM !== 'dumb' ? { columns: () => io.stderr.columns || 80 } : undefined;
  const screen = markdown && io.env.TERM !== 'dumb' ? { columns: () => io.stdout.columns || 80, rows: () => io.stdout.rows || 24 } : undefined;
  return new RunRenderer({ out: io.stdout, err: io.stderr, outStyle, errStyle: styleFor(io.stderr, io.env), markdown, screen, live }, { verbose });
}

/**
 * Runs the prompt and shows it: through the renderer, or with --json
 * (no renderer) as JSON lines, opened by a `session_start` line and closed
 * by `run_complete`, both naming the session.
 */
async function stream(host: HostSession, prompt: string, renderer: RunRenderer | undefined, io: CliIO, signal: AbortSignal, steer?: SteerInput): Promise<number> {
  const json = (line: object): void => void io.stdout.write(`${JSON.stringify(line)}\n`);
  if (!renderer) json({ type: 'session_start', sessionId: host.id, workspace: host.workspace.root, agent: host.session.agentName });
  const events = host.prompt(prompt, {
    signal,
    onStart: (composition) => {
      steer?.start(host);
      if (!renderer) return;
      const { permissions } = host.session;
      renderer.header({ composition, workspace: host.workspace.root, rules: permissions.effectiveRules(), sandboxed: host.workspace.sandboxed === true });
    },
  });
  try {
    for await (const event of events) {
      if (!renderer) json(event.type === 'run_complete' ? { ...event, sessionId: host.id } : event);
      else renderer.render(event);
    }
    const result = await events.result;
    renderer?.finish(host.id);
    return EXIT_CODES[result.status];
  } catch (err) {
    if (!(err instanceof HostError)) throw err;
    if (err.kind === 'busy') throw new Error(err.message);
    throw new UsageError(err.message);
  }
}

async function readPrompt(positionals: string[], io: CliIO): Promise<string> {
  if (positionals.length > 1) {
    throw new UsageError(`crow run takes one prompt; quote it: crow run "${positionals.join(' ')}"`);
  }
  const given = positionals[0];
  const prompt = given === '-' || (given === undefined && !io.stdinIsTTY) ? await io.readStdin() : given;
  if (prompt === undefined || prompt.trim() === '') {
    throw new UsageError('crow run needs a prompt: crow run "Fix the failing test" (see crow run --help)');
  }
  return prompt;
}

