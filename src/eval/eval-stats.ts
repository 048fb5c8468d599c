/**
 * The numbers of an evaluation report, from its results: per agent the
 * success rate with a 95% Wilson interval, median cost and time per run,
 * cost per solved run; per category; per task; and which tasks one agent
 * solves and another does not. Pure.
 */
import type { AgentSummary, EvalSummary } from '../../webview/eval-report/report-data';
import type { EvalResult } from './eval-run';

export type { AgentSummary, EvalSummary };

export function summarize(results: readonly EvalResult[], agents: readonly string[]): EvalSummary {
  const summaries = agents.map((agent) => agentSummary(agent, results.filter((result) => result.agent === agent)));
  const categories: EvalSummary['categories'] = {};
  const tasks: EvalSummary['tasks'] = {};
  for (const result of results) {
    const category = (categories[result.category] ??= {});
    const cell = (category[result.agent] ??= { passed: 0, runs: 0 });
    cell.runs += 1;
    if (result.passed) cell.passed += 1;
    const task = (tasks[result.task] ??= { category: result.category, byAgent: {} });
    const taskCell = (task.byAgent[result.agent] ??= { passed: 0, runs: 0 });
    taskCell.runs += 1;
    if (result.passed) taskCell.passed += 1;
  }
  const solved = (agent: string, task: string): boolean => {
    const cell = tasks[task]?.byAgent[agent];
    return cell !== undefined && cell.passed * 2 > cell.runs;
  };
  const pairwise = agents.flatMap((a) =>
    agents.filter((b) => b !== a).map((b) => ({ a, b, tasks: Object.keys(tasks).filter((task) => solved(a, task) && !solved(b, task)).sort() })),
  );
  return { agents: summaries, categories, tasks, pairwise };
}

function agentSummary(agent: string, runs: readonly EvalResult[]): AgentSummary {
  const passed = runs.filter((run) => run.passed).length;
  const { low, high } = wilson(passed, runs.length);
  const priced = runs.every((run) => run.costUsd !== undefined) && runs.length > 0;
  const totalCost = runs.reduce((sum, run) => sum + (run.costUsd ?? 0), 0);
  return {
    agent,
    runs: runs.length,
    passed,
    rate: runs.length === 0 ? 0 : passed / runs.length,
    low,
    high,
    ...(priced ? { medianCostUsd: median(runs.map((run) => run.costUsd!)) } : {}),
    medianWallMs: median(runs.map((run) => run.wallMs)),
    medianTokens: median(runs.map((run) => run.tokens.input + run.tokens.output + run.tokens.cacheRead + run.tokens.cacheWrite)),
    ...(priced && passed > 0 ? { costPerSolvedUsd: totalCost / passed } : {}),
    medianOverheadMs: median(runs.map((run) => run.overheadMs)),
    reviewRounds: runs.reduce((sum, run) => sum + run.reviewRounds, 0),
  };
}

/** The 95% Wilson score interval of `passed` successes in `runs` trials ([0, 1] for no trials). */
export function wilson(passed: number, runs: number, z = 1.959964): { low: number; high: number } {
  if (runs === 0) return { low: 0, high: 1 };
  const p = passed / runs;
  const denominator = 1 + (z * z) / runs;
  const centre = (p + (z * z) / (2 * runs)) / denominator;
  const margin = (z * Math.sqrt((p * (1 - p)) / runs + (z * z) / (4 * runs * runs))) / denominator;
  return { low: Math.max(0, centre - margin), high: Math.min(1, centre + margin) };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
