/** The first line of `text`, cut to about `max` characters, with `…` when anything was left out. */
export function oneLine(text: string, max = 80): string {
  const trimmed = text.trim();
  const first = trimmed.split('\n', 1)[0] ?? '';
  if (first.length > max) return `${first.slice(0, max - 1)}…`;
  return first.length < trimmed.length ? `${first} …` : first;
}
