/**
 * Text for people: an error as a sentence, a long text as one line. The
 * ground floor: every layer shows errors and summaries the same way.
 */

/** What went wrong, as text: an Error's message, anything else as a string. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The first line of `text`, trimmed, cut to `max` characters with `…` (the lines after it are simply left out). */
export function firstLine(text: string, max = 80): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The first line of `text`, cut to about `max` characters, with `…` when anything was left out. */
export function oneLine(text: string, max = 80): string {
  const trimmed = text.trim();
  const first = trimmed.split('\n', 1)[0] ?? '';
  if (first.length > max) return `${first.slice(0, max - 1)}…`;
  return first.length < trimmed.length ? `${first} …` : first;
}

/** `text` cut to `max` characters, with `…` when anything was left out. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `text` cut after `max` characters, saying how many were left out (for texts a model or a trace reader reads on). */
export function clipCounted(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** `text` with control characters (escapes, carriage returns, bidirectional overrides) shown as visible marks; newlines and tabs kept. */
export function shownText(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Names of lower-case letters, digits and dashes: every built-in agent and command. */
const PLAIN_NAME = /^[a-z0-9-]*$/;

/**
 * Orders two names as `a.localeCompare(b)` does. Plain names (PLAIN_NAME) compare the same by
 * code unit, without ICU's collator, whose loading costs a one-shot run milliseconds.
 */
export function compareNames(a: string, b: string): number {
  if (PLAIN_NAME.test(a) && PLAIN_NAME.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}
