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
  /** Tasks the agent ran. */
  tasks: number;
  /** Mean over tasks of each task's pass fraction. */
  rate: number;
  /** 95% Wilson interval of the rate with one trial per task (repeats of a task are not independent). */
  low: number;
  high: number;
  /** The k of pass@k and pass^k: the fewest runs any task of the agent had. */
  k: number;
  /** Chance that at least one of k runs of a task passes, mean over tasks. */
  passAtK: number;
  /** Chance that all k runs of a task pass, mean over tasks. */
  passHatK: number;
  medianCostUsd?: number;
  totalCostUsd?: number;
  medianWallMs: number;
  medianTokens: number;
  totalTokens: number;
  /** All the runs' cost divided by the runs that passed; absent without prices or passes. */
  costPerSolvedUsd?: number;
  medianOverheadMs: number;
  reviewRounds: number;
}

/** Agent `a` against agent `b` on the tasks both ran. */
export interface Comparison {
  a: string;
  b: string;
  /** Tasks `a` solves (most of its runs pass) that `b` does not. */
  tasks: string[];
  sharedTasks: number;
  /** Mean over shared tasks of a's pass fraction minus b's. */
  difference: number;
  /** 95% paired bootstrap interval of `difference`. */
  low: number;
  high: number;
  /** Two-sided exact McNemar p-value on the tasks one solves and the other does not. */
  pValue: number;
}

export interface EvalSummary {
  agents: AgentSummary[];
  /** category → agent → passes of runs */
  categories: Record<string, Record<string, Cell>>;
  /** task → its category and, per agent, passes of runs */
  tasks: Record<string, { category: string; byAgent: Record<string, Cell> }>;
  pairwise: Comparison[];
}

/** One run as the page shows it: results.jsonl's fields, with its diff and check log read in. */
export interface RunView {
  task: string;
  agent: string;
  repeat: number;
  passed: boolean;
  ended: string;
  reason?: string;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  costUsd?: number;
  wallMs: number;
  modelCalls: number;
  toolCalls: number;
  sessionId: string;
  traceId?: string;
  diff: string;
  checkLog: string;
}

/**
 * An agent's single run against its best-of-N arm (crow eval --attempts N),
 * on the same tasks: the two arms' own figures are their AgentSummary rows.
 */
export interface BestOfSummary {
  /** The single arm: the agent's name. */
  agent: string;
  /** The best-of arm: "AGENT@best-of-N". */
  label: string;
  count: number;
  judge: string;
  /** Best-of runs. */
  runs: number;
  /** Runs where some attempt passed, and the mean over tasks of that share: the ceiling a perfect judge reaches. */
  oracle: { passed: number; runs: number; rate: number; low: number; high: number };
  /** Of the runs where some attempt passed, those where the chosen attempt was one that passed. */
  judgeAccuracy: { picked: number; of: number };
  /** Runs ranked by the judge (the others by checks and cost: it gave no ranking, or there was nothing to choose between). */
  judged: number;
  /** The best-of arm minus the single arm, paired over tasks. */
  comparison: Comparison;
  /** Tasks the single arm solves and the best-of arm does not. */
  onlySingle: string[];
}

/** The page's data. */
export interface ReportData {
  agents: readonly string[];
  summary: EvalSummary;
  /** Present for crow eval --attempts N: each agent against its best-of arm. */
  bestOf?: BestOfSummary[];
  runs: readonly RunView[];
  /** What the results were made with, in a line (provider/model, crow version, commit, seed). */
  provenance: string;
  generatedAt: string;
}
