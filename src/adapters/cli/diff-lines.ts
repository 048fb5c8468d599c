import type { Style } from './terminal-style';

/** Lines of a diff shown under an edit or an approval before the rest is counted. */
export const DIFF_LINES_SHOWN = 40;

/**
 * A unified diff as a terminal shows it under a tool line: indented, the
 * file headers left out (the tool line names the file), additions green,
 * removals red, hunk headers cyan, and past `limit` lines "… +N more lines".
 * Without colour the +/- marks still tell the lines apart.
 */
export function diffLines(diff: string, style: Style, limit = DIFF_LINES_SHOWN): string[] {
  const lines = diff.split('\n').filter((line, i, all) => !(i === all.length - 1 && line === ''));
  const body = lines.filter((line) => !line.startsWith('--- ') && !line.startsWith('+++ ') && !line.startsWith('Index: ') && !/^=+$/.test(line));
  const shown = body.slice(0, limit).map((line) => `    ${paint(line, style)}`);
  const more = body.length - limit;
  return more > 0 ? [...shown, `    ${style.dim(`… +${more} more line${more === 1 ? '' : 's'}`)}`] : shown;
}

function paint(line: string, style: Style): string {
  if (line.startsWith('@@')) return style.cyan(line);
  if (line.startsWith('+')) return style.green(line);
  if (line.startsWith('-')) return style.red(line);
  return style.dim(line);
}
