/**
 * An edit of a text as one changed stretch, so that a small edit of a huge
 * file is checked, written and diffed at the cost of the stretch: the
 * edited text is never built whole or scanned, and its bytes are the
 * original's unchanged bytes around the stretch's own.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { reindent, type TextMatch } from './text-match-lines';

/** The edited text is the original's first `head` characters, then `middle`, then the original's last `tail` characters. */
export interface TextSplice {
  head: number;
  middle: string;
  tail: number;
}

/** UTF-8 file contents as text, with the bytes they were decoded from. */
export interface DecodedText {
  text: string;
  bytes: Uint8Array;
  /** Every byte is ASCII, so character offsets are byte offsets. */
  ascii: boolean;
}

/** A surrogate with no partner: such text has no UTF-8 form of its own. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `bytes` as UTF-8 text, a byte order mark kept as a character (so writing
 * the text back keeps it); undefined when they are not valid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): DecodedText | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = isAscii(buffer);
  if (!ascii && !isUtf8(buffer)) return undefined;
  return { text: buffer.toString('utf8'), bytes, ascii };
}

/** `text` with every match replaced (the replacement re-indented where a match asks for it), as one splice from the first match to the last. */
export function spliceMatches(text: string, matches: readonly TextMatch[], replacement: string): TextSplice {
  const first = matches[0];
  if (!first) return { head: text.length, middle: '', tail: 0 };
  let middle = '';
  let copied = first.start;
  for (const match of matches) {
    const { from, to } = match.reindent ?? { from: '', to: '' };
    middle += text.slice(copied, match.start) + (from === to ? replacement : reindent(replacement, from, to));
    copied = match.end;
  }
  return { head: first.start, middle, tail: text.length - copied };
}

/** The whole edited text; cheap to build, as V8 joins the pieces only when the text is read through. */
export function splicedText(text: string, splice: TextSplice): string {
  return text.slice(0, splice.head) + splice.middle + text.slice(text.length - splice.tail);
}

/** Characters in the edited text. */
export function splicedLength({ head, middle, tail }: TextSplice): number {
  return head + middle.length + tail;
}

/** Whether the splice changes the text. */
export function spliceChanges(text: string, { head, middle, tail }: TextSplice): boolean {
  return head + middle.length + tail !== text.length || middle !== text.slice(head, text.length - tail);
}

/** The edited text's characters from `from` to `to`, without building the rest of it. */
export function splicedSlice(text: string, { head, middle, tail }: TextSplice, from: number, to: number): string {
  const middleEnd = head + middle.length;
  // Past the middle, the edited text is the original's tail: its offsets there are the original's, shifted.
  const shift = text.length - tail - middleEnd;
  let slice = '';
  if (from < head) slice += text.slice(from, Math.min(to, head));
  if (to > head && from < middleEnd) slice += middle.slice(Math.max(from, head) - head, Math.min(to, middleEnd) - head);
  if (to > middleEnd) slice += text.slice(Math.max(from, middleEnd) + shift, to + shift);
  return slice;
}

/**
 * The edited file's bytes, in parts: the original's bytes before and after
 * the stretch, as they are, around the UTF-8 of the middle; joined, exactly
 * the UTF-8 of the whole edited text. Undefined when the text is not
 * well-formed there (a cut inside a surrogate pair, where byte offsets do
 * not follow from character offsets; a lone surrogate in the middle, which
 * only the text itself can hand on): then write the text.
 */
export function splicedBytes(file: DecodedText, splice: TextSplice): Uint8Array[] | undefined {
  const { text, bytes, ascii } = file;
  const tailStart = text.length - splice.tail;
  if (LONE_SURROGATE.test(splice.middle)) return undefined;
  if (!ascii && (splitsPair(text, splice.head) || splitsPair(text, tailStart))) return undefined;
  const headBytes = ascii ? splice.head : Buffer.byteLength(text.slice(0, splice.head));
  const tailBytes = ascii ? splice.tail : Buffer.byteLength(text.slice(tailStart));
  return [bytes.subarray(0, headBytes), Buffer.from(splice.middle), bytes.subarray(bytes.length - tailBytes)];
}

/** Whether offset `at` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  const low = text.charCodeAt(at);
  return at > 0 && low >= 0xdc00 && low <= 0xdfff && text.charCodeAt(at - 1) >= 0xd800 && text.charCodeAt(at - 1) <= 0xdbff;
}
