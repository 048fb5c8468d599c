import type { SessionStore } from '../../../session/session-store';

export interface SessionTotals {
  prompts: number;
  /** US dollars, summed over the prompts that had prices. */
  costUsd: number;
}

/**
 * Prompt count and cost of a stored session, from its trace: one `prompt`
 * span per prompt, carrying the run's cost when it ended. A subagent's
 * session has its runs traced under its parent's prompt, and counts none.
 */
export function sessionTotals(store: SessionStore, sessionId: string): SessionTotals {
  const totals: SessionTotals = { prompts: 0, costUsd: 0 };
  let spans;
  try {
    spans = store.spans(sessionId);
  } catch {
    return totals;
  }
  for (const span of spans) {
    if (span.kind !== 'prompt') continue;
    totals.prompts += 1;
    const cost = span.attributes['crow.cost_usd'];
    if (typeof cost === 'number') totals.costUsd += cost;
  }
  return totals;
}
