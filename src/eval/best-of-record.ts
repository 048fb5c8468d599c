/** What results.jsonl keeps of a best-of run (crow eval --attempts N, eval-best-of.ts): plain data. */
import type { RunStatus } from '../engine/events';
import type { Usage } from '../llm/types';
import type { RunArtifacts } from './eval-artifacts';

/** One attempt as results.jsonl keeps it. */
export interface AttemptRecord {
  n: number;
  /** Its own worktree's hidden check passed, it finished, and it left the protected files alone. */
  passed: boolean;
  ended: RunStatus;
  reason?: string;
  /** Files it changed. */
  files: number;
  tokens: Usage;
  costUsd?: number;
  sessionId: string;
  artifacts?: RunArtifacts;
}

/** What a best-of run adds to its EvalResult. */
export interface BestOfRecord {
  /** The agent every attempt ran. */
  agent: string;
  count: number;
  judge: string;
  /** Whether the judge's ranking was used; `why` not when it was not (ranked by the fallback instead). */
  judged: boolean;
  why?: string;
  judgeSessionId?: string;
  judgeTokens: Usage;
  /** The attempt ranked first, whose check is the run's. */
  chosen: number;
  attempts: AttemptRecord[];
}
