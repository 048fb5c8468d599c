/**
 * `crow run --attempts N`: the prompt run by N sessions of the agent side
 * by side, each in its own git worktree (src/attempts/best-of.ts), ranked
 * by a judge, shown as a table, and the one the person picks (or the best,
 * with --apply-best) applied to their working tree as a prompt of its own,
 * so `crow undo` takes it back. Attempts write only in their worktree
 * (writes there need no asking; commands follow the folder's rules: run in
 * the sandbox, or asked, which nobody can answer here, so refused).
 */
import { providerConcurrency } from '../../agents/provider-queue';
import { resolveSettings } from '../../config/provider-config';
import { applyAttemptProgram, applyAttemptText } from '../../attempts/apply-attempt';
import { AttemptsError } from '../../attempts/attempt-trees';
import { finished } from '../../attempts/judge';
import { claimApplied, keepAttempts, MAX_KEPT_PATCH_BYTES, releaseApplied } from '../../attempts/kept-attempts';
import { shareLimits } from '../../attempts/share-limits';
import { type AttemptOutcome, type AttemptsProgress, type AttemptsResult, runAttempts } from '../../attempts/best-of';
import { errorText } from '../../vocabulary/text';
import type { HostSession } from '../../host/host-session';
import { type CliIO, UsageError } from './cli-io';
import { openRunSession, type RunChoices } from './run-setup';
import { attemptsTable, progressLine } from './attempts-lines';


export interface AttemptsChoices {
  count: number;
  /** At most this many at once; undefined: the default provider's [limits] concurrency (providerConcurrency). */
  concurrency?: number;
  check?: string;
  judge?: string;
  applyBest: boolean;
  keep: boolean;
  json: boolean;
  /** A background run's: its result is kept beside its record (kept-attempts.ts), to be picked later with crow sessions apply. */
  background?: { data: string; id: string };
}

/** Runs the attempts and applies one; the exit code. `run` holds the choices every session shares (folder, agent, models, limits). */
export async function runWithAttempts(prompt: string, run: RunChoices, choices: AttemptsChoices, io: CliIO, signal: AbortSignal): Promise<number> {
  // The folder's [limits] with the flags over them (an untrusted project may only lower them), shared out.
  const settings = resolveSettings(run.root, run.overrides, io.env);
  const share = shareLimits({ ...settings.limits, ...run.limits }, choices.count);
  // As many at once as the provider takes subagents at once ([limits] concurrency), unless --concurrency says.
  const concurrency = choices.concurrency ?? providerConcurrency(settings, settings.provider);
  const print = (line: string): void => void io.stderr.write(`${line}\n`);
  const json = (line: object): void => void io.stdout.write(`${JSON.stringify(line)}\n`);
  if (!choices.json) print(`Running ${choices.count} attempts of ${run.agent ?? 'the default agent'}, ${Math.min(concurrency, choices.count)} at a time, each in its own git worktree…`);
  let result: AttemptsResult;
  try {
    result = await runAttempts({
      root: run.root,
      env: io.env,
      prompt,
      count: choices.count,
      concurrency,
      ...(choices.check !== undefined ? { check: choices.check } : {}),
      signal,
      openAttempt: (tree) => openRunSession({ ...withoutId(run), root: tree, allow: withWrite(run.allow), limits: share, undo: false, interactive: false, session: undefined }, io),
      ...(choices.judge !== undefined ? { judge: choices.judge } : {}),
      openJudge: (judge) => openRunSession({ ...withoutId(run), agent: judge, allow: undefined, limits: share, undo: false, interactive: false, session: undefined }, io),
      progress: (event: AttemptsProgress) => {
        if (choices.json) {
          if (event.type !== 'attempt_event') json(event);
          return;
        }
        const line = progressLine(event);
        if (line !== undefined) print(line);
      },
    });
  } catch (err) {
    if (err instanceof AttemptsError) throw new UsageError(err.message);
    throw err;
  }
  return showAndApply(result, run, choices, io, signal);
}

/**
 * The ranking shown (a table, or a JSON line), the attempt the person
 * picks (or the best, with --apply-best) applied as a prompt of the
 * folder's session, and the run's worktrees removed unless kept; the exit
 * code. Where the attempts ran (worktrees here, or pods) makes no difference.
 */
export async function showAndApply(result: AttemptsResult, run: RunChoices, choices: AttemptsChoices, io: CliIO, signal: AbortSignal): Promise<number> {
  const print = (line: string): void => void io.stderr.write(`${line}\n`);
  const json = (line: object): void => void io.stdout.write(`${JSON.stringify(line)}\n`);
  try {
    if (choices.json) json({ type: 'attempts_result', ranking: result.ranking, judge: result.judge, costUsd: result.costUsd, attempts: result.attempts.map(withoutPatch) });
    else {
      io.stdout.write(`${attemptsTable(result)}\n`);
      const sessions = result.attempts.filter((attempt) => attempt.sessionId !== '').map((attempt) => `${attempt.n} ${attempt.sessionId}`);
      if (sessions.length > 0) print(`Each attempt's session (crow trace ID shows what it did): ${sessions.join(', ')}`);
    }
    // A stopped run's attempts are half done: nothing is kept to pick from.
    if (choices.background && !signal.aborted) keep(result, choices.background, io);
    if (signal.aborted) return 130;
    if (result.attempts.every((attempt) => attempt.status === 'error')) return 1;
    const chosen = await choose(result, choices, io, signal);
    if (chosen === undefined) return 0;
    const { background } = choices;
    if (background && !claimApplied(background.data, background.id, chosen.n)) return 0;
    const code = await apply(result, chosen, run, io);
    if (background && code !== 0) releaseApplied(background.data, background.id);
    return code;
  } finally {
    if (choices.keep) print(`The attempts' worktrees are kept in ${result.trees.folder} (git worktree list shows them; git worktree remove PATH removes one).`);
    else {
      const left = await result.trees.removeAll();
      if (left.length > 0) print(`Could not remove ${left.join(', ')}: remove them with git worktree remove --force PATH.`);
    }
  }
}

/** Keeps a background run's result to pick from later; a line saying so when it cannot (the run goes on). */
function keep(result: AttemptsResult, background: { data: string; id: string }, io: CliIO): void {
  try {
    const kept = keepAttempts(background.data, background.id, result);
    for (const attempt of kept.attempts) {
      if (attempt.patch === 'too-large') io.stderr.write(`Attempt ${attempt.n}'s changes are past the ${MAX_KEPT_PATCH_BYTES / (1024 * 1024)} MiB a background run keeps: it cannot be picked later.\n`);
    }
  } catch (err) {
    io.stderr.write(`Could not keep the attempts to pick from later: ${errorText(err)}\n`);
  }
}

/** The attempt to apply: the best with --apply-best, else the person's pick on a terminal, else none. */
async function choose(result: AttemptsResult, choices: AttemptsChoices, io: CliIO, signal: AbortSignal): Promise<AttemptOutcome | undefined> {
  const byN = (n: number): AttemptOutcome => result.attempts.find((attempt) => attempt.n === n)!;
  const applicable = result.ranking.map((ranked) => byN(ranked.n)).filter((attempt) => attempt.changes.files.length > 0);
  if (applicable.length === 0) {
    io.stderr.write('No attempt changed anything: nothing to apply.\n');
    return undefined;
  }
  if (choices.applyBest) {
    const best = byN(result.ranking[0]!.n);
    if (best.changes.files.length === 0 || !finished(best.status) || best.check?.passed === false) {
      io.stderr.write(`Nothing applied: the best attempt (${best.n}) did not finish its work and pass its check. Look at the table, then pick one on a terminal.\n`);
      return undefined;
    }
    return best;
  }
  if (choices.background) {
    const { id } = choices.background;
    io.stderr.write(`Nothing applied: pick one later with crow sessions apply ${id} N (N: ${applicable.map((attempt) => attempt.n).join(', ')}); crow undo takes it back.\n`);
    return undefined;
  }
  if (!io.stdinIsTTY || choices.json) {
    io.stderr.write('Nothing applied: pick an attempt on a terminal, or pass --apply-best (with --keep-worktrees to look at them first).\n');
    return undefined;
  }
  const numbers = applicable.map((attempt) => attempt.n);
  for (;;) {
    io.stderr.write(`Apply which attempt? ${numbers.join(', ')} (Enter: none) `);
    const answer = (await io.readLine(signal))?.trim();
    if (answer === undefined || answer === '' || /^n(one)?$/i.test(answer)) return undefined;
    const n = Number(answer);
    if (numbers.includes(n)) return byN(n);
    io.stderr.write(`"${answer}" is not one of ${numbers.join(', ')}.\n`);
  }
}

/** Applies `attempt` as a prompt of the folder's session (recorded for undo); the exit code. */
async function apply(result: AttemptsResult, attempt: AttemptOutcome, run: RunChoices, io: CliIO): Promise<number> {
  let host: HostSession | undefined;
  try {
    host = await openRunSession({ ...run, undo: true, interactive: false, session: undefined }, io);
    const events = host.prompt(applyAttemptText(attempt.n), { program: applyAttemptProgram(result.trees, attempt.n, attempt.changes, io.env) });
    for await (const event of events) void event;
    const outcome = await events.result;
    io.stderr.write(`${outcome.message}\n`);
    return outcome.status === 'completed' ? 0 : 1;
  } catch (err) {
    io.stderr.write(`Attempt ${attempt.n} was not applied: ${errorText(err)}\n`);
    return 1;
  } finally {
    await host?.close();
  }
}

/** The choices for a session of its own (an attempt's, the judge's): the run's id is for the session applying the attempt. */
function withoutId(run: RunChoices): RunChoices {
  const { id: _id, ...rest } = run;
  return rest;
}

/** Writes allowed without asking inside an attempt's own worktree, besides what --allow gives. */
function withWrite(allow: string | undefined): string {
  if (allow === undefined || allow.trim() === '') return 'write';
  return allow.split(',').map((part) => part.trim()).includes('all') ? allow : `${allow},write`;
}

function withoutPatch(attempt: AttemptOutcome): Omit<AttemptOutcome, 'changes'> & { files: AttemptOutcome['changes']['files'] } {
  const { changes, ...rest } = attempt;
  return { ...rest, files: changes.files };
}
