/**
 * The numbers of an evaluation report, from its results. Pure.
 *
 * Repeats of one task are not independent evidence (a deterministic agent
 * passes or fails every repeat alike), so every interval counts tasks, not
 * runs: an agent's success rate is the mean over tasks of each task's pass
 * fraction, and its 95% interval is Wilson's with one trial per task.
 * Repeating a deterministic run therefore leaves the interval as it was.
 * Over `--repeat` k, pass@k (some of k runs pass) and pass^k (all k pass)
 * use the unbiased estimators over each task's n runs. Two agents on the
 * same tasks are compared pairwise: exact McNemar on the tasks one solves
 * (most runs pass) and the other does not, and a paired bootstrap over
 * tasks (seeded) of the difference in success rate.
 */
import type { AgentSummary, Comparison, EvalSummary } from '../../webview/eval-report/report-data';
import type { EvalResult } from './eval-run';

export type { AgentSummary, Comparison, EvalSummary };

export const BOOTSTRAP_SAMPLES = 2_000;

export function summarize(results: readonly EvalResult[], agents: readonly string[], seed = 1): EvalSummary {
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
  const summaries = agents.map((agent) => agentSummary(agent, results.filter((result) => result.agent === agent), tasks));
  const pairwise = agents.flatMap((a) => agents.filter((b) => b !== a).map((b) => compare(a, b, tasks, seed)));
  return { agents: summaries, categories, tasks, pairwise };
}

function agentSummary(agent: string, runs: readonly EvalResult[], tasks: EvalSummary['tasks']): AgentSummary {
  const passed = runs.filter((run) => run.passed).length;
  const cells = Object.values(tasks).flatMap((task) => (task.byAgent[agent] ? [task.byAgent[agent]] : []));
  const fractions = cells.map((cell) => cell.passed / cell.runs);
  const rate = fractions.length === 0 ? 0 : fractions.reduce((sum, f) => sum + f, 0) / fractions.length;
  const { low, high } = wilson(rate * fractions.length, fractions.length);
  const priced = runs.every((run) => run.costUsd !== undefined) && runs.length > 0;
  const totalCost = runs.reduce((sum, run) => sum + (run.costUsd ?? 0), 0);
  const k = cells.length === 0 ? 1 : Math.min(...cells.map((cell) => cell.runs));
  return {
    agent,
    runs: runs.length,
    passed,
    tasks: cells.length,
    rate,
    low,
    high,
    k,
    passAtK: mean(cells.map((cell) => passAtK(cell.runs, cell.passed, k))),
    passHatK: mean(cells.map((cell) => passHatK(cell.runs, cell.passed, k))),
    ...(priced ? { medianCostUsd: median(runs.map((run) => run.costUsd!)), totalCostUsd: totalCost } : {}),
    medianWallMs: median(runs.map((run) => run.wallMs)),
    medianTokens: median(runs.map(totalTokens)),
    totalTokens: runs.reduce((sum, run) => sum + totalTokens(run), 0),
    ...(priced && passed > 0 ? { costPerSolvedUsd: totalCost / passed } : {}),
    medianOverheadMs: median(runs.map((run) => run.overheadMs)),
    reviewRounds: runs.reduce((sum, run) => sum + run.reviewRounds, 0),
  };
}

/** Agent a against agent b on the tasks both ran. */
function compare(a: string, b: string, tasks: EvalSummary['tasks'], seed: number): Comparison {
  const shared = Object.entries(tasks)
    .filter(([, task]) => task.byAgent[a] && task.byAgent[b])
    .sort(([x], [y]) => x.localeCompare(y));
  const solved = (cell: { passed: number; runs: number }): boolean => cell.passed * 2 > cell.runs;
  const onlyA = shared.filter(([, task]) => solved(task.byAgent[a]!) && !solved(task.byAgent[b]!)).map(([name]) => name);
  const onlyB = shared.filter(([, task]) => !solved(task.byAgent[a]!) && solved(task.byAgent[b]!)).map(([name]) => name);
  const differences = shared.map(([, task]) => fraction(task.byAgent[a]!) - fraction(task.byAgent[b]!));
  const interval = pairedBootstrap(differences, seed);
  return {
    a,
    b,
    tasks: onlyA,
    sharedTasks: shared.length,
    difference: mean(differences),
    low: interval.low,
    high: interval.high,
    pValue: mcnemarExact(onlyA.length, onlyB.length),
  };
}

/** Two-sided exact McNemar test: the binomial probability of a split at least this uneven of the b + c discordant tasks. */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const tail = Math.min(b, c);
  let sum = 0;
  for (let i = 0; i <= tail; i++) sum += binomial(n, i);
  return Math.min(1, (2 * sum) / 2 ** n);
}

/** The 95% percentile interval of the mean of `differences` over BOOTSTRAP_SAMPLES resamples of the tasks, seeded. */
export function pairedBootstrap(differences: readonly number[], seed: number, samples = BOOTSTRAP_SAMPLES): { low: number; high: number } {
  if (differences.length === 0) return { low: 0, high: 0 };
  const random = mulberry32(seed);
  const means: number[] = [];
  for (let s = 0; s < samples; s++) {
    let sum = 0;
    for (let i = 0; i < differences.length; i++) sum += differences[Math.floor(random() * differences.length)]!;
    means.push(sum / differences.length);
  }
  means.sort((x, y) => x - y);
  return { low: means[Math.floor(0.025 * (samples - 1))]!, high: means[Math.ceil(0.975 * (samples - 1))]! };
}

/** Unbiased pass@k of a task with n runs, c passing: the chance that some of k runs drawn without replacement passes. */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) return Number.NaN;
  if (n - c < k) return 1;
  return 1 - binomial(n - c, k) / binomial(n, k);
}

/** pass^k: the chance that all of k runs drawn without replacement pass. */
export function passHatK(n: number, c: number, k: number): number {
  if (k > n) return Number.NaN;
  return binomial(c, k) / binomial(n, k);
}

/** The 95% Wilson score interval of `passed` successes in `runs` trials ([0, 1] for no trials); `passed` may be fractional. */
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

export function totalTokens(run: Pick<EvalResult, 'tokens'>): number {
  return run.tokens.input + run.tokens.output + run.tokens.cacheRead + run.tokens.cacheWrite;
}

/** A small seeded generator (mulberry32): the same seed gives the same report. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) result = (result * (n - Math.min(k, n - k) + i)) / i;
  return result;
}

function fraction(cell: { passed: number; runs: number }): number {
  return cell.passed / cell.runs;
}

function mean(values: readonly number[]): number {
  const finite = values.filter((value) => Number.isFinite(value));
  return finite.length === 0 ? 0 : finite.reduce((sum, value) => sum + value, 0) / finite.length;
}
