/**
 * The best-of-N arm of `crow eval --attempts N`: a task's project copied to
 * a fresh temporary folder and committed there (git init + one commit, so
 * attempts get worktrees), N sessions of the agent on the task's prompt,
 * each in its own worktree (src/attempts/best-of.ts), then the judge ranks
 * them. The arm's result is the check of the attempt ranked first: the
 * hidden files are copied into its worktree only after every attempt and
 * the judge have ended, and the task's check runs there as it runs for a
 * single run (eval-run.ts). Every other attempt's worktree is checked the
 * same way, for measurement only: whether any attempt passed (the oracle
 * best-of-N, the ceiling a perfect judge would reach) and whether the
 * judge picked a passing one when there was one.
 *
 * The budget is the single run's, shared: the N attempts and the judge
 * each get 1/(N+1) of --budget-tokens (as crow run --attempts shares a
 * prompt's limits), and the whole arm, attempts side by side and the
 * judge, gets --budget-seconds of wall-clock time. So both arms spend at
 * most the same tokens on a task; the report shows what each spent.
 */
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttemptOutcome, type AttemptsResult, runAttempts } from '../attempts/best-of';
import { finished } from '../attempts/judge';
import { resolveSettings } from '../config/provider-config';
import type { Settings } from '../config/settings';
import type { RunStatus } from '../engine/events';
import { addUsage, emptyUsage, type Usage } from '../llm/types';
import { NodeWorkspace } from '../tools/node-workspace';
import { sandboxSetup } from '../tools/sandbox-setup';
import { errorText } from '../vocabulary/text';
import { folderDiff, runFolder, writeArtifacts } from './eval-artifacts';
import { CHECK_OUTPUT_CHARS, type EvalResult, fingerprints, openSession, type RunEnding, type RunSettings, runCheck, telling } from './eval-run';
import type { EvalTask } from './eval-task';
import { commitCopy } from './task-repository';
import type { AttemptRecord, BestOfRecord } from './best-of-record';

export type { AttemptRecord, BestOfRecord };

export interface BestOfSettings {
  /** Attempts per task. */
  count: number;
  /** The agent that ranks them. */
  judge: string;
  /** Attempts of one task running at once. */
  concurrency: number;
}

/** The name the best-of arm of `agent` has in results and reports: "build@best-of-3". */
export function bestOfLabel(agent: string, count: number): string {
  return `${agent}@best-of-${count}`;
}

/** Per attempt, what its events said: its tokens, calls, cost and review rounds. */
interface Tally {
  usage: Usage;
  modelCalls: number;
  toolCalls: number;
  reviewRounds: number;
  approved: boolean;
  model: string;
}

/** What the steps of one best-of run share. */
interface ArmRun {
  task: EvalTask;
  agent: string;
  label: string;
  repeat: number;
  settings: RunSettings;
  bestOf: BestOfSettings;
  signal: AbortSignal;
  settingsOf(dir: string): Settings;
  /** The protected files' fingerprints as the task starts. */
  before: Record<string, string>;
  /** Per attempt, what its events said. */
  tallies: Map<number, Tally>;
}

export async function runBestOf(task: EvalTask, agent: string, repeat: number, settings: RunSettings, bestOf: BestOfSettings, signal: AbortSignal): Promise<EvalResult> {
  const started = Date.now();
  const label = bestOfLabel(agent, bestOf.count);
  const root = realpathSync(mkdtempSync(join(tmpdir(), `crow-eval-${task.name}-`)));
  const base = { task: task.name, category: task.category, difficulty: task.difficulty, agent: label, repeat, startedAt: new Date(started).toISOString() };
  try {
    cpSync(join(task.dir, 'files'), root, { recursive: true });
    await commitCopy(root, settings.env);
    const settingsOf = (dir: string): Settings => settings.settingsFor?.(dir) ?? resolveSettings(dir, settings.overrides, settings.env, { trusted: false });
    const run: ArmRun = { task, agent, label, repeat, settings, bestOf, signal, settingsOf, before: fingerprints(root, task.protected), tallies: new Map() };
    const setupMs = Date.now() - started;
    const { result, timedOut } = await attempts(run, root);
    try {
      const checkStarted = Date.now();
      const checks = await checkAll(run, result);
      const checkMs = checks.chosenMs;
      // The time a person would wait: setting up, the attempts and the judge, and the chosen attempt's check (the other checks are measurement).
      return { ...base, ...scored(run, result, timedOut, checks), wallMs: checkStarted - started + checkMs, overheadMs: setupMs + checkMs };
    } finally {
      await result.trees.removeAll();
    }
  } catch (err) {
    // A run that could not be set up (git missing, a worktree refused) fails alone; the evaluation goes on.
    return {
      ...base,
      passed: false,
      reason: `the attempts could not run: ${errorText(err)}`,
      ended: signal.aborted ? 'cancelled' : 'error',
      tokens: emptyUsage(),
      wallMs: Date.now() - started,
      overheadMs: Date.now() - started,
      modelCalls: 0,
      toolCalls: 0,
      reviewRounds: 0,
      sessionId: '',
      model: '',
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every attempt's worktree checked, the chosen one first (its time is the run's); records by attempt number. */
async function checkAll(run: ArmRun, result: AttemptsResult): Promise<{ records: AttemptRecord[]; chosen: { output: string; diff: string }; chosenMs: number }> {
  const chosen = result.ranking[0]!.n;
  const ordered = [...result.attempts].sort((a, b) => (a.n === chosen ? -1 : b.n === chosen ? 1 : a.n - b.n));
  const records: AttemptRecord[] = [];
  const started = Date.now();
  let chosenCheck = { output: '', diff: '' };
  let chosenMs = 0;
  for (const attempt of ordered) {
    const checked = await checkAttempt(run, attempt, join(runFolder(run.task.name, run.label, run.repeat), `attempt-${attempt.n}`));
    records.push(checked.record);
    if (attempt.n === chosen) {
      chosenCheck = { output: checked.output, diff: checked.diff };
      chosenMs = Date.now() - started;
    }
  }
  return { records: records.sort((a, b) => a.n - b.n), chosen: chosenCheck, chosenMs };
}

/** The run's result from its chosen attempt's check, its tokens and cost those of every attempt and the judge. */
function scored(
  run: ArmRun,
  result: AttemptsResult,
  timedOut: boolean,
  checks: Awaited<ReturnType<typeof checkAll>>,
): Omit<EvalResult, 'task' | 'category' | 'difficulty' | 'agent' | 'repeat' | 'startedAt' | 'wallMs' | 'overheadMs'> {
  const { settings, tallies } = run;
  const chosen = result.ranking[0]!.n;
  const picked = checks.records.find((record) => record.n === chosen)!;
  const usage = emptyUsage();
  for (const tally of tallies.values()) addUsage(usage, tally.usage);
  const judgeTokens = result.judgeUsage?.usage ?? emptyUsage();
  addUsage(usage, judgeTokens);
  const all = [...tallies.values()];
  const modelCalls = all.reduce((sum, tally) => sum + tally.modelCalls, 0) + (result.judgeUsage?.calls ?? 0);
  const cancelled = run.signal.aborted;
  const overBudget = usage.input + usage.output + usage.cacheRead + usage.cacheWrite > settings.budget.tokens;
  const ended: RunEnding = cancelled ? 'cancelled' : timedOut ? 'timeout' : overBudget ? 'budget' : ending(picked.ended, tallies.get(chosen));
  const stopped = ended === 'budget' || ended === 'timeout';
  const reason =
    timedOut ? `stopped: over the budget of ${Math.round(settings.budget.wallMs / 1000)} s`
    : overBudget ? `stopped: over the budget of ${settings.budget.tokens} tokens`
    : picked.reason !== undefined ? `attempt ${chosen}: ${picked.reason}`
    : undefined;
  const artifacts = cancelled ? undefined : writeArtifacts(settings.out, runFolder(run.task.name, run.label, run.repeat), checks.chosen.diff, checks.chosen.output);
  const record: BestOfRecord = {
    agent: run.agent,
    count: run.bestOf.count,
    judge: run.bestOf.judge,
    judged: result.judge.used,
    ...(result.judge.used ? {} : { why: result.judge.why }),
    ...(result.judge.sessionId !== undefined ? { judgeSessionId: result.judge.sessionId } : {}),
    judgeTokens,
    chosen,
    attempts: checks.records,
  };
  return {
    passed: picked.passed && !stopped && !cancelled,
    ...(reason !== undefined ? { reason } : {}),
    ended,
    tokens: usage,
    ...(result.costUsd !== undefined && modelCalls > 0 ? { costUsd: result.costUsd } : {}),
    modelCalls,
    toolCalls: all.reduce((sum, tally) => sum + tally.toolCalls, 0),
    reviewRounds: all.reduce((sum, tally) => sum + tally.reviewRounds, 0),
    sessionId: result.attempts.find((attempt) => attempt.n === chosen)?.sessionId ?? '',
    model: all.find((tally) => tally.model !== '')?.model ?? '',
    ...(artifacts ? { artifacts } : {}),
    bestOf: record,
  };
}

/** The N attempts and the judge, within the arm's wall-clock budget, each with its share of the tokens; each attempt's events tallied. */
async function attempts(run: ArmRun, root: string): Promise<{ result: AttemptsResult; timedOut: boolean }> {
  const { task, agent, bestOf, settingsOf, tallies } = run;
  const outer = run.signal;
  // Each attempt and the judge get an equal share of the run's tokens: the arm as a whole spends what a single run may.
  const shared: RunSettings = { ...run.settings, budget: { ...run.settings.budget, tokens: Math.max(1, Math.floor(run.settings.budget.tokens / (bestOf.count + 1))) } };
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, shared.budget.wallMs);
  const onOuter = (): void => stop.abort();
  if (outer.aborted) stop.abort();
  else outer.addEventListener('abort', onOuter, { once: true });
  try {
    const result = await runAttempts({
      root,
      env: shared.env,
      prompt: task.prompt,
      count: bestOf.count,
      concurrency: bestOf.concurrency,
      signal: stop.signal,
      openAttempt: (tree) => openSession(tree, agent, settingsOf(tree), shared, new NodeWorkspace(tree)),
      judge: bestOf.judge,
      openJudge: (judge) => openSession(root, judge, settingsOf(root), shared, new NodeWorkspace(root)),
      progress: (progress) => {
        if (progress.type !== 'attempt_event') return;
        const tally = tallies.get(progress.n) ?? { usage: emptyUsage(), modelCalls: 0, toolCalls: 0, reviewRounds: 0, approved: false, model: '' };
        tallies.set(progress.n, tally);
        const { event } = progress;
        if (event.type === 'usage' || event.type === 'subagent_usage') {
          addUsage(tally.usage, event.usage);
          tally.modelCalls += 1;
          if (event.type === 'usage') tally.model ||= event.model;
        } else if (event.type === 'tool_call_end') tally.toolCalls += 1;
        else if (event.type === 'coagent_start') tally.reviewRounds += 1;
        else if (event.type === 'coagent_end') tally.approved = event.verdict === 'approved';
      },
    });
    return { result, timedOut };
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
}

/** One attempt's worktree checked as a single run's copy is: its diff kept, the hidden files copied in, the check run in the sandbox. */
async function checkAttempt(run: ArmRun, attempt: AttemptOutcome, folder: string): Promise<{ record: AttemptRecord; output: string; diff: string }> {
  const { task, before, settingsOf, settings, signal } = run;
  const tally = run.tallies.get(attempt.n);
  const common = { n: attempt.n, ended: attempt.status, files: attempt.changes.files.length, tokens: tally?.usage ?? emptyUsage(), ...(attempt.costUsd !== undefined ? { costUsd: attempt.costUsd } : {}), sessionId: attempt.sessionId };
  if (attempt.tree === '' || signal.aborted) {
    const reason = attempt.tree === '' ? attempt.summary : 'cancelled';
    return { record: { ...common, passed: false, reason }, output: '', diff: '' };
  }
  const diff = folderDiff(join(task.dir, 'files'), attempt.tree);
  const changed = task.protected.filter((path) => fingerprints(attempt.tree, [path])[path] !== before[path]);
  const workspace = new NodeWorkspace(attempt.tree, { sandbox: sandboxSetup(settingsOf(attempt.tree), settings.env).options, maxExecOutputChars: CHECK_OUTPUT_CHARS });
  const check = await runCheck(task, attempt.tree, workspace, signal);
  const done = finished(attempt.status);
  const passed = check.exitCode === 0 && changed.length === 0 && done;
  const reason =
    changed.length > 0 ? `changed protected ${changed.join(', ')}`
    : check.exitCode !== 0 ? `check failed (${check.exitCode === null ? 'timed out' : `exit ${check.exitCode}`}): ${telling(check.output)}`
    : !done ? `did not finish (${attempt.status})${check.exitCode === 0 ? ': its check passed, but an attempt that did not finish fails' : ''}`
    : undefined;
  const artifacts = writeArtifacts(settings.out, folder, diff, check.output);
  return { record: { ...common, passed, ...(reason !== undefined ? { reason } : {}), artifacts }, output: check.output, diff };
}

/** How the run ended, in eval's words, from its chosen attempt's end. */
function ending(status: RunStatus, tally: Tally | undefined): RunEnding {
  switch (status) {
    case 'completed':
      return tally?.approved ? 'approved' : 'completed';
    case 'needs_input':
      return 'answered';
    default:
      return status;
  }
}
