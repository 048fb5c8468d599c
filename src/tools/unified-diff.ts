import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';

/** Lines of unchanged context around each change. */
const CONTEXT_LINES = 3;
/**
 * Beyond this many added plus removed lines the line diff stops searching
 * (its cost grows with size times edits) and the diff shows the changed
 * stretch as one block instead.
 */
const MAX_EDIT_LINES = 1_000;
const NO_NEWLINE = '\\ No newline at end of file';

export interface FileDiff {
  /** The unified diff; empty when nothing changed. */
  diff: string;
  linesAdded: number;
  linesRemoved: number;
}

/**
 * Unified diff of one file's change, headed `--- a/PATH` and `+++ b/PATH`
 * (`/dev/null` on the side where the file does not exist), with three lines
 * of context, and the lines it adds and removes.
 */
export function unifiedDiff(path: string, before: string | undefined, after: string | undefined): FileDiff {
  const oldName = before === undefined ? '/dev/null' : `a/${path}`;
  const newName = after === undefined ? '/dev/null' : `b/${path}`;
  const oldText = before ?? '';
  const newText = after ?? '';
  const patch: StructuredPatch = structuredPatch(oldName, newName, oldText, newText, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LINES,
  }) ?? {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [blockHunk(oldText, newText)],
  };

  let linesAdded = 0;
  let linesRemoved = 0;
  for (const line of patch.hunks.flatMap((hunk) => hunk.lines)) {
    if (line.startsWith('+')) linesAdded++;
    else if (line.startsWith('-')) linesRemoved++;
  }
  const changed = patch.hunks.length > 0 || before === undefined || after === undefined;
  return { diff: changed ? formatPatch(patch, FILE_HEADERS_ONLY) : '', linesAdded, linesRemoved };
}

/** One hunk replacing everything between the common leading and trailing lines. */
function blockHunk(before: string, after: string): StructuredPatchHunk {
  const old = linesWithBreaks(before);
  const now = linesWithBreaks(after);
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  const shorter = Math.min(old.length, now.length) - head;
  while (tail < shorter && old[old.length - 1 - tail] === now[now.length - 1 - tail]) tail++;
  const lead = Math.min(head, CONTEXT_LINES);
  const trail = Math.min(tail, CONTEXT_LINES);
  const rows = [
    ...old.slice(head - lead, head).map((line) => ` ${line}`),
    ...old.slice(head, old.length - tail).map((line) => `-${line}`),
    ...now.slice(head, now.length - tail).map((line) => `+${line}`),
    ...old.slice(old.length - tail, old.length - tail + trail).map((line) => ` ${line}`),
  ];
  return {
    oldStart: head - lead + 1,
    oldLines: old.length - head - tail + lead + trail,
    newStart: head - lead + 1,
    newLines: now.length - head - tail + lead + trail,
    lines: rows.flatMap((row) => (row.endsWith('\n') ? [row.slice(0, -1)] : [row, NO_NEWLINE])),
  };
}

/** Lines each with its '\n', except a last line without one. */
function linesWithBreaks(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
