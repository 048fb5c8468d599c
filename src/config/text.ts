/**
 * Text for people: an error as a sentence, a long text as one line. The
 * ground floor: every layer shows errors and summaries the same way.
 */

/** What went wrong, as text: an Error's message, anything else as a string. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
