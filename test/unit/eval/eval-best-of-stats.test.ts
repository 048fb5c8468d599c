import assert from 'node:assert/strict';
import { bestOfSummaries } from '../../../src/eval/eval-best-of-stats';
import type { EvalResult } from '../../../src/eval/eval-run';
import { summarize } from '../../../src/eval/eval-stats';

/** A result of `agent` on `task`; `attempts` (each passed or not) and `chosen` make it a best-of run. */
function result(task: string, agent: string, repeat: number, passed: boolean, attempts?: boolean[], chosen = 1, judged = true): EvalResult {
  return {
    task,
    category: 'bug-fix',
    difficulty: 'easy',
    agent,
    repeat,
    passed,
    ended: 'completed',
    tokens: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    wallMs: 1,
    overheadMs: 0,
    modelCalls: 1,
    toolCalls: 0,
    reviewRounds: 0,
    sessionId: 's',
    model: 'm',
    startedAt: '',
    ...(attempts
      ? {
          bestOf: {
            agent: 'build',
            count: attempts.length,
            judge: 'judge-attempts',
            judged,
            judgeTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
            chosen,
            attempts: attempts.map((ok, i) => ({ n: i + 1, passed: ok, ended: 'completed' as const, files: 1, tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, sessionId: `a${i + 1}` })),
          },
        }
      : {}),
  };
}

describe('best-of-N statistics', () => {
  it('counts the oracle per task, the judge accuracy per run where an attempt passed, and pairs the arms over tasks', () => {
    const label = 'build@best-of-2';
    const results = [
      // Task a, two repeats: one where the judge chose the passing attempt, one where it chose the failing one.
      result('a', 'build', 1, false),
      result('a', label, 1, true, [false, true], 2),
      result('a', 'build', 2, false),
      result('a', label, 2, false, [false, true], 1),
      // Task b: no attempt passes (it does not count for the judge), the single run does.
      result('b', 'build', 1, true),
      result('b', label, 1, false, [false, false], 1, false),
      result('b', 'build', 2, true),
      result('b', label, 2, false, [false, false], 1, false),
    ];
    const summary = summarize(results, ['build', label]);
    const [s] = bestOfSummaries(results, summary);
    assert.ok(s);
    assert.equal(s.agent, 'build');
    assert.equal(s.label, label);
    assert.deepEqual(s.judgeAccuracy, { picked: 1, of: 2 });
    assert.equal(s.judged, 2);
    assert.deepEqual([s.oracle.passed, s.oracle.runs, s.oracle.rate], [2, 4, 0.5], 'task a always had a passing attempt, b never');
    // Per task: a is 1/2 for best-of against 0/2, b is 0/2 against 2/2.
    assert.equal(s.comparison.difference, (0.5 - 0 + (0 - 1)) / 2);
    assert.deepEqual(s.onlySingle, ['b']);
    assert.deepEqual(s.comparison.tasks, [], 'half the runs of a is not "solved" (most runs pass)');
  });

  it('has nothing to say without best-of runs', () => {
    const results = [result('a', 'build', 1, true)];
    assert.deepEqual(bestOfSummaries(results, summarize(results, ['build'])), []);
  });
});
