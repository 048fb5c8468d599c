/**
 * The transcript's entries that are built once and never stream: a
 * message the person sent, a handoff between agents, the start of a
 * review and its verdict, a notice. Their words are the transcript
 * model's (src/transcript/words.ts), in the page's language.
 */
import { details, el } from './elements';
import { t } from './l10n';
import { renderMarkdown } from './markdown';
import type { TranscriptEvent } from './protocol';
import { handoffWords, reviewRound as roundWords, reviewStartWords, verdictWords } from '../../src/transcript/words';

type HandoffEvent = Extract<TranscriptEvent, { type: 'handoff' }>;
type VerdictEvent = Extract<TranscriptEvent, { type: 'verdict' }>;

export function message(className: string, text: string): HTMLElement {
  const entry = el('div', `msg ${className}`);
  entry.append(el('div', 'msg-text', text));
  return entry;
}

/** A quiet line for a handoff; what was passed on is one click away. */
export function handoff(event: HandoffEvent): HTMLElement {
  const said = handoffWords(event.purpose, t);
  if (!event.text.trim()) return el('div', 'msg msg-handoff', said);
  const entry = details('msg msg-handoff', said);
  entry.root.dataset['purpose'] = event.purpose;
  entry.root.append(el('div', 'msg-text', event.text));
  return entry.root;
}

/** "First review", "Second review": the rounds in words (the transcript model's). */
export function reviewRound(round: number): string {
  return roundWords(round, t);
}

export function reviewStart(event: Extract<TranscriptEvent, { type: 'review_start' }>): HTMLElement {
  const entry = el('div', 'review-start');
  entry.dataset['round'] = String(event.round);
  entry.append(el('span', 'review-round', reviewRound(event.round)), el('span', 'review-text', reviewStartWords(t)));
  return entry;
}

/** The reviewer's verdict, and what it said, as prose (markdown, rendered safely). */
export function verdict(event: VerdictEvent): HTMLElement {
  const { mark, text, colon } = verdictWords(event.verdict, t);
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
