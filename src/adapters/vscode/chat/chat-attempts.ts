/**
 * Parallel attempts in the chat view: the Attempts picker's count, and a
 * prompt sent while it is above 1 run as that many attempts side by side
 * (src/attempts/best-of.ts), each in its own git worktree, ranked by the
 * judge, shown as one card that fills in as they go (attempts-card.ts in
 * the view). The person applies one of them (a prompt of the chat's own
 * session, apply-attempt.ts's program, so Undo and the changes bar work on
 * it) or none; the worktrees are removed then, or when the view closes or
 * another session opens. Plain Node, like the rest of the controller.
 */
import { randomUUID } from 'node:crypto';
import { applyAttemptProgram, applyAttemptText } from '../../../attempts/apply-attempt';
import { AttemptsError, type AttemptTrees } from '../../../attempts/attempt-trees';
import { type AttemptOutcome, type AttemptsProgress, runAttempts } from '../../../attempts/best-of';
import type { RankedAttempts } from '../../../attempts/ranking-table';
import { errorText } from '../../../vocabulary/text';
import { titleOf } from '../../../host/prompt-input';
import { addUsageEvent, emptyMeter, type Meter } from '../../../host/cost';
import type { AgentEvent } from '../../../engine/events';
import type { ProgrammaticCommand } from '../../../agents/programmatic-command';
import { tellAgents } from '../../../session/agent-notes';
import type { AttemptRowView, AttemptsCardView, HostMessage, PromptStatus, TranscriptEvent } from '../../../../webview/chat/protocol';
import { notice, promptMessage } from './transcript-translator';
import { type KeptSource, openKeptRun, pickKept } from './chat-kept-attempts';
import { t } from '../l10n';
import { attemptSessions } from './attempt-sessions';
import type { ChatHost, ChatSession, PromptObserver } from './chat-session';
import { patchDiffs } from './patch-diffs';
import { attemptsCheck } from './attempts-check';

export interface AttemptsParts {
  host: ChatHost;
  post: (message: HostMessage) => void;
  /** Shows a transcript event (and keeps it for a reloaded view). */
  show: (event: TranscriptEvent) => void;
  /** The session on screen. */
  current: () => ChatSession | undefined;
  /**
   * Runs `start` as a prompt of `chat` shown as `text` (the controller's
   * run: the person's line, the busy state, meters, the changes bar).
   */
  runInSession: (chat: ChatSession, text: string, start: (observer: PromptObserver) => Promise<unknown>) => Promise<void>;
  /** The view's meters for a run of attempts: called as it starts, it gives what takes the run's tokens and cost so far (the attempts' and the judge's). */
  meter: () => (meter: Meter) => void;
}

interface Run {
  prompt: string;
  card: AttemptsCardView;
  chat: ChatSession;
  abort: AbortController;
  /** The attempts' outcome once they ended; its worktrees stay until the person chooses (a kept background run has none). */
  result?: RankedAttempts & { trees?: AttemptTrees };
  /** A finished background run's attempts, picked from what it kept. */
  kept?: KeptSource;
  /** The run itself, to wait for when the view closes. */
  done?: Promise<void>;
  /** The attempts' and the judge's tokens and cost so far, and the model calls counted. */
  meter: Meter;
  calls: number;
  showMeter: (meter: Meter) => void;
}

export class ChatAttempts {
  /** How many attempts the next prompts run as. */
  count = 1;
  private current: Run | undefined;

  constructor(private readonly parts: AttemptsParts) {}

  /** Whether attempts are running now (a prompt sent meanwhile waits for them). */
  get running(): boolean {
    const phase = this.current?.card.phase;
    return phase === 'running' || phase === 'judging' || phase === 'applying';
  }

  pick(count: number): void {
    this.count = count;
    this.parts.post({ type: 'attempts_count', count });
  }

  /** What a reloaded view needs: the picker's count and the last run's card. */
  replay(): HostMessage[] {
    return [{ type: 'attempts_count', count: this.count }, ...(this.current ? [{ type: 'attempts', card: this.current.card } as const] : [])];
  }

  /** A prompt the person sent with Attempts above 1: their message, the view busy while the attempts run, then the card. */
  async send(chat: ChatSession, text: string): Promise<void> {
    this.parts.show(promptMessage(text));
    this.parts.post({ type: 'busy', busy: true });
    try {
      await this.start(chat, text);
    } finally {
      if (this.parts.current() === chat) this.parts.post({ type: 'busy', busy: false });
    }
  }

  /** Runs `prompt` as `count` attempts; resolves once they are ranked (or failed). */
  async start(chat: ChatSession, prompt: string): Promise<void> {
    await this.discard();
    const count = this.count;
    const check = attemptsCheck(this.parts.host.attemptsCheck?.() ?? {}, this.parts.host.trusted?.() ?? false);
    const run: Run = {
      prompt,
      chat,
      abort: new AbortController(),
      meter: emptyMeter(),
      calls: 0,
      showMeter: this.parts.meter(),
      card: {
        id: randomUUID(),
        count,
        phase: 'running',
        rows: Array.from({ length: count }, (_, index) => ({ n: index + 1, state: 'waiting', steps: 0, files: [], tokens: 0 })),
        ...(check.command !== undefined ? { check: check.command } : {}),
        ...(check.withheld !== undefined ? { checkWithheld: check.withheld } : {}),
      },
    };
    this.current = run;
    this.show(run);
    if (check.withheld !== undefined) this.parts.host.log?.(`The workspace's crow.attempts.check (${check.withheld}) was not run: the workspace is not trusted.`);
    run.done = this.follow(run, prompt, count, check.command);
    await run.done;
  }

  private async follow(run: Run, prompt: string, count: number, check: string | undefined): Promise<void> {
    try {
      const sessions = await attemptSessions({ host: this.parts.host, chat: run.chat, count });
      const result = await runAttempts({
        root: this.parts.host.root,
        env: await this.parts.host.env(),
        prompt,
        count,
        concurrency: sessions.concurrency,
        ...(check !== undefined ? { check } : {}),
        signal: run.abort.signal,
        openAttempt: (root, n) => sessions.openAttempt(root, n),
        openJudge: (judge) => sessions.openJudge(judge),
        progress: (event) => this.progress(run, event),
        judgeEvent: (event) => tally(run, event),
      });
      run.result = result;
      if (run.abort.signal.aborted) {
        run.card = { ...run.card, phase: 'cancelled' };
        await this.removeTrees(run);
      } else run.card = ranked(run.card, result);
    } catch (err) {
      const problem = err instanceof AttemptsError ? `${chatWords(err.message)} ${t('Or set Attempts to 1 to run the prompt as one session.')}` : t`The attempts could not run: ${errorText(err)}`;
      run.card = { ...run.card, phase: 'failed', problem };
    }
    this.show(run);
  }

  private progress(run: Run, event: AttemptsProgress): void {
    const row = (n: number, change: Partial<AttemptRowView>): void => {
      run.card = { ...run.card, rows: run.card.rows.map((one) => (one.n === n ? { ...one, ...change } : one)) };
    };
    switch (event.type) {
      case 'attempt_start':
        row(event.n, { state: 'running' });
        break;
      case 'attempt_event': {
        tally(run, event.event);
        if (event.event.type !== 'tool_call_start') return;
        const steps = (run.card.rows.find((one) => one.n === event.n)?.steps ?? 0) + 1;
        row(event.n, { steps });
        break;
      }
      case 'attempt_end':
        row(event.n, { state: 'ended', status: event.status });
        break;
      case 'check':
        row(event.n, { check: event.passed });
        break;
      case 'judging':
        run.card = { ...run.card, phase: 'judging' };
        break;
    }
    if (this.current === run) this.show(run);
  }

  /**
   * Shows the comparison card of the finished background run `id` (its
   * kept attempts, chat-kept-attempts.ts) to apply one through `chat`, the
   * session on screen; it replaces the card of attempts run here.
   */
  async openKept(id: string, chat: ChatSession): Promise<void> {
    const opened = await openKeptRun(this.parts.host, id);
    await this.discard();
    const { result } = opened;
    const base: AttemptsCardView = { id, count: result.attempts.length, phase: 'ranked', rows: [], kept: true };
    const card = ranked(base, result);
    const run: Run = { prompt: opened.prompt, chat, abort: new AbortController(), meter: emptyMeter(), calls: 0, showMeter: () => undefined, result, kept: opened.source, card };
    if (opened.applied !== undefined) run.card = { ...card, phase: 'applied', ...(opened.applied > 0 ? { applied: opened.applied } : {}) };
    this.current = run;
    this.parts.show(notice('info', t`The attempts of the background run "${oneLine(opened.prompt)}":`));
    this.show(run);
  }

  /** Applies attempt `n` of run `id` through the chat's session; the worktrees go once it is in. */
  async apply(id: string, n: number): Promise<void> {
    const run = this.chosen(id);
    const attempt = run.result?.attempts.find((one) => one.n === n);
    if (!run.result || !attempt || attempt.changes.files.length === 0) throw new Error(t`Attempt ${n} changed nothing: there is nothing of it to apply.`);
    // A kept run's patch is read again (and the run claimed, once); attempts run here apply from their worktrees.
    const picked = run.kept ? await pickKept(run.kept, n) : { changes: attempt.changes, release: () => undefined };
    const target = run.kept?.target ?? run.result.trees!;
    // The chat's agents never saw the attempts: once one is applied they read what came of it, before the person's next message.
    const note = appliedNote(run.prompt, n, picked.changes.files.map((file) => file.path));
    const program = telling(applyAttemptProgram(target, n, picked.changes, await this.parts.host.env()), note);
    // The session is titled by the person's prompt, not by the Apply that is its first stored prompt.
    if (!run.chat.session.title) run.chat.session.title = titleOf([{ type: 'text', text: run.prompt }]);
    run.card = { ...run.card, phase: 'applying', applied: n };
    this.show(run);
    const outcome: { status: PromptStatus } = { status: 'error' };
    const text = applyAttemptText(n);
    await this.parts.runInSession(run.chat, text, async (observer) => {
      outcome.status = (await run.chat.applyAttempt(text, program, observer)).status;
    });
    if (outcome.status === 'completed') {
      run.card = { ...run.card, phase: 'applied', applied: n };
      await this.removeTrees(run);
    } else {
      picked.release();
      // Not applied (the error card says why): the person may pick another, or none.
      const { applied: _applied, ...rest } = run.card;
      run.card = { ...rest, phase: 'ranked' };
    }
    this.show(run);
  }

  /** Applies none of run `id`'s attempts: its worktrees go. */
  async dismiss(id: string): Promise<void> {
    const run = this.chosen(id);
    run.card = { ...run.card, phase: 'dismissed' };
    await this.removeTrees(run);
    this.show(run);
  }

  /** Stops the running attempts (their card says cancelled once they wind down). */
  cancel(): boolean {
    if (!this.running || this.current?.card.phase === 'applying') return false;
    this.current?.abort.abort();
    return true;
  }

  /** The view closes or another session opens: running attempts stop, and no worktree is left. */
  async close(): Promise<void> {
    await this.discard();
    this.current = undefined;
  }

  /** Ends the current run, if any: stops it, waits for it, removes its worktrees. */
  private async discard(): Promise<void> {
    const run = this.current;
    if (!run) return;
    run.abort.abort();
    await run.done?.catch(() => undefined);
    if (run.card.phase === 'ranked') {
      run.card = { ...run.card, phase: 'dismissed' };
      this.show(run);
    }
    await this.removeTrees(run);
  }

  /** The run the person chose from, while its choice is open; an error saying why not otherwise. */
  private chosen(id: string): Run & { result: RankedAttempts } {
    const run = this.current;
    if (!run || run.card.id !== id || !run.result) throw new Error(t('Those attempts are gone (another run or session replaced them): send the prompt again to run new ones.'));
    if (run.card.phase !== 'ranked') throw new Error(t('Those attempts were already dealt with: send the prompt again to run new ones.'));
    return run as Run & { result: RankedAttempts };
  }

  private async removeTrees(run: Run): Promise<void> {
    const trees = run.result?.trees;
    if (!trees) return;
    const left = await trees.removeAll().catch((err: unknown) => [errorText(err)]);
    if (left.length > 0) this.parts.host.log?.(`Could not remove the attempts' worktrees ${left.join(', ')}: remove them with git worktree remove --force PATH.`);
  }

  private show(run: Run): void {
    if (this.current === run) this.parts.post({ type: 'attempts', card: run.card });
  }
}

/** The card once the attempts are ranked: best first, each with its changes and the judge's reason. */
function ranked(card: AttemptsCardView, result: RankedAttempts): AttemptsCardView {
  const byN = new Map(result.attempts.map((attempt) => [attempt.n, attempt]));
  const steps = new Map(card.rows.map((row) => [row.n, row.steps]));
  const rows = result.ranking.map((rank) => rowOf(byN.get(rank.n)!, rank.reason, steps.get(rank.n) ?? 0));
  return {
    ...card,
    phase: 'ranked',
    rows,
    judged: result.judge.used ? { used: true } : { used: false, why: result.judge.why },
    ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
  };
}

function rowOf(attempt: AttemptOutcome, reason: string, steps: number): AttemptRowView {
  return {
    n: attempt.n,
    state: 'ended',
    status: attempt.status,
    steps,
    ...(attempt.check ? { check: attempt.check.passed } : {}),
    files: attempt.changes.files,
    tokens: attempt.tokens,
    ...(attempt.costUsd !== undefined ? { costUsd: attempt.costUsd } : {}),
    why: reason || attempt.summary,
    diffs: patchDiffs(attempt.changes.patch),
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** What the chat's agents read once an attempt is applied: the task, and the files it changed. */
function appliedNote(prompt: string, n: number, files: readonly string[]): string {
  const task = prompt.replace(/\s+/g, ' ').trim().slice(0, 500);
  return `[The person ran the task "${task}" as parallel attempts outside this conversation and applied attempt ${n}: it changed ${files.join(', ')}. Read those files before changing them again.]`;
}

/** `program`, which once it completes adds `note` to every agent's history of the session, the composition's among them (as apply-code.ts does). */
function telling(program: ProgrammaticCommand, note: string): ProgrammaticCommand {
  return {
    ...program,
    run: (input) => {
      const stream = program.run(input);
      void stream.result.then(
        (result) => {
          if (result.status !== 'completed') return;
          input.session.sessionFor('primary', input.agent.primary.name);
          if (input.agent.coagent) input.session.sessionFor('coagent', input.agent.coagent.name);
          tellAgents(input.session, note);
        },
        () => undefined,
      );
      return stream;
    },
  };
}

/** attempt-trees.ts's reason in the chat's terms: a folder below the repository's top is opened, not run from with --cwd. */
function chatWords(message: string): string {
  const top = /^Attempts run from the top folder of the repository: run crow there \((.*)\), or pass --cwd /.exec(message)?.[1];
  return top === undefined ? message : t`Attempts run from the top folder of the repository: open ${top} in VS Code (File > Open Folder), then try again.`;
}

/** A model call's usage of an attempt or the judge, onto the run's meter (cost only while every call had prices). */
function tally(run: Run, event: AgentEvent): void {
  if (event.type !== 'usage' && event.type !== 'subagent_usage') return;
  run.meter = addUsageEvent(run.meter, event, run.calls++ === 0);
  run.showMeter(run.meter);
}
