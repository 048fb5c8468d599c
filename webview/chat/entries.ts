/**
 * The transcript's entries that are built once and never stream: a
 * message the person sent, a handoff between agents, the start of a
 * review and its verdict, a notice.
 */
import { details, el } from './elements';
import { t } from './l10n';
import { renderMarkdown } from './markdown';
import type { TranscriptEvent } from './protocol';

type HandoffEvent = Extract<TranscriptEvent, { type: 'handoff' }>;
type VerdictEvent = Extract<TranscriptEvent, { type: 'verdict' }>;

/** A review's outcome as the person reads it; `summary` follows as prose where it says something. */
function verdictWords(verdict: VerdictEvent['verdict']): { mark: string; text: string; colon: boolean } {
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

/** What crossed between the agents, by why: the text itself is written for the agent, so it stays folded. */
function handoffWords(purpose: HandoffEvent['purpose']): string | undefined {
  switch (purpose) {
    case 'review':
      return t('Sent for review');
    case 'feedback':
      return t("Back to work on the reviewer's notes");
    case 'follow_up':
      return t('Asked to go on');
    case 'summary_request':
      return t('Asked for a summary of the work');
  }
  return undefined;
}

const ordinals = (): string[] => [t('First review'), t('Second review'), t('Third review'), t('Fourth review'), t('Fifth review'), t('Sixth review'), t('Seventh review'), t('Eighth review'), t('Ninth review'), t('Tenth review')];

export function message(className: string, text: string): HTMLElement {
  const entry = el('div', `msg ${className}`);
  entry.append(el('div', 'msg-text', text));
  return entry;
}

/** A quiet line for a handoff; what was passed on is one click away. */
export function handoff(event: HandoffEvent): HTMLElement {
  const said = handoffWords(event.purpose) ?? event.purpose;
  if (!event.text.trim()) return el('div', 'msg msg-handoff', said);
  const entry = details('msg msg-handoff', said);
  entry.root.dataset['purpose'] = event.purpose;
  entry.root.append(el('div', 'msg-text', event.text));
  return entry.root;
}

/** "First review", "Second review": the rounds in words. */
export function reviewRound(round: number): string {
  return ordinals()[round - 1] ?? t`Review ${round}`;
}

export function reviewStart(event: Extract<TranscriptEvent, { type: 'review_start' }>): HTMLElement {
  const entry = el('div', 'review-start');
  entry.dataset['round'] = String(event.round);
  entry.append(el('span', 'review-round', reviewRound(event.round)), el('span', 'review-text', t('the reviewer checks the work')));
  return entry;
}

/** The reviewer's verdict, and what it said, as prose (markdown, rendered safely). */
export function verdict(event: VerdictEvent): HTMLElement {
  const { mark, text, colon } = verdictWords(event.verdict);
  const entry = el('div', `verdict verdict-${event.verdict}`);
  entry.dataset['verdict'] = event.verdict;
  entry.setAttribute('role', 'status');
  const head = el('div', 'verdict-head');
  const summary = event.summary.trim();
  head.append(el('span', 'verdict-mark', mark), el('strong', 'verdict-text', `${text}${colon && summary ? ':' : ''}`));
  entry.append(head);
  if (summary && event.verdict !== 'cancelled') {
    const body = el('div', 'verdict-summary markdown');
    body.innerHTML = renderMarkdown(summary);
    entry.append(body);
  }
  return entry;
}

export function notice(level: 'info' | 'warning' | 'error', text: string): HTMLElement {
  const entry = el('div', `notice notice-${level}`, text);
  entry.dataset['level'] = level;
  if (level === 'error') entry.setAttribute('role', 'alert');
  return entry;
}
