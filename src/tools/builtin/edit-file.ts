import { z } from 'zod';
import { defineTool } from '../define-tool';
import { PROTECTED_NOTE } from './protected-note';
import { closestWindow, findMatches, type MatcherName, type MatchResult, replaceMatches, type TextMatch } from '../text-match';
import { unifiedDiff } from '../unified-diff';
import type { Workspace } from '../workspace';

/** A NUL byte in this many leading bytes marks a file as binary. */
const BINARY_SNIFF_BYTES = 8_192;
/** Lines of the closest stretch of the file shown when old_string is not found. */
const CLOSEST_LINES_SHOWN = 10;
/** Line numbers listed when old_string matches in several places. */
const MATCH_LINES_LISTED = 10;

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace text in an existing file. old_string must be the file\'s text exactly as read_file shows it ' +
    '(without the line-number prefix) and must occur once: include enough surrounding lines to make it unique, ' +
    'or set replace_all to change every occurrence. Small whitespace and indentation differences are tolerated. ' +
    'Use write_file to create a file or rewrite it whole. ' +
    PROTECTED_NOTE,
  kind: 'edit',
  permission: 'write',
  approval: ({ path }) => ({ title: `Edit ${path}` }),
  parameters: z.object({
    path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
    old_string: z.string().describe('The text to replace, copied from the file.'),
    new_string: z.string().describe('The text to put in its place; must differ from old_string.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false).'),
  }),
  summarize: ({ path }) => path,
  locations: ({ path }) => [{ path }],
  async preview(args, { workspace }) {
    const { shown, before, after } = await planEdit(args, workspace);
    return unifiedDiff(shown, before, after).diff;
  },
  async execute(args, { workspace }) {
    const { shown, before, after, found } = await planEdit(args, workspace);
    await workspace.writeFile(args.path, after);

    const { diff, linesAdded, linesRemoved } = unifiedDiff(shown, before, after);
    const notes = [
      ...(found.matches.length > 1 ? [`${found.matches.length} replacements`] : []),
      ...(found.matcher !== 'exact' ? [`matched with ${found.matcher} matching`] : []),
    ];
    return {
      output: `Edited ${shown} (+${linesAdded} -${linesRemoved} lines)${notes.map((note) => `, ${note}`).join('')}.`,
      filesModified: [shown],
      diff,
      extra: { matcher: found.matcher, replacements: found.matches.length, linesAdded, linesRemoved },
    };
  },
});

/** The file's text before and after the edit; throws the message the model reads when the edit cannot apply. */
async function planEdit(
  { path, old_string, new_string, replace_all = false }: { path: string; old_string: string; new_string: string; replace_all?: boolean | undefined },
  workspace: Workspace,
): Promise<{ shown: string; before: string; after: string; found: MatchResult }> {
  const shown = workspace.relative(path);
  if (old_string === '') throw new Error('old_string is empty. Use write_file to create a file or rewrite it whole.');
  if (old_string === new_string) {
    throw new Error('old_string and new_string are the same, so there is nothing to change.');
  }
  const before = await readText(workspace, path, shown);
  const lineBreak = lineBreakOf(before);
  const search = withLineBreaks(old_string, lineBreak);
  const found = findMatches(before, search);
  if (!found) throw new Error(notFoundMessage(shown, before, search));
  if (found.matches.length > 1 && !replace_all) {
    throw new Error(ambiguousMessage(shown, found.matcher, found.matches));
  }
  const replaced = replaceMatches(before, found.matches, withLineBreaks(new_string, lineBreak));
  const after = keepFinalLineBreak(before, replaced, lineBreak);
  if (after === before) {
    throw new Error(`The edit leaves ${shown} unchanged: the matched text already reads as new_string.`);
  }
  return { shown, before, after, found };
}

async function readText(workspace: Workspace, path: string, shown: string): Promise<string> {
  const info = await workspace.stat(path);
  if (!info) {
    throw new Error(`File not found: ${shown}. edit_file changes existing files; use write_file to create one.`);
  }
  if (info.type === 'directory') throw new Error(`${shown} is a directory; edit_file needs a file path.`);
  const bytes = await workspace.readFile(path);
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new Error(`${shown} is a binary file (${bytes.length} bytes); edit_file only edits text.`);
  }
  try {
    // ignoreBOM keeps a byte order mark in the text, so writing it back keeps it too.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${shown} is not valid UTF-8; edit_file only edits UTF-8 text.`);
  }
}

/** The line break most lines of the text end with. */
function lineBreakOf(text: string): '\n' | '\r\n' {
  // Most files have no CR at all: one search answers, with no pass over the lines.
  if (!text.includes('\r\n')) return '\n';
  const crlf = occurrences(text, '\r\n');
  return crlf > occurrences(text, '\n') - crlf ? '\r\n' : '\n';
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

function withLineBreaks(text: string, lineBreak: string): string {
  return text.replace(/\r?\n/g, lineBreak);
}

/** The edited text ends with a line break exactly when the original did. */
function keepFinalLineBreak(before: string, after: string, lineBreak: string): string {
  const had = before.endsWith('\n');
  if (had && after !== '' && !after.endsWith('\n')) return after + lineBreak;
  if (!had && after.endsWith('\n')) return after.replace(/\r?\n$/, '');
  return after;
}

function ambiguousMessage(shown: string, matcher: MatcherName, matches: readonly TextMatch[]): string {
  const lines = matches.slice(0, MATCH_LINES_LISTED).map((match) => match.line + 1);
  const listed = lines.join(', ') + (matches.length > MATCH_LINES_LISTED ? ', …' : '');
  const how = matcher === 'exact' ? '' : ` with ${matcher} matching`;
  return (
    `old_string matches ${matches.length} places in ${shown}${how} (lines ${listed}). ` +
    'Add surrounding lines to old_string so it matches once, or set replace_all to change every match.'
  );
}

function notFoundMessage(shown: string, text: string, search: string): string {
  const head =
    `old_string was not found in ${shown}, not even with whitespace-normalised, indentation-flexible, ` +
    'line-trimmed or block-anchor matching.';
  const closest = closestWindow(text, search);
  if (!closest) return `${head} No line of the file resembles it; read the file and copy old_string from it.`;
  const rows = closest.lines
    .slice(0, CLOSEST_LINES_SHOWN)
    .map((line, index) => `${String(closest.line + index + 1).padStart(6)}\t${line}`);
  const more = closest.lines.length - CLOSEST_LINES_SHOWN;
  return (
    `${head} The closest lines in the file (${Math.round(closest.similarity * 100)}% similar) are:\n` +
    rows.join('\n') +
    (more > 0 ? `\n[… ${more} more lines]` : '') +
    '\nCopy old_string from the file exactly, or read the file again.'
  );
}
