/**
 * What an eval report page is given (src/eval/eval-report.ts writes it into
 * the page as JSON; main.ts draws it): shared by both sides, plain data.
 */

export interface Cell {
  passed: number;
  runs: number;
}

export interface AgentSummary {
  agent: string;
  runs: number;
  passed: number;
  rate: number;
  /** 95% Wilson score interval of the success rate. */
  low: number;
  high: number;
  medianCostUsd?: number;
  medianWallMs: number;
  medianTokens: number;
  /** All the runs' cost divided by the runs that passed; absent without prices or passes. */
  costPerSolvedUsd?: number;
  medianOverheadMs: number;
  reviewRounds: number;
}

export interface EvalSummary {
  agents: AgentSummary[];
  /** category → agent → passes of runs */
  categories: Record<string, Record<string, Cell>>;
  /** task → its category and, per agent, passes of runs */
  tasks: Record<string, { category: string; byAgent: Record<string, Cell> }>;
  /** Tasks agent `a` solves (most of its runs pass) that agent `b` does not. */
  pairwise: { a: string; b: string; tasks: string[] }[];
}

/** The page's data. `results` are the runs as results.jsonl has them; the page reads only their tokens and cost. */
export interface ReportData {
  agents: readonly string[];
  summary: EvalSummary;
  results: readonly { costUsd?: number; tokens: { input: number; output: number; cacheRead: number; cacheWrite: number } }[];
  generatedAt: string;
}
