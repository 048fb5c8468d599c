/**
 * The similarity-based part of matching: block anchors (first and last lines
 * the same, the lines between merely similar) and, when nothing matched,
 * the stretch of the text most like the search text.
 */
import { lineInput, windowMatch, type LineInput, type TextMatch } from './text-match-lines';

/** Least similarity the lines between the anchors need for a block-anchor match. */
export const BLOCK_SIMILARITY = 0.8;
/** Characters of a line compared at most; longer lines are compared on their start. */
const MAX_COMPARED_CHARS = 1_000;
/** Best-voted windows that closestWindow compares line by line. */
const CLOSEST_CANDIDATES = 8;
/** Most placement votes one word may cast. */
const VOTES_PER_WORD = 20_000;

/**
 * Windows of the search's line count (at least three) whose first and last
 * keys equal the search's and whose lines between are at least
 * BLOCK_SIMILARITY alike. Only the best-scoring windows are returned: one,
 * unless several score exactly the same.
 */
export function blockAnchorMatches(input: LineInput): TextMatch[] {
  const { textKeys, searchKeys } = input;
  const count = searchKeys.length;
  if (count < 3) return [];
  const middle = searchKeys.slice(1, -1);
  let best = BLOCK_SIMILARITY;
  let firsts: number[] = [];
  for (let first = 0; first + count <= textKeys.length; first++) {
    if (textKeys[first] !== searchKeys[0] || textKeys[first + count - 1] !== searchKeys[count - 1]) continue;
    const score = linesSimilarity(middle, textKeys.slice(first + 1, first + count - 1), best);
    if (score > best || (score === best && firsts.length === 0)) {
      best = score;
      firsts = [first];
    } else if (score === best && first >= firsts[firsts.length - 1]! + count) {
      firsts.push(first);
    }
  }
  return firsts.map((first) => windowMatch(input, first, count));
}

export interface ClosestWindow {
  /** 0-based line the window starts on. */
  line: number;
  lines: string[];
  /** linesSimilarity of the window to the search text, 0 to 1. */
  similarity: number;
}

/**
 * The lines of `text` most like `search`: the text lines sharing words with
 * search lines vote for where the search would start (rare words weigh
 * more), the windows with the most votes are compared line by line, and the
 * most similar wins. Undefined when no line shares a word.
 */
export function closestWindow(text: string, search: string): ClosestWindow | undefined {
  const input = lineInput(text, search);
  const size = Math.min(input.searchKeys.length, input.textKeys.length);
  const candidates = [...placementVotes(input, size)]
    .sort(([firstA, votesA], [firstB, votesB]) => votesB - votesA || firstA - firstB)
    .slice(0, CLOSEST_CANDIDATES);
  const searchKeys = input.searchKeys.slice(0, size);
  let closest: ClosestWindow | undefined;
  for (const [first] of candidates) {
    const similarity = linesSimilarity(searchKeys, input.textKeys.slice(first, first + size), closest?.similarity ?? 0);
    if (closest === undefined || similarity > closest.similarity) {
      closest = { line: first, lines: input.text.lines.slice(first, first + size), similarity };
    }
  }
  return closest;
}

/**
 * Votes per window start: a text line sharing a word with search line j votes
 * for the window starting j lines above it, 1 / (text lines with the word).
 * Words that would cast more than VOTES_PER_WORD votes are skipped: they
 * are too common to place anything.
 */
function placementVotes(input: LineInput, size: number): Map<number, number> {
  const searchLines = linesByWord(input.searchKeys, () => true);
  const textLines = linesByWord(input.textKeys, (word) => searchLines.has(word));
  const lastFirst = input.textKeys.length - size;
  const votes = new Map<number, number>();
  for (const [word, inText] of textLines) {
    const inSearch = searchLines.get(word)!;
    if (inText.length * inSearch.length > VOTES_PER_WORD) continue;
    for (const j of inSearch) {
      for (const i of inText) {
        const first = Math.min(Math.max(i - j, 0), lastFirst);
        votes.set(first, (votes.get(first) ?? 0) + 1 / inText.length);
      }
    }
  }
  return votes;
}

function linesByWord(lines: readonly string[], keep: (word: string) => boolean): Map<string, number[]> {
  const byWord = new Map<string, number[]>();
  lines.forEach((line, index) => {
    for (const word of line.match(/[\p{L}\p{N}_$]+/gu) ?? []) {
      if (!keep(word)) continue;
      const list = byWord.get(word);
      if (!list) byWord.set(word, [index]);
      else if (list[list.length - 1] !== index) list.push(index);
    }
  });
  return byWord;
}

/**
 * How alike two equally long runs of lines are: 1 minus their summed edit
 * distances over their summed lengths (the longer line of each pair).
 * Once the result must fall below `atLeast` it stops early and returns some
 * value below `atLeast`.
 */
export function linesSimilarity(a: readonly string[], b: readonly string[], atLeast = 0): number {
  const left = a.map(clip);
  const right = b.map(clip);
  let total = 0;
  for (let j = 0; j < left.length; j++) total += Math.max(left[j]!.length, right[j]?.length ?? 0);
  if (total === 0) return 1;
  // The epsilon keeps a score of exactly `atLeast` from being cut by rounding.
  const budget = Math.floor((1 - atLeast) * total + 1e-9);
  let bound = 0;
  for (let j = 0; j < left.length && bound <= budget; j++) bound += bagDistance(left[j]!, right[j] ?? '');
  if (bound > budget) return 1 - bound / total;
  let distance = 0;
  for (let j = 0; j < left.length && distance <= budget; j++) {
    distance += editDistance(left[j]!, right[j] ?? '', budget - distance);
  }
  return 1 - distance / total;
}

/** Levenshtein distance, or any number above `limit` once it must exceed it. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  let head = 0;
  while (head < a.length && head < b.length && a.charCodeAt(head) === b.charCodeAt(head)) head++;
  let tail = 0;
  const shorter = Math.min(a.length, b.length) - head;
  while (tail < shorter && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  const left = a.slice(head, a.length - tail);
  const right = b.slice(head, b.length - tail);
  if (Math.abs(left.length - right.length) > limit) return limit + 1;
  let previous = Uint32Array.from({ length: right.length + 1 }, (_, j) => j);
  let current = new Uint32Array(right.length + 1);
  for (let i = 1; i <= left.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= right.length; j++) {
      const substitution = previous[j - 1]! + (left.charCodeAt(i - 1) === right.charCodeAt(j - 1) ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (current[j]! < rowMin) rowMin = current[j]!;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[right.length]!;
}

/** Scratch counts for bagDistance, all zero between calls. */
const bag = new Int32Array(256);

/**
 * A cheap lower bound of editDistance: how many more characters one string
 * has than the other, counting characters in 256 buckets by char code.
 */
function bagDistance(a: string, b: string): number {
  for (let i = 0; i < a.length; i++) bag[a.charCodeAt(i) & 255]!++;
  for (let i = 0; i < b.length; i++) bag[b.charCodeAt(i) & 255]!--;
  let surplus = 0;
  let deficit = 0;
  for (const text of [a, b]) {
    for (let i = 0; i < text.length; i++) {
      const bucket = text.charCodeAt(i) & 255;
      const count = bag[bucket]!;
      if (count > 0) surplus += count;
      else deficit -= count;
      bag[bucket] = 0;
    }
  }
  return Math.max(surplus, deficit);
}

function clip(line: string): string {
  return line.length > MAX_COMPARED_CHARS ? line.slice(0, MAX_COMPARED_CHARS) : line;
}
