import { markdownLines } from './markdown-lines';

const TASK_LINE = /^(\s*(?:[-*+]|\d+[.)])\s+\[)([ xX])(\]\s*(?:\*\*|__)?)(T\d+)\b/;

/**
 * `text` with task `id`'s checkbox set to `[X]` (done) or `[ ]`: only that
 * one character changes, the rest of the file (line endings, spacing, the
 * other tasks) stays byte for byte. Throws when the task is not in the file.
 */
export function setTaskDone(text: string, id: string, done: boolean): { text: string; changed: boolean; line: number } {
  const target = id.toUpperCase();
  const line = markdownLines(text).find((l) => !l.inCode && !l.inComment && TASK_LINE.exec(l.text)?.[4]!.toUpperCase() === target);
  if (!line) throw new Error(`Task ${id} is no longer in tasks.md; run /speckit.tasks again or restore the line.`);
  const pieces = text.split(/(\r?\n)/);
  // split with a capture group alternates lines and separators: line n is at index 2(n-1).
  const index = 2 * (line.number - 1);
  const original = pieces[index]!;
  const hasBom = index === 0 && original.startsWith('\uFEFF');
  const body = hasBom ? original.slice(1) : original;
  const match = TASK_LINE.exec(body)!;
  const isDone = match[2] !== ' ';
  if (isDone === done) return { text, changed: false, line: line.number };
  const mark = done ? 'X' : ' ';
  pieces[index] = `${hasBom ? '\uFEFF' : ''}${match[1]}${mark}${body.slice(match[1]!.length + 1)}`;
  return { text: pieces.join(''), changed: true, line: line.number };
}
