/**
 * A prompt run as N attempts through ACP (the session's "Attempts" option,
 * or `_meta["crow/attempts"]` on session/prompt): N sessions of the
 * session's agent and models, each in its own git worktree of the
 * session's folder (src/attempts/best-of.ts), shown to the client as a
 * plan (one entry per attempt) and message text; then the ranking as a
 * markdown table (the CLI's wording, src/attempts/ranking-table.ts); then
 * one session/request_permission whose options are the attempts to apply
 * and "Apply none", the best attempt's diff as the tool call's content.
 * The chosen attempt is applied as a prompt of the session itself
 * (apply-attempt.ts), so /undo takes it back. Writes in an attempt's own
 * worktree need no asking; its commands follow the folder's rules with
 * nobody to ask (as `crow run --attempts` off a terminal). What the
 * attempts and the judge spend is counted in the session's meter, and
 * their limits are shares of what the session may still spend.
 */
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { AgentContext, ContentBlock, PlanEntry, PermissionOption, RequestPermissionResponse, SessionConfigOption, StopReason, ToolCallContent } from '@agentclientprotocol/sdk';
import { providerConcurrency } from '../../agents/provider-queue';
import { shareLimits } from '../../attempts/share-limits';
import type { Limits } from '../../config/settings';
import type { AgentEvent } from '../../engine/events';
import type { CompositionRole } from '../../agents/role-models';
import { applyAttemptProgram, applyAttemptText } from '../../attempts/apply-attempt';
import { AttemptsError } from '../../attempts/attempt-trees';
import { type AttemptOutcome, type AttemptsProgress, type AttemptsResult, runAttempts } from '../../attempts/best-of';
import { endedText, rankingMarkdown } from '../../attempts/ranking-table';
import type { WorkspaceCatalog } from '../../host/catalog';
import { HostSession, type HostSessionOptions } from '../../host/host-session';
import { NodeWorkspace } from '../../tools/node-workspace';
import { errorText } from '../../vocabulary/text';
import { attemptsOption } from './attempts-option';
import { requestErrors } from './request-errors';
import type { UpdateSink } from './update-sink';

/** Attempts a prompt may ask for through ACP, and how many run at once when the folder has no settings to say. */
export const MAX_ACP_ATTEMPTS = 4;
const CONCURRENCY = 2;
/** Files of the best attempt shown as diffs in the permission request, and the largest file shown. */
const DIFF_FILES = 20;
const DIFF_FILE_BYTES = 256 * 1024;
/** The option that applies nothing. */
export const APPLY_NONE = 'apply-none';

export interface AttemptsDoor {
  /** The session the prompt was sent to: its folder, agent, models and meter; the chosen attempt is applied as its prompt. */
  host: HostSession;
  /** The catalog of a folder (an attempt's worktree gets its own, as `crow run --attempts` does). */
  catalogFor(cwd: string): WorkspaceCatalog | Promise<WorkspaceCatalog>;
  catalog: WorkspaceCatalog;
  store: HostSessionOptions['store'];
  env: NodeJS.ProcessEnv;
  /** The prompt's updates. */
  sink: UpdateSink;
  /** Sends the one session/request_permission; rejects or answers cancelled when `signal` aborts. */
  askApply(toolCall: { toolCallId: string; title: string; kind: 'edit'; content: ToolCallContent[] }, options: PermissionOption[], signal: AbortSignal): Promise<string | undefined>;
  signal: AbortSignal;
}

/**
 * A live session's attempts: how many a prompt runs as (its "Attempts"
 * option, 1: off), and the run going on, which the session's cancel stops
 * and which no other prompt may start beside.
 */
export class SessionAttempts {
  /** Attempts per prompt. */
  count = 1;
  private running: AbortController | undefined;

  constructor(
    private readonly host: HostSession,
    private readonly services: AttemptsServices,
    private readonly sink: () => UpdateSink,
    private readonly crashed: (err: unknown, sink: UpdateSink) => void,
  ) {}

  option(): SessionConfigOption {
    return attemptsOption(this.count);
  }

  /** Refuses a prompt while attempts run: it would change the folder they were started from. */
  checkIdle(): void {
    if (this.running) throw requestErrors.invalidRequest(`Attempts are running in session ${this.host.id}: wait for them (or cancel them), then send the prompt again.`);
  }

  cancel(): void {
    this.running?.abort();
  }

  /** The prompt as `count` attempts; a failure of Crow's own is told in the answer, as a crashed run's is. */
  async answer(content: ContentBlock[], count: number): Promise<StopReason> {
    if (this.host.busy) throw requestErrors.invalidRequest(`A prompt is already running in session ${this.host.id}: wait for it, or cancel it, before running attempts.`);
    const run = new AbortController();
    this.running = run;
    const sink = this.sink();
    try {
      return await answerWithAttempts(attemptsDoor(this.host, this.services, sink, run.signal), attemptsPromptText(content), count);
    } catch (err) {
      this.crashed(err, sink);
      return 'end_turn';
    } finally {
      await sink.drained();
      sink.close();
      this.running = undefined;
    }
  }
}

/** What the door uses of a live session's services (live-session.ts SessionServices). */
export interface AttemptsServices {
  client: AgentContext;
  catalog: WorkspaceCatalog;
  catalogFor?: (cwd: string) => WorkspaceCatalog | Promise<WorkspaceCatalog>;
  store: HostSessionOptions['store'];
  env: NodeJS.ProcessEnv;
}

/** The door of a live session's attempts: its host, folder catalogs and store, and the permission request through its client. */
export function attemptsDoor(host: HostSession, services: AttemptsServices, sink: UpdateSink, signal: AbortSignal): AttemptsDoor {
  return {
    host,
    catalog: services.catalog,
    catalogFor: services.catalogFor ?? (() => services.catalog),
    store: services.store,
    env: services.env,
    sink,
    signal,
    askApply: async (toolCall, options, cancel) => {
      const response: RequestPermissionResponse = await services.client.request(
        'session/request_permission',
        { sessionId: host.id, toolCall, options },
        { cancellationSignal: cancel, stopWaitingOnCancel: true },
      );
      return response.outcome.outcome === 'selected' ? response.outcome.optionId : undefined;
    },
  };
}

/** The prompt's text: attempts take text only (each attempt's session gets it as its prompt). */
export function attemptsPromptText(content: readonly ContentBlock[]): string {
  return content
    .map((block) => (block.type === 'text' ? block.text : block.type === 'resource_link' ? block.uri : ''))
    .filter((text) => text !== '')
    .join('\n');
}

export async function answerWithAttempts(door: AttemptsDoor, prompt: string, count: number): Promise<StopReason> {
  const { host, sink, signal } = door;
  const say = (text: string): void => sink.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  if (prompt.trim() === '') {
    say('Attempts need a prompt in words: send text (images and files alone cannot be given to each attempt).');
    return 'end_turn';
  }
  const plan = new AttemptsPlan(count, sink);
  const root = host.session.cwd;
  const share = shares(door, count);
  const settings = door.catalog.settings?.();
  // As many at once as the provider takes subagents at once ([limits] concurrency).
  const concurrency = settings ? providerConcurrency(settings, settings.provider) : CONCURRENCY;
  say(`Running ${count} attempts of ${host.session.agentName}, ${Math.min(concurrency, count)} at a time, each in its own git worktree…\n\n`);
  const counted = (event: AgentEvent): void => void host.meter.observe(event);
  host.meter.startPrompt();
  let result: AttemptsResult;
  try {
    result = await runAttempts({
      root,
      env: door.env,
      prompt,
      count,
      concurrency,
      signal,
      openAttempt: (tree) => openAttempt(door, tree, share),
      openJudge: (judge) => openJudge(door, share, judge),
      progress: (event) => {
        if (event.type === 'attempt_event') return counted(event.event);
        plan.progress(event);
        if (event.type === 'judging') say('Judging the attempts…\n\n');
      },
      judgeEvent: counted,
    });
  } catch (err) {
    if (err instanceof AttemptsError) {
      say(`Attempts cannot run here: ${err.message}`);
      return 'end_turn';
    }
    throw err;
  }
  try {
    plan.settle(result.attempts);
    say(`${rankingMarkdown(result)}\n\n`);
    if (signal.aborted) return 'cancelled';
    return await choose(door, result);
  } finally {
    const left = await result.trees.removeAll();
    if (left.length > 0) say(`\n\nCould not remove ${left.join(', ')}: remove them with git worktree remove --force PATH.`);
  }
}

/** The one permission request, and the chosen attempt applied; the stop reason. */
async function choose(door: AttemptsDoor, result: AttemptsResult): Promise<StopReason> {
  const say = (text: string): void => door.sink.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  const byN = (n: number): AttemptOutcome => result.attempts.find((attempt) => attempt.n === n)!;
  const applicable = result.ranking.map((ranked) => byN(ranked.n)).filter((attempt) => attempt.changes.files.length > 0);
  if (applicable.length === 0) {
    say('No attempt changed anything: nothing to apply.');
    return 'end_turn';
  }
  const best = applicable[0]!;
  const toolCallId = `attempts-${result.trees.base.slice(0, 12)}-${Date.now().toString(36)}`;
  const toolCall = { toolCallId, title: `Apply an attempt? (attempt ${best.n} ranked best; its diff is shown)`, kind: 'edit' as const, content: diffContent(door.host.session.cwd, best) };
  door.sink.send({ sessionUpdate: 'tool_call', ...toolCall, status: 'pending' });
  await door.sink.drained();
  const options: PermissionOption[] = [
    ...applicable.map((attempt, index): PermissionOption => ({ optionId: `apply-${attempt.n}`, kind: 'allow_once', name: `Apply attempt ${attempt.n}${index === 0 ? ' (best)' : ''}` })),
    { optionId: APPLY_NONE, kind: 'reject_once', name: 'Apply none' },
  ];
  const chosen = await door.askApply(toolCall, options, door.signal).catch(() => undefined);
  const attempt = applicable.find((one) => `apply-${one.n}` === chosen);
  if (!attempt) {
    door.sink.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text('Nothing applied.')] });
    say(door.signal.aborted ? 'Cancelled: nothing applied.' : 'Nothing applied.');
    return door.signal.aborted ? 'cancelled' : 'end_turn';
  }
  door.sink.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: diffContent(door.host.session.cwd, attempt) });
  let message: string;
  let applied = false;
  try {
    const events = door.host.prompt(applyAttemptText(attempt.n), { program: applyAttemptProgram(result.trees, attempt.n, attempt.changes, door.env), signal: door.signal });
    for await (const event of events) void event;
    const outcome = await events.result;
    applied = outcome.status === 'completed';
    message = applied ? outcome.message.replace('Undo with crow undo.', 'Undo with /undo.') : outcome.message;
  } catch (err) {
    message = `Attempt ${attempt.n} was not applied: ${errorText(err)}`;
  }
  door.sink.send({ sessionUpdate: 'tool_call_update', toolCallId, status: applied ? 'completed' : 'failed', content: [text(message)] });
  say(message);
  return 'end_turn';
}

/** The plan the client shows: one entry per attempt, as it goes. */
class AttemptsPlan {
  private readonly entries: PlanEntry[];

  constructor(
    count: number,
    private readonly sink: UpdateSink,
  ) {
    this.entries = Array.from({ length: count }, (_, index) => ({ content: `Attempt ${index + 1}: waiting`, priority: 'medium', status: 'pending' }));
    this.send();
  }

  progress(event: Exclude<AttemptsProgress, { type: 'attempt_event' }>): void {
    if (event.type === 'judging') return;
    const entry = this.entries[event.n - 1];
    if (!entry) return;
    if (event.type === 'attempt_start') Object.assign(entry, { content: `Attempt ${event.n}: running`, status: 'in_progress' });
    if (event.type === 'attempt_end') {
      const files = event.files === 1 ? '1 file' : `${event.files} files`;
      Object.assign(entry, { content: `Attempt ${event.n}: ${endedText(event.status)}, ${files} changed`, status: 'completed' });
    }
    if (event.type === 'check') entry.content = `${entry.content}, check ${event.passed ? 'passed' : 'FAILED'}`;
    this.send();
  }

  /** Every entry as its attempt ended (one that could not start at all included), sent once more. */
  settle(attempts: readonly AttemptOutcome[]): void {
    for (const attempt of attempts) {
      const entry = this.entries[attempt.n - 1];
      if (!entry) continue;
      const files = attempt.changes.files.length === 1 ? '1 file' : `${attempt.changes.files.length} files`;
      const check = attempt.check === undefined ? '' : `, check ${attempt.check.passed ? 'passed' : 'FAILED'}`;
      Object.assign(entry, { content: `Attempt ${attempt.n}: ${endedText(attempt.status)}, ${files} changed${check}`, status: 'completed' });
    }
    this.send();
  }

  send(): void {
    this.sink.send({ sessionUpdate: 'plan', entries: this.entries.map((entry) => ({ ...entry })) });
  }
}

/** An attempt's session: the session's agent, models and thinking level, in the attempt's worktree, writing there unasked. */
async function openAttempt(door: AttemptsDoor, tree: string, limits: Limits): Promise<HostSession> {
  const attempt = await HostSession.create(
    {
      catalog: () => door.catalogFor(tree),
      store: door.store,
      workspace: new NodeWorkspace(tree),
      forced: { write: 'allow' },
      limits,
      howToAllow: (category) => `allow "${category}" in the permission settings (permissions.${category} in config.toml): nobody is asked inside an attempt`,
      elicitUnavailable: 'an attempt runs in the background, so nobody can answer',
      env: door.env,
      storeFromFirstPrompt: true,
    },
    { agent: door.host.session.agentName },
  );
  for (const [role, model] of Object.entries(door.host.session.models) as [CompositionRole, string | undefined][]) {
    if (model !== undefined) await attempt.setModel(role, model).catch(() => undefined);
  }
  if (door.host.session.thoughtLevel !== undefined) attempt.setThoughtLevel(door.host.session.thoughtLevel);
  return attempt;
}

/** A session of `judge` (judgeAgent's choice: the agent's reviewer, or judge-attempts) in the person's folder. */
function openJudge(door: AttemptsDoor, limits: Limits, judge: string): Promise<HostSession> {
  return HostSession.create(
    {
      catalog: () => door.catalog,
      store: door.store,
      workspace: new NodeWorkspace(door.host.session.cwd),
      limits,
      elicitUnavailable: 'the judge runs in the background, so nobody can answer',
      env: door.env,
      storeFromFirstPrompt: true,
    },
    { agent: judge },
  );
}

/**
 * Each session's share (N attempts and the judge) of the prompt's limits
 * and of what the session may still spend, so that all of them together
 * stay within the folder's [limits].
 */
function shares(door: AttemptsDoor, count: number): Limits {
  const limits: Limits = { ...door.catalog.settings?.().limits };
  const spent = door.host.meter.session.costUsd ?? 0;
  const { maxCostPerSession, ...prompt } = limits;
  // The prompt's limits shared as every door shares them; what the session may still spend, shared too.
  return {
    ...shareLimits(prompt, count),
    ...(maxCostPerSession !== undefined ? { maxCostPerSession: Math.max(0, maxCostPerSession - spent) / (count + 1) } : {}),
  };
}

/** The attempt's changes as ACP diffs, file by file (text files of reasonable size; the rest named). */
function diffContent(root: string, attempt: AttemptOutcome): ToolCallContent[] {
  const shown: ToolCallContent[] = [];
  const skipped: string[] = [];
  for (const file of attempt.changes.files) {
    const before = readText(root, file.path);
    const after = readText(attempt.tree, file.path);
    if (shown.length >= DIFF_FILES || before === false || after === false) {
      skipped.push(file.path);
      continue;
    }
    shown.push({ type: 'diff', path: join(root, file.path), oldText: before ?? null, newText: after ?? '' });
  }
  if (skipped.length > 0) shown.push(text(`Also changed (not shown): ${skipped.join(', ')}`));
  return shown;
}

/**
 * A file's text; undefined when absent, false when it is not a plain file
 * inside `base` once links are followed (an attempt's work is model
 * output: a link it made to a file elsewhere is not read), binary, or too
 * large to show.
 */
function readText(base: string, relative: string): string | undefined | false {
  const path = join(base, relative);
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    if (!stat.isFile() || stat.size > DIFF_FILE_BYTES || !realpathSync(path).startsWith(`${realpathSync(base)}${sep}`)) return false;
    const content = readFileSync(path, 'utf8');
    return content.includes('\0') ? false : content;
  } catch {
    return false;
  }
}

function text(value: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}
