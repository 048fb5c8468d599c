/**
 * Finding the text an edit means to replace. The search text is looked for
 * exactly first; when it is not there, ever more tolerant matchers are tried
 * in turn, and the first that finds anything decides. Every matcher is a
 * pure function from the two texts to the spans it matched.
 */
import { blockAnchorMatches } from './text-match-blocks';
import { commonIndentation, indentation, lineInput, windowMatch } from './text-match-lines';
import { spliceMatches, splicedText } from './text-splice';
import type { LineInput, TextMatch } from './text-match-lines';

export type { TextMatch } from './text-match-lines';
export { closestWindow, type ClosestWindow } from './text-match-blocks';

/** The matchers, most exact first. */
export type MatcherName =
  | 'exact'
  /** Same lines up to line endings, trailing whitespace and runs of inner spaces or tabs. */
  | 'whitespace-normalised'
  /** Same lines at another common indentation. */
  | 'indentation-flexible'
  /** Same lines once each is trimmed. */
  | 'line-trimmed'
  /** First and last lines the same, the lines between similar enough. */
  | 'block-anchor';

export interface MatchResult {
  matcher: MatcherName;
  /** Sorted and non-overlapping; never empty. */
  matches: TextMatch[];
}

type LineMatcher = (input: LineInput) => TextMatch[];

const LINE_MATCHERS: ReadonlyArray<{ name: MatcherName; find: LineMatcher }> = [
  { name: 'whitespace-normalised', find: whitespaceNormalisedMatches },
  { name: 'indentation-flexible', find: indentationFlexibleMatches },
  { name: 'line-trimmed', find: lineTrimmedMatches },
  { name: 'block-anchor', find: blockAnchorMatches },
];

/** Where `search` occurs in `text`, by the first matcher that finds it; undefined when none does. */
export function findMatches(text: string, search: string): MatchResult | undefined {
  const exact = exactMatches(text, search);
  if (exact.length > 0) return { matcher: 'exact', matches: exact };
  const input = lineInput(text, search);
  for (const { name, find } of LINE_MATCHERS) {
    const matches = find(input);
    if (matches.length > 0) return { matcher: name, matches };
  }
  return undefined;
}

/** `text` with every match replaced, the replacement re-indented where a match asks for it. */
export function replaceMatches(text: string, matches: readonly TextMatch[], replacement: string): string {
  return splicedText(text, spliceMatches(text, matches, replacement));
}

export function exactMatches(text: string, search: string): TextMatch[] {
  const matches: TextMatch[] = [];
  if (search === '') return matches;
  let line = 0;
  let counted = 0;
  for (let start = text.indexOf(search); start !== -1; start = text.indexOf(search, start + search.length)) {
    line += countBreaks(text, counted, start);
    counted = start;
    matches.push({ start, end: start + search.length, line });
  }
  return matches;
}

function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** Keys equal and, on non-blank lines, the indentation verbatim. */
export function whitespaceNormalisedMatches(input: LineInput): TextMatch[] {
  const { text, search, textKeys, searchKeys } = input;
  return scanWindows(input, (first) =>
    searchKeys.every(
      (searchKey, j) =>
        textKeys[first + j] === searchKey &&
        (searchKey === '' || indentation(text.lines[first + j]!) === indentation(search.lines[j]!)),
    ),
  );
}

/** Keys equal, and every non-blank line indented the same relative to its side's common indentation. */
export function indentationFlexibleMatches(input: LineInput): TextMatch[] {
  const { text, search, searchKeys } = input;
  const searchCommon = commonIndentation(search.lines).length;
  const relative = search.lines.map((line) => indentation(line).slice(searchCommon));
  return scanWindows(input, (first) => {
    if (!keysMatch(input, first)) return false;
    const window = text.lines.slice(first, first + search.lines.length);
    const common = commonIndentation(window).length;
    return window.every((line, j) => searchKeys[j] === '' || indentation(line).slice(common) === relative[j]);
  });
}

export function lineTrimmedMatches(input: LineInput): TextMatch[] {
  return scanWindows(input, (first) => keysMatch(input, first));
}

function keysMatch({ textKeys, searchKeys }: LineInput, first: number): boolean {
  return searchKeys.every((searchKey, j) => textKeys[first + j] === searchKey);
}

/** Non-overlapping windows of the search's line count that `matchesAt` accepts, top to bottom. */
function scanWindows(input: LineInput, matchesAt: (first: number) => boolean): TextMatch[] {
  const count = input.search.lines.length;
  const firstKey = input.searchKeys[0];
  const matches: TextMatch[] = [];
  if (count === 0) return matches;
  for (let first = 0; first + count <= input.text.lines.length; first++) {
    if (input.textKeys[first] !== firstKey || !matchesAt(first)) continue;
    matches.push(windowMatch(input, first, count));
    first += count - 1;
  }
  return matches;
}
