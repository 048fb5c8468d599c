/** What `crow run --attempts` prints: a line per step as the attempts go, and the ranking as a table. */
import type { AttemptsProgress } from '../../attempts/best-of';
import { endedText as ended, type RankedAttempts, rankingTable } from '../../attempts/ranking-table';
import { plainLine } from '../../engine/output-tail';

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

/** The ranking, best first, as a padded table (its wording is src/attempts/ranking-table.ts, shared with ACP). */
export function attemptsTable(result: RankedAttempts): string {
  const { title, header, rows } = rankingTable(result);
  const widths = header.map((heading, column) => Math.max(heading.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]): string => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd();
  return [title, line(header), ...rows.map(line)].join('\n');
}

/** Model text on one line: line breaks and runs of space become one space. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
