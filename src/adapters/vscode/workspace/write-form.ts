/**
 * How a write reaches the disk in VS Code. Text goes through the editor
 * (a WorkspaceEdit, so Ctrl+Z undoes it, then a save); content an editor
 * buffer cannot hold byte for byte goes to the disk as bytes instead.
 */
export type WriteForm =
  | {
      kind: 'text';
      /** The text to put in the buffer, without a byte order mark. */
      text: string;
      /** The buffer's line break after the write; undefined for text without any. */
      lineBreak: '\n' | '\r\n' | undefined;
    }
  | { kind: 'bytes'; bytes: Uint8Array; reason: string };

/**
 * The largest content written through the editor. VS Code does not sync
 * documents above 50 MB to extensions, and a buffer that large is slow to
 * diff for undo; bigger files are written as bytes.
 */
export const MAX_EDITOR_BYTES = 16 * 1024 * 1024;

const UTF8_BOM = '\uFEFF';

/**
 * Picks the form for `data` going into a document whose encoding is
 * `encoding` (VS Code's ids: 'utf8', 'utf8bom', 'utf16le', …; undefined for
 * a file not open yet, which VS Code will open as UTF-8).
 */
export function writeForm(data: Uint8Array | string, encoding: string | undefined): WriteForm {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const asBytes = (reason: string): WriteForm => ({ kind: 'bytes', bytes, reason });
  if (bytes.length > MAX_EDITOR_BYTES) return asBytes('too large for an editor buffer');
  const text = typeof data === 'string' ? data : strictUtf8(data);
  if (text === undefined) return asBytes('not UTF-8 text');
  if (text.includes('\0')) return asBytes('binary content');
  const lineBreak = lineBreakOf(text);
  if (lineBreak === 'mixed') return asBytes('mixed line breaks, which an editor buffer would make uniform');
  const hasBom = text.startsWith(UTF8_BOM);
  const expected = encoding ?? 'utf8';
  if (expected === 'utf8' && !hasBom) return { kind: 'text', text, lineBreak };
  if (expected === 'utf8bom' && hasBom) return { kind: 'text', text: text.slice(1), lineBreak };
  return asBytes(`the document's encoding (${expected}) would change the bytes written`);
}

/** The bytes a document's text stands for on disk, as a UTF-8 reader expects them. */
export function bufferBytes(text: string, encoding: string | undefined): Uint8Array {
  return new TextEncoder().encode(encoding === 'utf8bom' ? UTF8_BOM + text : text);
}

/**
 * VS Code's encoding id for a file from its first bytes, for hosts whose
 * API does not tell: a byte order mark decides, anything else opens as UTF-8.
 */
export function encodingFromBom(head: Uint8Array): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf8bom';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf16be';
  return 'utf8';
}

/**
 * The one line break the text uses; 'mixed' when it uses several or a lone
 * CR, which an editor buffer treats as a line break and rewrites.
 */
export function lineBreakOf(text: string): '\n' | '\r\n' | 'mixed' | undefined {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  const cr = text.split('\r').length - 1 - crlf;
  if (cr > 0 || (crlf > 0 && lf > 0)) return 'mixed';
  if (crlf > 0) return '\r\n';
  return lf > 0 ? '\n' : undefined;
}

function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    // ignoreBOM keeps a byte order mark in the text, so its presence can be judged.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The part of a text that changes: `before.slice(start, end)` becomes `text`. */
export interface ChangedSpan {
  start: number;
  end: number;
  text: string;
}

/**
 * The smallest span that turns `before` into `after` (common start and end
 * kept), so an edit leaves the rest of the buffer, its cursors and its
 * undo history of untouched lines alone. Never splits a CRLF or a surrogate pair.
 */
export function changedSpan(before: string, after: string): ChangedSpan {
  const limit = Math.min(before.length, after.length);
  let start = 0;
  while (start < limit && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  while (start > 0 && splitsPair(before, start)) start--;
  let suffix = 0;
  while (
    suffix < limit - start &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  ) {
    suffix++;
  }
  while (suffix > 0 && (splitsPair(before, before.length - suffix) || splitsPair(after, after.length - suffix))) suffix--;
  return { start, end: before.length - suffix, text: after.slice(start, after.length - suffix) };
}

/** Whether `offset` falls between the halves of a CRLF or of a surrogate pair. */
function splitsPair(text: string, offset: number): boolean {
  if (offset <= 0 || offset >= text.length) return false;
  const previous = text.charCodeAt(offset - 1);
  const next = text.charCodeAt(offset);
  if (previous === 0x0d && next === 0x0a) return true;
  return previous >= 0xd800 && previous <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
}
