/**
 * The line model the fuzzy matchers share: a text cut into lines with the
 * offset each line starts at, so a window of lines maps back to a span of
 * the original text, line breaks and all.
 */

/** One place the searched-for text was found. */
export interface TextMatch {
  /** Offset of the first matched character in the searched text. */
  start: number;
  /** Offset just past the match. */
  end: number;
  /** 0-based line the match starts on. */
  line: number;
  /**
   * Set when the matched lines sit at another indentation than the search
   * text: the replacement's lines should swap `from` (the search text's
   * common indentation) for `to` (the matched lines').
   */
  reindent?: { from: string; to: string };
}

export interface LineIndex {
  /** Lines without their '\n' or '\r\n'; a final line break does not start another line. */
  lines: string[];
  /** starts[i] is the offset of line i; starts[lines.length] is the text's length. */
  starts: number[];
}

/** What the line matchers compare: both texts cut into lines, with comparison keys. */
export interface LineInput {
  text: LineIndex;
  search: LineIndex;
  /** Whether the search text ends with a line break, so a match takes the last line's break too. */
  searchEndsWithBreak: boolean;
  /** key(line) of every text line, computed once. */
  textKeys: string[];
  searchKeys: string[];
}

export function indexLines(text: string): LineIndex {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const starts: number[] = [];
  let offset = 0;
  for (const [index, line] of lines.entries()) {
    starts.push(offset);
    offset += line.length + 1;
    if (line.endsWith('\r')) lines[index] = line.slice(0, -1);
  }
  starts.push(text.length);
  return { lines, starts };
}

export function lineInput(text: string, search: string): LineInput {
  const textIndex = indexLines(text);
  const searchIndex = indexLines(search);
  return {
    text: textIndex,
    search: searchIndex,
    searchEndsWithBreak: search.endsWith('\n'),
    textKeys: textIndex.lines.map(key),
    searchKeys: searchIndex.lines.map(key),
  };
}

/** A line as the tolerant matchers see it: trimmed, inner whitespace runs made one space. */
export function key(line: string): string {
  const trimmed = line.trim();
  // Most lines need no replacing, and testing first is several times cheaper.
  return /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
}

export function indentation(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** The indentation all non-blank lines share (their longest common prefix of leading whitespace). */
export function commonIndentation(lines: readonly string[]): string {
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = indentation(line);
    if (common === undefined) {
      common = indent;
      continue;
    }
    let length = 0;
    while (length < common.length && length < indent.length && common[length] === indent[length]) length++;
    common = common.slice(0, length);
    if (common === '') break;
  }
  return common ?? '';
}

/**
 * The match covering text lines [first, first + count): from the first
 * line's start to the last line's end, or past its line break when the
 * search text ended with one.
 */
export function windowMatch(input: LineInput, first: number, count: number): TextMatch {
  const { lines, starts } = input.text;
  const last = first + count - 1;
  const end = input.searchEndsWithBreak ? starts[last + 1]! : starts[last]! + lines[last]!.length;
  const from = commonIndentation(input.search.lines);
  const to = commonIndentation(lines.slice(first, first + count));
  return { start: starts[first]!, end, line: first, ...(from !== to ? { reindent: { from, to } } : {}) };
}

/** `text` with each line's indentation moved from `from` to `to`; blank lines stay as they are. */
export function reindent(text: string, from: string, to: string): string {
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? line : swapIndentation(line, from, to)))
    .join('\n');
}

/** A line indented less than `from` keeps its distance to it, as far as `to` allows. */
function swapIndentation(line: string, from: string, to: string): string {
  if (line.startsWith(from)) return to + line.slice(from.length);
  const indent = indentation(line);
  const shortBy = Math.max(0, from.length - indent.length);
  return to.slice(0, Math.max(0, to.length - shortBy)) + line.slice(indent.length);
}
