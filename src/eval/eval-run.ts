/**
 * One evaluation run: a task's project copied to a fresh temporary folder,
 * one prompt through an agent in its own stored session (so `crow trace`
 * opens it), within a wall-clock and a token budget; then the hidden files
 * copied in and the hidden check run. Writes and commands are allowed (the
 * agent works alone, and its subagents hold the same grants), network use
 * is not; protected files are compared before and after. The check runs
 * the agent's code, so it runs like the agent's own commands: in the
 * sandbox the settings ask for (or the run's container), with no credential
 * in its environment. Every model call counts, its subagents' included; a
 * run stopped by its budget or its time fails whatever its check says. The
 * run's diff and the check's whole output are kept (eval-artifacts.ts).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RoleDefaults } from '../host/folder';
import { openFolder } from '../host/folder';
import { HostSession } from '../host/host-session';
import { resolveSettings } from '../config/provider-config';
import type { ConfigOverrides, Settings } from '../config/settings';
import { addUsage, emptyUsage, type Usage } from '../llm/types';
import { SessionStore } from '../session/session-store';
import { NodeWorkspace } from '../tools/node-workspace';
import { sandboxSetup } from '../tools/sandbox-setup';
import type { EvalTask } from './eval-task';
import type { BestOfRecord } from './best-of-record';
import { commitCopy } from './task-repository';
import { ContainerWorkspace, type ContainerBackend, TaskContainer } from './container-workspace';
import { folderDiff, type RunArtifacts, runFolder, writeArtifacts } from './eval-artifacts';

/** How a run ended. */
export type RunEnding = 'approved' | 'completed' | 'answered' | 'limit' | 'error' | 'budget' | 'timeout' | 'cancelled';

export interface EvalResult {
  task: string;
  category: string;
  difficulty: string;
  agent: string;
  repeat: number;
  passed: boolean;
  /** Why a run that ended did not pass, or why the check failed, in a line. */
  reason?: string;
  ended: RunEnding;
  tokens: Usage;
  /** US dollars from the configured prices; absent when a model had none. */
  costUsd?: number;
  wallMs: number;
  /** The harness's own time: copying, session set-up, the check. */
  overheadMs: number;
  modelCalls: number;
  toolCalls: number;
  reviewRounds: number;
  /** `crow trace SESSION` opens the run. */
  sessionId: string;
  /** The trace id of the run's prompt span (OTLP exports carry it). */
  traceId?: string;
  model: string;
  startedAt: string;
  /** Its diff and check log, relative to the evaluation's folder. */
  artifacts?: RunArtifacts;
  /** Set on a run of the best-of-N arm (crow eval --attempts N): every attempt, and which one the judge chose. */
  bestOf?: BestOfRecord;
}

export interface RunSettings {
  env: NodeJS.ProcessEnv;
  /** Where sessions are stored (Crow's data home). */
  dataHome: string;
  overrides: ConfigOverrides;
  /** The settings of a run's folder; default: resolved as `crow run` does, with `overrides`. A front door with settings of its own (VS Code) passes them. */
  settingsFor?: (root: string) => Settings;
  roles?: RoleDefaults;
  /** Per run. */
  budget: { wallMs: number; tokens: number };
  /** Run each task in a fresh container of this image instead of the local sandbox. */
  container?: ContainerBackend;
  /** The evaluation's folder, where each run's artifacts go. */
  out: string;
  /** Make each run's copy a git repository of one commit (crow eval --attempts: as the best-of arm's copy is). */
  commitCopies?: boolean;
}

export async function runTask(task: EvalTask, agent: string, repeat: number, settings: RunSettings, signal: AbortSignal): Promise<EvalResult> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const root = realpathSync(mkdtempSync(join(tmpdir(), `crow-eval-${task.name}-`)));
  let container: TaskContainer | undefined;
  try {
    cpSync(join(task.dir, 'files'), root, { recursive: true });
    if (settings.commitCopies) await commitCopy(root, settings.env);
    const before = fingerprints(root, task.protected);
    const resolved = settings.settingsFor?.(root) ?? resolveSettings(root, settings.overrides, settings.env, { trusted: false });
    if (settings.container) container = await TaskContainer.start(settings.container, root, settings.env);
    const workspace = container ? new ContainerWorkspace(root, container, settings.env) : new NodeWorkspace(root);
    const host = await openSession(root, agent, resolved, settings, workspace);
    const setupMs = Date.now() - started;
    const run = await prompt(host, task, settings, signal);
    const traceId = host.session.trace.spans.find((span) => span.kind === 'prompt')?.traceId;
    await host.close();
    const checkStarted = Date.now();
    const changed = task.protected.filter((path) => fingerprints(root, [path])[path] !== before[path]);
    const diff = folderDiff(join(task.dir, 'files'), root);
    const checkWorkspace = container
      ? new ContainerWorkspace(root, container, settings.env, { maxExecOutputChars: CHECK_OUTPUT_CHARS })
      : new NodeWorkspace(root, { sandbox: sandboxSetup(resolved, settings.env).options, maxExecOutputChars: CHECK_OUTPUT_CHARS });
    const check = run.ended === 'cancelled' ? undefined : await runCheck(task, root, checkWorkspace, signal);
    // A check stopped by the person (Ctrl-C) says nothing of the run: it did not finish, and a resumed evaluation runs it again.
    const ended = signal.aborted ? 'cancelled' : run.ended;
    const checkMs = Date.now() - checkStarted;
    const stopped = ended === 'budget' || ended === 'timeout';
    const passed = check?.exitCode === 0 && changed.length === 0 && !stopped;
    const reason =
      stopped ? `${run.error}${check?.exitCode === 0 ? ' (its check passed, but a run stopped by its budget fails)' : ''}`
      : changed.length > 0 ? `changed protected ${changed.join(', ')}`
      : check && check.exitCode !== 0 ? `check failed (${check.exitCode === null ? 'timed out' : `exit ${check.exitCode}`}): ${telling(check.output)}`
      : run.error;
    const artifacts = ended === 'cancelled' ? undefined : writeArtifacts(settings.out, runFolder(task.name, agent, repeat), diff, check?.output ?? '');
    return {
      task: task.name,
      category: task.category,
      difficulty: task.difficulty,
      agent,
      repeat,
      passed,
      ...(reason ? { reason } : {}),
      ended,
      tokens: run.tokens,
      ...(run.costUsd !== undefined ? { costUsd: run.costUsd } : {}),
      wallMs: Date.now() - started,
      overheadMs: setupMs + checkMs,
      modelCalls: run.modelCalls,
      toolCalls: run.toolCalls,
      reviewRounds: run.reviewRounds,
      sessionId: host.id,
      ...(traceId !== undefined ? { traceId } : {}),
      model: run.model,
      startedAt,
      ...(artifacts ? { artifacts } : {}),
    };
  } finally {
    await container?.remove();
    rmSync(root, { recursive: true, force: true });
  }
}

/** A session in the task's throwaway copy: its own `.crow/` is never trusted (a task must not widen what the agents may do). */
export async function openSession(root: string, agent: string, resolved: Settings, settings: RunSettings, workspace: NodeWorkspace): Promise<HostSession> {
  const catalog = await openFolder({ root, env: settings.env, dataHome: settings.dataHome, trust: 'untrusted', settings: () => resolved, ...(settings.roles ? { roles: settings.roles } : {}) });
  return HostSession.create(
    {
      catalog: () => catalog,
      store: new SessionStore({ dataHome: settings.dataHome }),
      workspace,
      forced: { read: 'allow', write: 'allow', execute: 'allow' },
      howToAllow: () => 'nothing: an evaluation run allows reads, file changes and commands, and never the network',
      // The engine stops the run before the model call that would go past the token budget.
      limits: { maxTokensPerPrompt: settings.budget.tokens },
      howToRaise: () => 'raise --budget-tokens',
      env: settings.env,
    },
    { agent },
  );
}

interface PromptFigures {
  ended: RunEnding;
  error?: string;
  tokens: Usage;
  costUsd?: number;
  modelCalls: number;
  toolCalls: number;
  reviewRounds: number;
  model: string;
}

/** Runs the task's prompt, counting as it goes: the engine stops it at the token budget, the timer at the wall-clock one. */
async function prompt(host: HostSession, task: EvalTask, settings: RunSettings, outer: AbortSignal): Promise<PromptFigures> {
  const stop = new AbortController();
  let over: 'timeout' | undefined;
  const timer = setTimeout(() => {
    over = 'timeout';
    stop.abort();
  }, settings.budget.wallMs);
  const onOuter = (): void => stop.abort();
  outer.addEventListener('abort', onOuter, { once: true });
  const run: PromptFigures = { ended: 'error', tokens: emptyUsage(), modelCalls: 0, toolCalls: 0, reviewRounds: 0, model: '' };
  let approved = false;
  let cost: number | undefined = 0;
  try {
    const events = host.prompt(task.prompt, { signal: stop.signal });
    for await (const event of events) {
      if (event.type === 'usage' || event.type === 'subagent_usage') {
        // A subagent's model call is one of the run's: its tokens, its cost and the call itself count.
        addUsage(run.tokens, event.usage);
        run.modelCalls += 1;
        if (event.type === 'usage') run.model ||= event.model;
        cost = cost === undefined || event.costUsd === undefined ? undefined : cost + event.costUsd;
      } else if (event.type === 'tool_call_end') run.toolCalls += 1;
      else if (event.type === 'coagent_start') run.reviewRounds += 1;
      else if (event.type === 'coagent_end') approved = event.verdict === 'approved';
    }
    const result = await events.result;
    // The engine makes no call past the token budget; a run whose last call went past it still used more than it may.
    const { input, output, cacheRead, cacheWrite } = run.tokens;
    const overBudget = result.status === 'budget' || input + output + cacheRead + cacheWrite > settings.budget.tokens;
    // Over its time or its tokens is how the run ended, even when its last call finished before the stop took hold.
    run.ended =
      over !== undefined ? over
      : overBudget ? 'budget'
      : result.status === 'cancelled' ? 'cancelled'
      : result.status === 'completed' ? (approved ? 'approved' : 'completed')
      : result.status === 'needs_input' ? 'answered'
      : result.status;
    if (result.status === 'error' || result.status === 'limit') run.error = result.message;
    if (overBudget) run.error = `stopped: over the budget of ${settings.budget.tokens} tokens`;
    if (over === 'timeout') run.error = `stopped: over the budget of ${Math.round(settings.budget.wallMs / 1000)} s`;
  } catch (err) {
    run.ended = 'error';
    run.error = (err as Error).message;
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
  if (cost !== undefined && run.modelCalls > 0) run.costUsd = cost;
  return run;
}

/** How much of a check's output is kept in check.log (head and tail); the result's reason quotes its telling line. */
export const CHECK_OUTPUT_CHARS = 200_000;

/**
 * Copies hidden/ in and runs the check as the agent's commands run (in
 * `workspace`: the local sandbox with credentials removed, or the run's
 * container; the process group stopped on timeout or cancel); exit code
 * null when it timed out or was cancelled.
 */
export async function runCheck(task: EvalTask, root: string, workspace: NodeWorkspace, signal: AbortSignal): Promise<{ exitCode: number | null; output: string }> {
  const hidden = join(task.dir, 'hidden');
  if (existsSync(hidden)) cpSync(hidden, root, { recursive: true });
  try {
    const result = await workspace.exec(task.check, { timeoutMs: task.checkTimeoutMs, signal });
    return { exitCode: result.timedOut || result.aborted ? null : result.exitCode, output: result.output };
  } catch (err) {
    return { exitCode: 127, output: (err as Error).message };
  }
}

export function fingerprints(root: string, paths: readonly string[]): Record<string, string> {
  const prints: Record<string, string> = {};
  for (const path of paths) {
    const file = join(root, path);
    prints[path] = existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'missing';
  }
  return prints;
}

/** The line of a check's output that says what failed: the first error or failure, else the last line. */
export function telling(text: string): string {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const line = lines.find((candidate) => /error|fail|assert|expected/i.test(candidate) && !/^at /.test(candidate)) ?? lines.at(-1) ?? '';
  return line.slice(0, 200);
}
