/**
 * Best of N: the same prompt run by N sessions of one agent side by side,
 * each in its own git worktree of the person's repository (attempt-trees.ts),
 * at most `concurrency` at once; then an optional check command in each
 * worktree (in the attempt's own workspace, so sandboxed as its commands
 * were); then a judge reads every attempt's summary, check, cost and diff
 * and ranks them (judge.ts). Nothing reaches the person's working tree
 * here: applying the chosen attempt is apply-attempt.ts, through the
 * journal, and only when the person (or an explicit --apply-best) says so.
 *
 * A door opens the sessions (it knows the flags, the agent and how to ask);
 * this module only runs them and tells the door what happens.
 */
import type { AgentEvent, RunStatus } from '../engine/events';
import type { HostSession } from '../host/host-session';
import { addUsage, emptyUsage, type Usage } from '../llm/types';
import { errorText } from '../vocabulary/text';
import { type AttemptChanges, AttemptTrees, runFolderName } from './attempt-trees';
import type { ACPAgentDefinition } from '../config/agent-definitions';
import { type AttemptForJudge, finalOrder, finished, judgeAgent, judgePrompt, judgeWords, type Ranked, readRanking } from './judge';

/** How long a check command may run in one worktree. */
const CHECK_TIMEOUT_MS = 10 * 60_000;
/** The tail of a check's output the judge and the person see. */
const CHECK_OUTPUT_CHARS = 2_000;

export interface AttemptsOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  prompt: string;
  count: number;
  /** Attempts running at once. */
  concurrency: number;
  /** A command run in each attempt's worktree once it ends; exit 0 passes. */
  check?: string;
  /** A session of the chosen agent in `root` (attempt n's worktree). */
  openAttempt(root: string, n: number): Promise<HostSession>;
  /** The judge a person named; undefined: the rule of judge.ts (judgeAgent) picks it from the attempts' agent. */
  judge?: string;
  /** A session of the judge `agent`, in the person's folder. */
  openJudge(agent: string): Promise<HostSession>;
  signal: AbortSignal;
  /** What happens, as it happens. */
  progress?(event: AttemptsProgress): void;
  /** Each event of the judge's run (its usage, for a door that counts the cost as it goes). */
  judgeEvent?(event: AgentEvent): void;
}

export type AttemptsProgress =
  | { type: 'attempt_start'; n: number; tree: string; sessionId: string }
  | { type: 'attempt_event'; n: number; event: AgentEvent }
  | { type: 'attempt_end'; n: number; status: RunStatus; files: number }
  | { type: 'check'; n: number; passed: boolean }
  | { type: 'judging'; sessionId: string };

export interface AttemptOutcome {
  n: number;
  tree: string;
  sessionId: string;
  status: RunStatus;
  /** The attempt's own account: its task_complete summary, else its run's message. */
  summary: string;
  tokens: number;
  costUsd?: number;
  changes: AttemptChanges;
  check?: { passed: boolean; output: string };
}

export interface AttemptsResult {
  attempts: AttemptOutcome[];
  /** Best first, each with the judge's reason. */
  ranking: Ranked[];
  /** How the ranking was made: by the judge (`agent`), or why not. */
  judge: { agent: string; sessionId?: string; used: true } | { agent: string; sessionId?: string; used: false; why: string };
  /** The judge's and the attempts' cost together, when every call had prices. */
  costUsd?: number;
  /** The judge's own tokens and model calls (its subagents' included); absent when no judge ran. */
  judgeUsage?: { usage: Usage; calls: number };
  trees: AttemptTrees;
}

export async function runAttempts(options: AttemptsOptions): Promise<AttemptsResult> {
  const trees = await AttemptTrees.prepare(options.root, options.env, runFolderName());
  try {
    const numbers = Array.from({ length: options.count }, (_, index) => index + 1);
    // The attempts' agent as its sessions know it (its reviewer judges, by judgeAgent's rule).
    const agent: { definition?: ACPAgentDefinition } = {};
    const attempts = await inPool(numbers, options.concurrency, (n) => runAttempt(options, trees, n, agent).catch((err: unknown) => failed(n, err)));
    return { ...(await rankAttempts(options, attempts, agent.definition)), trees };
  } catch (err) {
    await trees.removeAll().catch(() => undefined);
    throw err;
  }
}

/** What judging needs of a run of attempts, wherever they ran (here, or in Kubernetes pods). */
export type JudgingOptions = Pick<AttemptsOptions, 'prompt' | 'judge' | 'openJudge' | 'signal' | 'progress' | 'judgeEvent'>;

/**
 * The attempts judged (by judgeAgent's rule, from the attempts' agent
 * `agent`) and put in their final order, with the cost of them all.
 */
export async function rankAttempts(options: JudgingOptions, attempts: AttemptOutcome[], agent: ACPAgentDefinition | undefined): Promise<Omit<AttemptsResult, 'trees'>> {
  const judged = await judge(options, attempts, judgeAgent(agent, options.judge));
  const costs = [...attempts.map((attempt) => attempt.costUsd), judged.costUsd];
  const costUsd = costs.every((cost) => cost !== undefined) ? costs.reduce((sum, cost) => sum + cost, 0) : undefined;
  const judgeUsage = judged.usage ? { judgeUsage: judged.usage } : {};
  return { attempts, ranking: finalOrder(attempts.map(forJudge), judged.ranking), judge: judged.judge, ...(costUsd !== undefined ? { costUsd } : {}), ...judgeUsage };
}

/** Attempt `n` in a new worktree of `trees`: its session's run, its changes and its check; `agent` learns the attempts' agent. */
export async function runAttempt(options: AttemptsOptions, trees: AttemptTrees, n: number, agent: { definition?: ACPAgentDefinition } = {}): Promise<AttemptOutcome> {
  const tree = await trees.add(n);
  const host = await options.openAttempt(tree, n);
  try {
    agent.definition ??= await host.definition();
    options.progress?.({ type: 'attempt_start', n, tree, sessionId: host.id });
    const events = host.prompt(options.prompt, { signal: options.signal });
    for await (const event of events) options.progress?.({ type: 'attempt_event', n, event });
    const result = await events.result;
    const changes = await trees.changes(tree);
    options.progress?.({ type: 'attempt_end', n, status: result.status, files: changes.files.length });
    const check = options.check === undefined || options.signal.aborted ? undefined : await runCheck(host, options.check, options.signal);
    if (check) options.progress?.({ type: 'check', n, passed: check.passed });
    const { prompt } = result.meter;
    return {
      n,
      tree,
      sessionId: host.id,
      status: result.status,
      summary: result.summary ?? result.message,
      tokens: prompt.inputTokens + prompt.outputTokens,
      ...(prompt.costUsd !== undefined ? { costUsd: prompt.costUsd } : {}),
      changes,
      ...(check ? { check } : {}),
    };
  } finally {
    await host.close();
  }
}

/** An attempt that could not run (its worktree or session failed): ranked last, saying why. */
function failed(n: number, err: unknown): AttemptOutcome {
  return { n, tree: '', sessionId: '', status: 'error', summary: `The attempt could not run: ${errorText(err)}`, tokens: 0, changes: { patch: '', files: [] } };
}

/** The check command in the attempt's workspace (its sandbox, if commands run in one there). */
async function runCheck(host: HostSession, command: string, signal: AbortSignal): Promise<{ passed: boolean; output: string }> {
  try {
    const run = await host.workspace.exec(command, { timeoutMs: CHECK_TIMEOUT_MS, signal });
    const tail = run.output.slice(-CHECK_OUTPUT_CHARS);
    const why = run.timedOut ? `\n[stopped after ${CHECK_TIMEOUT_MS / 60_000} minutes]` : '';
    return { passed: run.exitCode === 0, output: `${tail}${why}` };
  } catch (err) {
    return { passed: false, output: `The check could not run: ${errorText(err)}` };
  }
}

/** The judge's ranking, or none (with why) when there is nothing to choose between or its answer cannot be read. */
async function judge(options: JudgingOptions, attempts: AttemptOutcome[], agent: string): Promise<Pick<AttemptsResult, 'judge'> & { ranking?: Ranked[]; costUsd?: number; usage?: { usage: Usage; calls: number } }> {
  const contenders = attempts.filter((attempt) => attempt.changes.files.length > 0);
  if (contenders.length < 2) return { judge: { agent, used: false, why: contenders.length === 0 ? 'no attempt changed anything' : 'only one attempt changed anything' }, costUsd: 0 };
  if (options.signal.aborted) return { judge: { agent, used: false, why: 'cancelled before judging' }, costUsd: 0 };
  const host = await options.openJudge(agent);
  try {
    options.progress?.({ type: 'judging', sessionId: host.id });
    const events = host.prompt(judgePrompt(options.prompt, attempts.map(forJudge)), { signal: options.signal });
    let answer = '';
    const usage = { usage: emptyUsage(), calls: 0 };
    for await (const event of events) {
      options.judgeEvent?.(event);
      if (event.type === 'text_complete') answer = event.text;
      else if (event.type === 'usage' || event.type === 'subagent_usage') {
        addUsage(usage.usage, event.usage);
        usage.calls += 1;
      }
    }
    const result = await events.result;
    const costUsd = result.meter.prompt.costUsd;
    const cost = { ...(costUsd !== undefined ? { costUsd } : {}), usage };
    if (!finished(result.status)) return { judge: { agent, sessionId: host.id, used: false, why: `the judge did not finish: ${result.message}` }, ...cost };
    const ranking = readRanking(answer, attempts.map((attempt) => attempt.n));
    if (!ranking) return { judge: { agent, sessionId: host.id, used: false, why: `${judgeWords(agent)} gave no ranking Crow could read` }, ...cost };
    return { judge: { agent, sessionId: host.id, used: true }, ranking, ...cost };
  } finally {
    await host.close();
  }
}

function forJudge(attempt: AttemptOutcome): AttemptForJudge {
  return {
    n: attempt.n,
    status: attempt.status,
    summary: attempt.summary,
    ...(attempt.check ? { check: attempt.check } : {}),
    ...(attempt.costUsd !== undefined ? { costUsd: attempt.costUsd } : {}),
    tokens: attempt.tokens,
    files: attempt.changes.files,
    patch: attempt.changes.patch,
  };
}

/** `work` for each item, at most `limit` at a time, results in the items' order. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
