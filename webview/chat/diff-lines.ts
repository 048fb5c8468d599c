/**
 * The lines of a unified diff as the view shows them: git's header lines
 * left out (the file is named once by whoever shows the diff), a hunk's @@
 * line as where it starts. Headers come before a file's first hunk only:
 * inside a hunk "--- x" is a removed "-- x".
 */
export type DiffLine = { kind: 'hunk'; start: number | undefined } | { kind: 'add' | 'del' | 'context'; text: string };

export function diffLines(unified: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let header = true;
  for (const line of unified.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('diff ')) header = true;
    if (line.startsWith('@@')) {
      header = false;
      const start = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(line)?.[1];
      lines.push({ kind: 'hunk', start: start !== undefined ? Number(start) : undefined });
      continue;
    }
    if (header && /^(diff |index |--- |\+\+\+ |===|new file|deleted file|similarity|rename )/.test(line)) continue;
    lines.push({ kind: line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'context', text: line });
  }
  return lines;
}
