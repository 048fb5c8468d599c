/**
 * The transcript's entries that are built once and never stream: a
 * message the person sent, a handoff between agents, the start of a
 * review and its verdict, a notice.
 */
import { actorBadge, details, el } from './elements';
import type { TranscriptEvent } from './protocol';

type HandoffEvent = Extract<TranscriptEvent, { type: 'handoff' }>;

const VERDICTS: Record<Extract<TranscriptEvent, { type: 'verdict' }>['verdict'], { mark: string; text: string }> = {
  approved: { mark: '✓', text: 'Approved' },
  feedback: { mark: '↩', text: 'Changes requested' },
  cancelled: { mark: '⊘', text: 'Review cancelled' },
  error: { mark: '✖', text: 'Review failed' },
};

export function message(className: string, text: string): HTMLElement {
  const entry = el('div', `msg ${className}`);
  entry.append(el('div', 'msg-text', text));
  return entry;
}

export function handoff(event: HandoffEvent): HTMLElement {
  const entry = el('div', 'msg msg-handoff');
  const head = el('div', 'handoff-head');
  head.append(actorBadge(event.from), el('span', 'handoff-arrow', '→'), actorBadge(event.to), el('span', 'handoff-purpose', event.purpose));
  entry.append(head);
  if (event.text.trim()) {
    const text = details('handoff-text', 'What was passed on');
    text.root.append(el('div', 'msg-text', event.text));
    entry.append(text.root);
  }
  return entry;
}

export function reviewStart(event: Extract<TranscriptEvent, { type: 'review_start' }>): HTMLElement {
  const entry = el('div', 'review-start');
  entry.dataset['round'] = String(event.round);
  entry.append(actorBadge(event.reviewer), el('span', 'review-text', `reviews ${event.primary.agent}'s work`), el('span', 'review-round', `round ${event.round}`));
  return entry;
}

export function verdict(event: Extract<TranscriptEvent, { type: 'verdict' }>): HTMLElement {
  const { mark, text } = VERDICTS[event.verdict];
  const entry = el('div', `verdict verdict-${event.verdict}`);
  entry.dataset['verdict'] = event.verdict;
  entry.setAttribute('role', 'status');
  entry.append(el('span', 'verdict-mark', mark), el('strong', 'verdict-text', text), el('span', 'verdict-by', `${event.reviewer.agent}, round ${event.round}`));
  return entry;
}

export function notice(level: 'info' | 'warning' | 'error', text: string): HTMLElement {
  const entry = el('div', `notice notice-${level}`, text);
  entry.dataset['level'] = level;
  if (level === 'error') entry.setAttribute('role', 'alert');
  return entry;
}
