/** What `crow run --attempts` prints: a line per step as the attempts go, and the ranking as a table. */
import type { AttemptsProgress, AttemptsResult } from '../../attempts/best-of';
import type { RunStatus } from '../../engine/events';
import { plainLine } from '../../engine/output-tail';

/** Characters of a summary or a reason shown in the table. */
const CELL_CHARS = 100;

/** One line of progress on stderr, or undefined for what is not worth a line. */
export function progressLine(event: AttemptsProgress): string | undefined {
  switch (event.type) {
    case 'attempt_start':
      return `  attempt ${event.n}: started`;
    case 'attempt_event': {
      const { event: inner } = event;
      if (inner.type === 'tool_call_start') return `  attempt ${event.n}: ${inner.tool} ${plainLine(oneLine(inner.summary))}`.trimEnd();
      return undefined;
    }
    case 'attempt_end':
      return `  attempt ${event.n}: ${ended(event.status)}, ${event.files === 1 ? '1 file' : `${event.files} files`} changed`;
    case 'check':
      return `  attempt ${event.n}: check ${event.passed ? 'passed' : 'FAILED'}`;
    case 'judging':
      return '  judging the attempts…';
  }
}

/** The ranking, best first: each attempt's end, check, changes, cost, and the judge's reason or its own summary. */
export function attemptsTable(result: AttemptsResult): string {
  const byN = new Map(result.attempts.map((attempt) => [attempt.n, attempt]));
  const rows = result.ranking.map((ranked, index) => {
    const attempt = byN.get(ranked.n)!;
    const added = attempt.changes.files.reduce((sum, file) => sum + file.added, 0);
    const removed = attempt.changes.files.reduce((sum, file) => sum + file.removed, 0);
    const check = attempt.check === undefined ? '—' : attempt.check.passed ? 'passed' : 'FAILED';
    const cost = attempt.costUsd !== undefined ? `$${attempt.costUsd.toFixed(4)}` : `${attempt.tokens} tok`;
    const why = plainLine(oneLine(ranked.reason || attempt.summary)).slice(0, CELL_CHARS);
    return [String(index + 1), String(attempt.n), ended(attempt.status), check, `${attempt.changes.files.length} (+${added} −${removed})`, cost, why];
  });
  const header = ['rank', 'attempt', 'ended', 'check', 'files', 'cost', result.judge.used ? "judge's reason" : 'summary'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]): string => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd();
  const judged = result.judge.used ? 'ranked by the judge' : `not judged (${result.judge.why}): ranked by checks, then cost`;
  const total = result.costUsd !== undefined ? `; all attempts and the judge cost $${result.costUsd.toFixed(4)}` : '';
  return [`Attempts, best first, ${judged}${total}:`, line(header), ...rows.map(line)].join('\n');
}

/** How an attempt's run ended, in a person's words. */
function ended(status: RunStatus): string {
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
