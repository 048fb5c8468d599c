/**
 * The numbers of `crow eval --attempts N`, from its results. Pure.
 *
 * The two arms are compared as two agents are (eval-stats.ts): exact
 * McNemar on the tasks one arm solves and the other does not, and a paired
 * bootstrap of the difference in success rate over tasks. Besides: the
 * oracle best-of-N (a run counts when any of its attempts passed its
 * check: what a perfect judge would reach) and the judge's accuracy (of
 * the runs where some attempt passed, how often the chosen one did).
 */
import type { BestOfSummary, EvalSummary } from '../../webview/eval-report/report-data';
import type { EvalResult } from './eval-run';
import { wilson } from './eval-stats';
import { count, percent, pValue, seconds, signedPoints, usd } from './report-format';

export type { BestOfSummary };

/** Each agent against its best-of arm, for the agents that have one in `results`. */
export function bestOfSummaries(results: readonly EvalResult[], summary: EvalSummary): BestOfSummary[] {
  const labels = [...new Set(results.flatMap((result) => (result.bestOf ? [result.agent] : [])))].sort();
  return labels.flatMap((label) => {
    const runs = results.filter((result) => result.agent === label && result.bestOf);
    const { agent, count, judge } = runs[0]!.bestOf!;
    const comparison = summary.pairwise.find((c) => c.a === label && c.b === agent);
    const reverse = summary.pairwise.find((c) => c.a === agent && c.b === label);
    if (!comparison || !reverse) return [];
    const anyPassed = (run: EvalResult): boolean => run.bestOf!.attempts.some((attempt) => attempt.passed);
    const byTask = new Map<string, { passed: number; runs: number }>();
    for (const run of runs) {
      const cell = byTask.get(run.task) ?? { passed: 0, runs: 0 };
      byTask.set(run.task, cell);
      cell.runs += 1;
      if (anyPassed(run)) cell.passed += 1;
    }
    const fractions = [...byTask.values()].map((cell) => cell.passed / cell.runs);
    const rate = fractions.length === 0 ? 0 : fractions.reduce((sum, f) => sum + f, 0) / fractions.length;
    const withPass = runs.filter(anyPassed);
    return [
      {
        agent,
        label,
        count,
        judge,
        runs: runs.length,
        oracle: { passed: withPass.length, runs: runs.length, rate, ...wilson(rate * fractions.length, fractions.length) },
        judgeAccuracy: { picked: withPass.filter((run) => run.bestOf!.attempts.find((attempt) => attempt.n === run.bestOf!.chosen)?.passed === true).length, of: withPass.length },
        judged: runs.filter((run) => run.bestOf!.judged).length,
        comparison,
        onlySingle: reverse.tasks,
      },
    ];
  });
}

/** The markdown section: per agent, the two arms and the oracle side by side, the paired comparison and the judge's accuracy. */
export function bestOfMarkdown(summaries: readonly BestOfSummary[], summary: EvalSummary): string[] {
  const lines: string[] = [];
  for (const s of summaries) {
    const single = summary.agents.find((a) => a.agent === s.agent);
    const best = summary.agents.find((a) => a.agent === s.label);
    if (!single || !best) continue;
    const c = s.comparison;
    lines.push(
      '',
      `## Best of ${s.count} against one attempt: ${s.agent}`,
      '',
      `Each task ran once as a single run of ${s.agent} and once as ${s.count} attempts side by side, each in its own git worktree, ranked by ${s.judge}; the best-of run passes when the attempt ranked first passes the hidden check. ` +
        `Both arms had the same token budget per task: the attempts and the judge shared it in ${s.count + 1} equal parts. The oracle counts a run when any of its attempts passed: what a perfect judge would reach.`,
      '',
      `| | ${s.agent} (one attempt) | ${s.label} | oracle (any of ${s.count} passed) |`,
      '|---|---|---|---|',
      `| solved | ${single.passed}/${single.runs} | ${best.passed}/${best.runs} | ${s.oracle.passed}/${s.oracle.runs} |`,
      `| success rate (95% interval) | ${rate(single.rate, single.low, single.high)} | ${rate(best.rate, best.low, best.high)} | ${rate(s.oracle.rate, s.oracle.low, s.oracle.high)} |`,
      `| total cost | ${usd(single.totalCostUsd)} | ${usd(best.totalCostUsd)} | — |`,
      `| cost per solved | ${usd(single.costPerSolvedUsd)} | ${usd(best.costPerSolvedUsd)} | — |`,
      `| median time | ${seconds(single.medianWallMs)} | ${seconds(best.medianWallMs)} | — |`,
      `| total tokens | ${count(single.totalTokens)} | ${count(best.totalTokens)} | — |`,
      '',
      `- ${s.label} − ${s.agent}: ${signedPoints(c.difference)} (95% paired bootstrap ${signedPoints(c.low)} to ${signedPoints(c.high)}) over ${c.sharedTasks} shared tasks · ` +
        `exact McNemar p = ${pValue(c.pValue)} (solved only by ${s.label}: ${c.tasks.length}; only by ${s.agent}: ${s.onlySingle.length})`,
      `- Judge accuracy: ${s.judgeAccuracy.of === 0 ? 'no run had a passing attempt' : `picked a passing attempt in ${s.judgeAccuracy.picked} of the ${s.judgeAccuracy.of} runs where one passed (${percent(s.judgeAccuracy.picked / s.judgeAccuracy.of)})`}; ` +
        `its ranking was used in ${s.judged} of ${s.runs} runs (the others were ranked by checks and cost: nothing to choose between, or no ranking it could read)`,
    );
  }
  return lines;
}

function rate(value: number, low: number, high: number): string {
  return `${percent(value)} (${percent(low)}–${percent(high)})`;
}
