/**
 * What a reviewer (a coagent) decided by the end of its turn, in one place
 * for the flow (its coagent_end event) and the turn's span (the trace
 * viewer's "reviewer · asked for changes: …" row).
 */
import type { ReviewVerdict, TurnStopReason } from './events';

/** task_complete approves; a cancelled or failed turn decided nothing; any other end asks for changes. */
export function reviewVerdict(taskComplete: string | undefined, stopReason: TurnStopReason): ReviewVerdict {
  if (taskComplete !== undefined) return 'approved';
  if (stopReason === 'cancelled') return 'cancelled';
  if (stopReason === 'error') return 'error';
  return 'feedback';
}

/** How much of the review the span keeps: enough to read the point of it in the trace. */
export const REVIEW_FEEDBACK_CHARS = 1_000;
