/**
 * The words a transcript shows for what agents do, decided once for the
 * three doors: a tool call's title, a review and its verdict, a handoff, a
 * retry, a doom loop, a compaction. Each takes a `Translate` (VS Code
 * passes its `t`, the chat's page its own; the CLI and ACP read the
 * English). No Node here: the chat's page imports it too.
 */
import type { CallWords } from '../vocabulary/tool-story';
import { oneLine } from '../vocabulary/text';
import { english, type Translate } from '../vocabulary/translate';

export type Verdict = 'approved' | 'feedback' | 'cancelled' | 'error';
export type Purpose = 'review' | 'feedback' | 'follow_up' | 'summary_request';

/** A tool call's title: "Reading greet.ts" while it runs, "Read greet.ts" once it ended. */
export function callTitle(words: Pick<CallWords, 'doing' | 'done' | 'target'>, ended: boolean): string {
  const verb = ended ? words.done : words.doing;
  return words.target ? `${verb} ${words.target}` : verb;
}

/**
 * A call's title once it ended: what it did ("Wrote notes.md"), or that it
 * was refused ("Not allowed: write notes.md") or failed ("Could not write
 * notes.md"); a cancelled call keeps its running title.
 */
export function endedTitle(words: Pick<CallWords, 'doing' | 'done' | 'ask' | 'target'>, status: 'completed' | 'failed' | 'cancelled', denied: boolean, t: Translate = english): string {
  const target = words.target ? ` ${words.target}` : '';
  if (status === 'completed') return callTitle(words, true);
  if (status === 'cancelled') return callTitle(words, false);
  return `${denied ? notAllowedWords(words.ask, t) : couldNotWords(words.ask, t)}${target}`;
}

/** A failed call's head: "Could not write" (its target follows). */
export function couldNotWords(ask: string, t: Translate = english): string {
  return t('Could not {0}', ask);
}

/** A refused call's head: "Not allowed: edit" (its target follows). */
export function notAllowedWords(ask: string, t: Translate = english): string {
  return t('Not allowed: {0}', ask);
}

/** Who refused a call, in a person's words (never the text written for the model). */
export function refusedWords(who: 'person' | 'settings', t: Translate = english): string {
  return who === 'person' ? t('You said no.') : t('Your settings do not allow this.');
}

/** A review's outcome as the person reads it: a mark, the words, and whether what the reviewer said follows after a colon. */
export function verdictWords(verdict: Verdict, t: Translate = english): { mark: string; text: string; colon: boolean } {
  switch (verdict) {
    case 'approved':
      return { mark: '✓', text: t('Reviewer approved'), colon: false };
    case 'feedback':
      return { mark: '↩', text: t('Reviewer asked for changes'), colon: true };
    case 'cancelled':
      return { mark: '⊘', text: t('Review cancelled'), colon: false };
    case 'error':
      return { mark: '✖', text: t('The review failed'), colon: true };
  }
}

/** What crossed between the agents, by why (the text itself is written for the agent); the purpose itself when it is none of these. */
export function handoffWords(purpose: Purpose | (string & {}), t: Translate = english): string {
  switch (purpose) {
    case 'review':
      return t('Sent for review');
    case 'feedback':
      return t("Back to work on the reviewer's notes");
    case 'follow_up':
      return t('Asked to go on');
    case 'summary_request':
      return t('Asked for a summary of the work');
    default:
      return purpose;
  }
}

/** "First review", "Second review": the rounds in words. */
export function reviewRound(round: number, t: Translate = english): string {
  const ordinals = [t('First review'), t('Second review'), t('Third review'), t('Fourth review'), t('Fifth review'), t('Sixth review'), t('Seventh review'), t('Eighth review'), t('Ninth review'), t('Tenth review')];
  return ordinals[round - 1] ?? t('Review {0}', round);
}

/** What a review's start says after its round. */
export function reviewStartWords(t: Translate = english): string {
  return t('the reviewer checks the work');
}

/** A failed request the provider retries: one line, updated in place (the reason last: it has brackets of its own). */
export function retryWords(attempt: number, delayMs: number, reason: string, t: Translate = english): string {
  return t('The provider failed; retry {0} in {1}: {2}', attempt, seconds(delayMs), oneLine(reason, 120));
}

export function doomLoopWords(agent: string, tool: string, repeats: number, t: Translate = english): string {
  return t('{0} called {1} the same way {2} times in a row and was stopped.', agent, tool, repeats);
}

export function compactionWords(agent: string, before: number, after: number, how: string, t: Translate = english): string {
  return t("{0}'s history was compacted to fit the context window ({1} \u2192 {2} tokens, {3}).", agent, before, after, how);
}

/** What a helper (a subagent a task call runs) is doing, as its line says it: "Running explorer…", "explorer", "explorer completed". */
export function helperHeadline(subagent: string, state: 'started' | 'progress' | 'ended', status?: string, t: Translate = english): string {
  if (state === 'started') return t('Running {0}…', subagent);
  if (state === 'progress') return subagent;
  return t('{0} {1}', subagent, helperStatusWords(status, t));
}

/** A helper's state beside its name on the chat's card: started, working, then how it ended. */
export function helperStateWords(state: 'started' | 'progress' | 'ended', t: Translate = english): string {
  if (state === 'started') return t('started');
  if (state === 'progress') return t('working');
  return t('finished');
}

/** How a helper ended: completed, failed, cancelled (its run's status, in words). */
export function helperStatusWords(status: string | undefined, t: Translate = english): string {
  if (status === 'completed') return t('completed');
  if (status === 'failed' || status === 'error') return t('failed');
  if (status === 'cancelled') return t('cancelled');
  return status ?? t('ended');
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
