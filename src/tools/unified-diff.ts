import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';

/** Lines of unchanged context around each change. */
const CONTEXT_LINES = 3;
/**
 * Beyond this many added plus removed lines the line diff stops searching
 * (its cost grows with size times edits) and the diff shows the changed
 * stretch as one block instead.
 */
const MAX_EDIT_LINES = 1_000;
/**
 * Unchanged lines kept on each side of the changed stretch when only that
 * stretch is diffed: the context shown plus room for the line diff to line
 * up repeated lines as it would over the whole file.
 */
const MARGIN_LINES = 32;
/** Characters compared at a time while looking for where two texts start to differ. */
const COMPARE_CHUNK = 8_192;
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
 *
 * Only the stretch between the texts' common beginning and common end is
 * line-diffed (with MARGIN_LINES of unchanged lines around it), so an edit
 * of a few lines in a huge file costs little more than comparing the two
 * texts; hunks are numbered as in the whole file.
 */
export function unifiedDiff(path: string, before: string | undefined, after: string | undefined): FileDiff {
  const oldName = before === undefined ? '/dev/null' : `a/${path}`;
  const newName = after === undefined ? '/dev/null' : `b/${path}`;
  const region = changedRegion(before ?? '', after ?? '');
  const oldText = region.before;
  const newText = region.after;
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
  for (const hunk of patch.hunks) {
    hunk.oldStart += region.linesBefore;
    hunk.newStart += region.linesBefore;
  }

  let linesAdded = 0;
  let linesRemoved = 0;
  for (const line of patch.hunks.flatMap((hunk) => hunk.lines)) {
    if (line.startsWith('+')) linesAdded++;
    else if (line.startsWith('-')) linesRemoved++;
  }
  const changed = patch.hunks.length > 0 || before === undefined || after === undefined;
  return { diff: changed ? formatPatch(patch, FILE_HEADERS_ONLY) : '', linesAdded, linesRemoved };
}

/** The lines of both texts that hold every difference between them, MARGIN_LINES around, and how many lines come before them. */
interface Region {
  before: string;
  after: string;
  linesBefore: number;
}

/**
 * Cuts both texts at line boundaries inside their common beginning and
 * common end, keeping MARGIN_LINES of the unchanged lines on each side.
 * Everything outside the cut is the same in both, so it holds no change.
 */
export function changedRegion(before: string, after: string): Region {
  const prefix = commonPrefix(before, after);
  if (prefix === before.length && prefix === after.length) return { before, after, linesBefore: 0 };
  const suffix = commonSuffix(before, after, Math.min(before.length, after.length) - prefix);
  // Line boundaries whose '\n' lies in the common part, so they are boundaries in both texts.
  let start = lineStart(before, prefix);
  for (let kept = 0; kept < MARGIN_LINES && start > 0; kept++) start = lineStart(before, start - 1);
  let end = before.length - suffix;
  for (let kept = 0; kept <= MARGIN_LINES && end < before.length; kept++) {
    const lineBreak = before.indexOf('\n', end);
    end = lineBreak === -1 ? before.length : lineBreak + 1;
  }
  const tail = before.length - end;
  return { before: before.slice(start, end), after: after.slice(start, after.length - tail), linesBefore: countLineBreaks(before, start) };
}

/** Where the line holding the character at `at` starts. */
function lineStart(text: string, at: number): number {
  return at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
}

/** Length of the longest common beginning of `a` and `b`. */
function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let at = 0;
  while (at + COMPARE_CHUNK <= limit && a.slice(at, at + COMPARE_CHUNK) === b.slice(at, at + COMPARE_CHUNK)) at += COMPARE_CHUNK;
  while (at < limit && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

/** Length of the longest common end of `a` and `b`, at most `limit`. */
function commonSuffix(a: string, b: string, limit: number): number {
  let at = 0;
  while (at + COMPARE_CHUNK <= limit && a.slice(a.length - at - COMPARE_CHUNK, a.length - at) === b.slice(b.length - at - COMPARE_CHUNK, b.length - at)) {
    at += COMPARE_CHUNK;
  }
  while (at < limit && a.charCodeAt(a.length - 1 - at) === b.charCodeAt(b.length - 1 - at)) at++;
  return at;
}

function countLineBreaks(text: string, end: number): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < end; at = text.indexOf('\n', at + 1)) count++;
  return count;
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
