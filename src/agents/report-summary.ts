/**
 * The one line that stands for a subagent's report where space is short
 * (the `← worker completed: …` line, the task tool's summary). Seed 002's
 * subagents answer in markdown with a `## Summary` section; its first
 * sentence is the summary, not the heading. A report without one gives its
 * first line that is not a heading.
 */

const SUMMARY_HEADING = /^#{1,6}\s*summary\s*:?\s*$/i;
const HEADING = /^#{1,6}\s/;

export function hasSummarySection(text: string): boolean {
  return text.split('\n').some((line) => SUMMARY_HEADING.test(line.trim()));
}

export function reportSummary(text: string, max = 200): string {
  const lines = text.split('\n').map((line) => line.trim());
  const start = lines.findIndex((line) => SUMMARY_HEADING.test(line));
  const section = start >= 0 ? sectionAfter(lines, start) : lines.filter((line) => !HEADING.test(line));
  const paragraph = firstParagraph(section);
  return cut(start >= 0 ? firstSentence(paragraph) : (paragraph.split('\n')[0] ?? ''), max);
}

/** The lines under the heading at `index`, up to the next heading. */
function sectionAfter(lines: string[], index: number): string[] {
  const rest = lines.slice(index + 1);
  const end = rest.findIndex((line) => HEADING.test(line));
  return end >= 0 ? rest.slice(0, end) : rest;
}

/** The first run of non-empty lines, joined by newlines, list markers kept. */
function firstParagraph(lines: string[]): string {
  const from = lines.findIndex((line) => line !== '');
  if (from < 0) return '';
  const to = lines.findIndex((line, i) => i > from && line === '');
  return lines.slice(from, to < 0 ? undefined : to).join('\n');
}

/** Up to the first full stop, question or exclamation mark that ends a sentence (one followed by a space or the end). */
function firstSentence(paragraph: string): string {
  const flat = paragraph.replace(/\s*\n\s*/g, ' ');
  const end = /[.!?](?=\s|$)/.exec(flat);
  return end ? flat.slice(0, end.index + 1) : flat;
}

function cut(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
