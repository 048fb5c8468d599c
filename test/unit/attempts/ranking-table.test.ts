/** The ranking's words, shared by the CLI's table and ACP's markdown: model text cannot break the markdown table. */
import assert from 'node:assert/strict';
import type { AttemptOutcome, AttemptsResult } from '../../../src/attempts/best-of';
import { rankingMarkdown, rankingTable } from '../../../src/attempts/ranking-table';
import { attemptsTable } from '../../../src/adapters/cli/attempts-lines';

function outcome(n: number, summary: string, passed?: boolean): AttemptOutcome {
  return {
    n,
    tree: `/t/${n}`,
    sessionId: `s${n}`,
    status: 'completed',
    summary,
    tokens: 100 * n,
    costUsd: 0.01 * n,
    changes: { patch: 'x', files: [{ path: 'a.js', added: n, removed: 1 }] },
    ...(passed === undefined ? {} : { check: { passed, output: '' } }),
  };
}

const result = {
  attempts: [outcome(1, 'one', true), outcome(2, 'two | <b>bold</b>\nand `code`', false)],
  ranking: [
    { n: 1, reason: '' },
    { n: 2, reason: '' },
  ],
  judge: { agent: 'judge-attempts', used: false, why: 'the judge gave no ranking Crow could read' },
  costUsd: 0.05,
  trees: undefined as never,
} satisfies AttemptsResult;

describe('ranking table: one wording for the CLI and ACP', () => {
  it('says how the ranking was made and what it cost, and gives each attempt the same cells in both doors', () => {
    const table = rankingTable(result);
    assert.equal(table.title, 'Attempts, best first, not judged (the judge gave no ranking Crow could read): ranked by checks, then cost; all attempts and the judge cost $0.0500:');
    assert.deepEqual(table.rows[0], ['1', '1', 'finished', 'passed', '1 (+1 −1)', '$0.0100', 'one']);
    assert.equal(table.header.at(-1), 'summary');
    const cli = attemptsTable(result).split('\n');
    assert.equal(cli[0], table.title);
    assert.match(cli[3]!, /^2 +2 +finished +FAILED +1 \(\+2 −1\) +\$0\.0200 +two \| <b>bold<\/b> and `code`$/);
  });

  it('keeps model text inside its cell in markdown: pipes, tags and code marks escaped, one line', () => {
    const lines = rankingMarkdown(result).split('\n');
    assert.equal(lines[2], '| rank | attempt | ended | check | files | cost | summary |');
    assert.equal(lines[3], '| --- | --- | --- | --- | --- | --- | --- |');
    assert.equal(lines[5], '| 2 | 2 | finished | FAILED | 1 (+2 −1) | $0.0200 | two \\| \\<b\\>bold\\</b\\> and \\`code\\` |');
    assert.equal(lines[5]!.split(/(?<!\\)\|/).length, 9, 'seven cells, no more');
  });
});
