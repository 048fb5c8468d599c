/**
 * The transcript's entries that are built once and never stream: a
 * message the person sent, a handoff between agents, the start of a
 * review and its verdict, a notice.
 */
import { details, el } from './elements';
import { renderMarkdown } from './markdown';
import type { TranscriptEvent } from './protocol';

type HandoffEvent = Extract<TranscriptEvent, { type: 'handoff' }>;
type VerdictEvent = Extract<TranscriptEvent, { type: 'verdict' }>;

/** A review's outcome as the person reads it; `summary` follows as prose where it says something. */
const VERDICTS: Record<VerdictEvent['verdict'], { mark: string; text: string; colon: boolean }> = {
  approved: { mark: '✓', text: 'Reviewer approved', colon: false },
  feedback: { mark: '↩', text: 'Reviewer asked for changes', colon: true },
  cancelled: { mark: '⊘', text: 'Review cancelled', colon: false },
  error: { mark: '✖', text: 'The review failed', colon: true },
};

/** What crossed between the agents, by why: the text itself is written for the agent, so it stays folded. */
const HANDOFFS: Record<HandoffEvent['purpose'], string> = {
  review: 'Sent for review',
  feedback: "Back to work on the reviewer's notes",
  follow_up: 'Asked to go on',
  summary_request: 'Asked for a summary of the work',
};

const ORDINALS = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth'];

export function message(className: string, text: string): HTMLElement {
  const entry = el('div', `msg ${className}`);
  entry.append(el('div', 'msg-text', text));
  return entry;
}

/** A quiet line for a handoff; what was passed on is one click away. */
export function handoff(event: HandoffEvent): HTMLElement {
  const said = HANDOFFS[event.purpose] ?? event.purpose;
  if (!event.text.trim()) return el('div', 'msg msg-handoff', said);
  const entry = details('msg msg-handoff', said);
  entry.root.dataset['purpose'] = event.purpose;
  entry.root.append(el('div', 'msg-text', event.text));
  return entry.root;
}

/** "First review", "Second review": the rounds in words. */
export function reviewRound(round: number): string {
  const ordinal = ORDINALS[round - 1];
  return ordinal ? `${ordinal} review` : `Review ${round}`;
}

export function reviewStart(event: Extract<TranscriptEvent, { type: 'review_start' }>): HTMLElement {
  const entry = el('div', 'review-start');
  entry.dataset['round'] = String(event.round);
  entry.append(el('span', 'review-round', reviewRound(event.round)), el('span', 'review-text', 'the reviewer checks the work'));
  return entry;
}

/** The reviewer's verdict, and what it said, as prose (markdown, rendered safely). */
export function verdict(event: VerdictEvent): HTMLElement {
  const { mark, text, colon } = VERDICTS[event.verdict];
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
