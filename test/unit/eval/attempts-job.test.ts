/** Reading an attempt's block from a pod's log (attempts-job.ts): only whole blocks of this run, of an attempt it has, with fields of the right types. */
import assert from 'node:assert/strict';
import { attemptLines, type PodAttemptOutcome, type PodAttemptsTask, readAttemptBlock } from '../../../src/eval/attempts-job';
import { blockLines } from '../../../src/eval/log-blocks';

const task: PodAttemptsTask = { version: 1, run: '0123456789abcdef', prompt: 'p', count: 3, baseTree: 'a'.repeat(40), bundle: { parts: 1, sha256: '0'.repeat(64) }, limits: {} };
const outcome: PodAttemptOutcome = { run: task.run, n: 2, baseTree: task.baseTree, status: 'completed', summary: 'done', tokens: 10, costUsd: 0.01, patch: '', check: { passed: true, output: 'ok' } };
const raw = (id: string, payload: unknown): string => blockLines({ mark: 'crow-attempt', id: /x/, compressedBytes: 1e6, uncompressedBytes: 1e6 }, id, payload).join('');

describe("an attempt's block in a pod's log", () => {
  it('takes the last whole block of the run, after whatever else the log holds', () => {
    const log = `progress\n${attemptLines({ ...outcome, summary: 'first' }).join('')}more output\n${attemptLines(outcome).join('')}`;
    assert.deepEqual(readAttemptBlock(log, task), outcome);
  });

  it('refuses a block of an attempt the run does not have, of other files, or whose fields are not what crow writes', () => {
    assert.match((readAttemptBlock(attemptLines({ ...outcome, n: 4 }).join(''), task) as { problem: string }).problem, /attempt 4, which the run does not have \(1 to 3\)/);
    assert.match((readAttemptBlock(attemptLines({ ...outcome, baseTree: 'b'.repeat(40) }).join(''), task) as { problem: string }).problem, /started from other files/);
    for (const bad of [{ ...outcome, status: 'won' }, { ...outcome, tokens: 'many' }, { ...outcome, check: { passed: 'yes', output: '' } }, { ...outcome, patch: 1 }, { ...outcome, n: 1 }, 'text']) {
      assert.match((readAttemptBlock(raw(`${task.run}/2`, bad), task) as { problem: string }).problem, /not one crow wrote/, JSON.stringify(bad));
    }
  });
});
