/**
 * The parallel attempts' card, as the host sends it whole each time it
 * changes (protocol.ts's `attempts` message): one card for a run of N
 * attempts of one prompt, its rows running, then ranked with a diff per
 * attempt and Apply. Plain JSON. Words the view prints are chosen in the
 * view (translated there); text from the attempts and the judge (their
 * summaries, reasons, diffs) is model output and shown as text only.
 */
import type { CardDiff } from './view-shapes';

/** How an attempt's run ended (a prompt's statuses: protocol.ts's PromptStatus, which imports this module). */
export type AttemptStatus = 'completed' | 'needs_input' | 'limit' | 'budget' | 'cancelled' | 'error';

/** The attempts picker: 1 is a prompt as usual; 2–4 run that many attempts. */
export const ATTEMPT_COUNTS = [1, 2, 3, 4] as const;

/**
 * Where a run of attempts is: `running` (rows fill in), `judging`, `ranked`
 * (Apply offered), `applying`, `applied` (`applied` names which), `dismissed`
 * (the person chose none), `cancelled`, or `failed` (`problem` says why and
 * what to do; no worktree was left).
 */
export type AttemptsPhase = 'running' | 'judging' | 'ranked' | 'applying' | 'applied' | 'dismissed' | 'cancelled' | 'failed';

export interface AttemptRowView {
  n: number;
  /** `waiting` for a free slot, `running`, or `ended` (then `status`). */
  state: 'waiting' | 'running' | 'ended';
  status?: AttemptStatus;
  /** Tool calls made so far. */
  steps: number;
  /** undefined: no check ran. */
  check?: boolean;
  files: { path: string; added: number; removed: number }[];
  tokens: number;
  costUsd?: number;
  /** The judge's reason, else the attempt's own summary (model output: text only). */
  why?: string;
  /** Its changes, one diff per file (capped by the host). */
  diffs?: CardDiff[];
}

export interface AttemptsCardView {
  /** The run's id: Apply and Apply none name it. */
  id: string;
  count: number;
  phase: AttemptsPhase;
  /** Best first once ranked; by number before. */
  rows: AttemptRowView[];
  /** Once ranked: whether the judge ranked them, or why not (core's words). */
  judged?: { used: true } | { used: false; why: string };
  /** All attempts' and the judge's cost, when every call had prices. */
  costUsd?: number;
  /** The attempt applied (phase `applied`), or being applied. */
  applied?: number;
  /** Why the run could not start or failed, and what to do. */
  problem?: string;
  /** The check command each attempt ran once it ended (setting crow.attempts.check); its result is each row's `check`. */
  check?: string;
  /** A finished background run's attempts, picked from what it kept (no worktrees): Apply none leaves them there. */
  kept?: boolean;
  /** The workspace's check command, not run because the workspace is not trusted (what the person may trust to run it). */
  checkWithheld?: string;
}
