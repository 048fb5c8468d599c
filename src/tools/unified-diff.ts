import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { splicedLength, splicedSlice, type TextSplice } from './text-splice';

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
  return regionDiff(path, before !== undefined, after !== undefined, changedRegion(before ?? '', after ?? ''));
}

/** Where the line breaks before one offset of a text are already counted: `line` of them before `at`. */
export interface KnownLine {
  at: number;
  line: number;
}

/**
 * The diff unifiedDiff gives for `before` and the text `splice` makes of
 * it, at the cost of the changed stretch: the common beginning and end are
 * compared from the splice's edges outwards, and the edited text is never
 * built whole. `known` spares counting the lines before the stretch.
 */
export function spliceDiff(path: string, before: string, splice: TextSplice, known?: KnownLine): FileDiff {
  const afterLength = splicedLength(splice);
  const prefix = splicePrefix(before, splice);
  if (prefix === before.length && prefix === afterLength) return regionDiff(path, true, true, { before: '', after: '', linesBefore: 0 });
  const suffix = spliceSuffix(before, splice, Math.min(before.length, afterLength) - prefix);
  const { start, end } = cut(before, prefix, suffix);
  return regionDiff(path, true, true, {
    before: before.slice(start, end),
    after: splicedSlice(before, splice, start, afterLength - (before.length - end)),
    linesBefore: known ? linesFrom(before, known, start) : countLineBreaks(before, 0, start),
  });
}

function regionDiff(path: string, hasBefore: boolean, hasAfter: boolean, region: Region): FileDiff {
  const oldName = hasBefore ? `a/${path}` : '/dev/null';
  const newName = hasAfter ? `b/${path}` : '/dev/null';
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
  const changed = patch.hunks.length > 0 || !hasBefore || !hasAfter;
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
  const prefix = sameRun(before, 0, after, 0, Math.min(before.length, after.length));
  if (prefix === before.length && prefix === after.length) return { before, after, linesBefore: 0 };
  const suffix = sameRunBack(before, before.length, after, after.length, Math.min(before.length, after.length) - prefix);
  const { start, end } = cut(before, prefix, suffix);
  const tail = before.length - end;
  return { before: before.slice(start, end), after: after.slice(start, after.length - tail), linesBefore: countLineBreaks(before, 0, start) };
}

/** Where to cut `before`, given the lengths of its common beginning and end with the other text: line boundaries in both, MARGIN_LINES out. */
function cut(before: string, prefix: number, suffix: number): { start: number; end: number } {
  // Line boundaries whose '\n' lies in the common part, so they are boundaries in both texts.
  let start = lineStart(before, prefix);
  for (let kept = 0; kept < MARGIN_LINES && start > 0; kept++) start = lineStart(before, start - 1);
  let end = before.length - suffix;
  for (let kept = 0; kept <= MARGIN_LINES && end < before.length; kept++) {
    const lineBreak = before.indexOf('\n', end);
    end = lineBreak === -1 ? before.length : lineBreak + 1;
  }
  return { start, end };
}

/** Length of the common beginning of `text` and the text `splice` makes of it; the splice's head is common by definition. */
function splicePrefix(text: string, splice: TextSplice): number {
  const { head, middle, tail } = splice;
  const limit = Math.min(text.length, splicedLength(splice));
  const inMiddle = sameRun(text, head, middle, 0, Math.min(middle.length, limit - head));
  if (inMiddle < middle.length) return head + inMiddle;
  // Past the middle the edited text is the original's tail, so the original is compared with itself, shifted.
  const from = head + middle.length;
  return from + sameRun(text, from, text, text.length - tail, limit - from);
}

/**
 * Length of the common end of `text` and the text `splice` makes of it, at
 * most `limit`; the splice's tail is common by definition. The common
 * beginning already reaches the head, so `limit` keeps this within the tail
 * and the middle.
 */
function spliceSuffix(text: string, { middle, tail }: TextSplice, limit: number): number {
  if (limit <= tail) return limit;
  return tail + sameRunBack(text, text.length - tail, middle, middle.length, limit - tail);
}

/** How many characters of `a` from `aFrom` equal those of `b` from `bFrom`, at most `limit`. */
function sameRun(a: string, aFrom: number, b: string, bFrom: number, limit: number): number {
  let at = 0;
  while (at + COMPARE_CHUNK <= limit && a.slice(aFrom + at, aFrom + at + COMPARE_CHUNK) === b.slice(bFrom + at, bFrom + at + COMPARE_CHUNK)) at += COMPARE_CHUNK;
  while (at < limit && a.charCodeAt(aFrom + at) === b.charCodeAt(bFrom + at)) at++;
  return at;
}

/** How many characters of `a` before `aEnd` equal those of `b` before `bEnd`, compared backwards, at most `limit`. */
function sameRunBack(a: string, aEnd: number, b: string, bEnd: number, limit: number): number {
  let at = 0;
  while (at + COMPARE_CHUNK <= limit && a.slice(aEnd - at - COMPARE_CHUNK, aEnd - at) === b.slice(bEnd - at - COMPARE_CHUNK, bEnd - at)) at += COMPARE_CHUNK;
  while (at < limit && a.charCodeAt(aEnd - 1 - at) === b.charCodeAt(bEnd - 1 - at)) at++;
  return at;
}

/** Where the line holding the character at `at` starts. */
function lineStart(text: string, at: number): number {
  return at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
}

/** Line breaks in `text` before `to`, counted from a place where they are known. */
function linesFrom(text: string, known: KnownLine, to: number): number {
  return to >= known.at ? known.line + countLineBreaks(text, known.at, to) : known.line - countLineBreaks(text, to, known.at);
}

function countLineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
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
