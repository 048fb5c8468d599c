/**
 * The ranking of a run of attempts in words, decided once for every door:
 * the title line, the column titles and each attempt's cells (how it
 * ended, its check, its changes, its cost, the judge's reason or its own
 * summary). The CLI lays them out as a padded table, ACP as markdown.
 */
import type { RunStatus } from '../engine/events';
import { plainLine } from '../engine/output-tail';
import type { AttemptsResult } from './best-of';
import { judgeWords } from './judge';

/** What a table needs of a run of attempts: not its worktrees (a kept background run has none). */
export type RankedAttempts = Omit<AttemptsResult, 'trees'>;

/** Characters of a summary or a reason shown in a cell. */
const CELL_CHARS = 100;

export interface RankingTable {
  /** "Attempts, best first, ranked by the judge; …:" */
  title: string;
  header: string[];
  /** Best first, one cell per column. */
  rows: string[][];
}

export function rankingTable(result: RankedAttempts): RankingTable {
  const byN = new Map(result.attempts.map((attempt) => [attempt.n, attempt]));
  const rows = result.ranking.map((ranked, index) => {
    const attempt = byN.get(ranked.n)!;
    const added = attempt.changes.files.reduce((sum, file) => sum + file.added, 0);
    const removed = attempt.changes.files.reduce((sum, file) => sum + file.removed, 0);
    const check = attempt.check === undefined ? '—' : attempt.check.passed ? 'passed' : 'FAILED';
    const cost = attempt.costUsd !== undefined ? `$${attempt.costUsd.toFixed(4)}` : `${attempt.tokens} tok`;
    const why = plainLine(oneLine(ranked.reason || attempt.summary)).slice(0, CELL_CHARS);
    return [String(index + 1), String(attempt.n), endedText(attempt.status), check, `${attempt.changes.files.length} (+${added} −${removed})`, cost, why];
  });
  const header = ['rank', 'attempt', 'ended', 'check', 'files', 'cost', result.judge.used ? "judge's reason" : 'summary'];
  const judged = result.judge.used ? `ranked by the judge, ${judgeWords(result.judge.agent)}` : `not judged (${result.judge.why}): ranked by checks, then cost`;
  const total = result.costUsd !== undefined ? `; all attempts and the judge cost $${result.costUsd.toFixed(4)}` : '';
  return { title: `Attempts, best first, ${judged}${total}:`, header, rows };
}

/** The table as GitHub-flavoured markdown (a door whose client renders markdown). */
export function rankingMarkdown(result: RankedAttempts): string {
  const { title, header, rows } = rankingTable(result);
  const cell = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[`*_<>[\]]/g, (c) => `\\${c}`);
  const line = (cells: string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [title, '', line(header), `|${header.map(() => ' --- ').join('|')}|`, ...rows.map(line)].join('\n');
}

/** How an attempt's run ended, in a person's words. */
export function endedText(status: RunStatus): string {
  switch (status) {
    case 'completed':
    case 'needs_input':
      return 'finished';
    case 'limit':
    case 'budget':
      return 'stopped by a limit';
    case 'cancelled':
      return 'cancelled';
    case 'error':
      return 'failed';
  }
}

/** Model text on one line: line breaks and runs of space become one space. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
