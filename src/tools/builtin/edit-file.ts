import * as z from 'zod';
import { defineTool } from '../define-tool';
import { PROTECTED_NOTE } from './protected-note';
import { closestWindow, findMatches, type MatcherName, type MatchResult, type TextMatch } from '../text-match';
import { decodeUtf8, type DecodedText, spliceChanges, splicedBytes, splicedSlice, splicedText, spliceMatches, type TextSplice } from '../text-splice';
import { spliceDiff } from '../unified-diff';
import { type Workspace, writeParts } from '../workspace';

/** A NUL byte in this many leading bytes marks a file as binary. */
const BINARY_SNIFF_BYTES = 8_192;
const BYTE_ORDER_MARK = '\uFEFF';
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
  parameters: () => z.object({
    path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
    old_string: z.string().describe('The text to replace, copied from the file.'),
    new_string: z.string().describe('The text to put in its place; must differ from old_string.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false).'),
  }),
  summarize: ({ path }) => path,
  locations: ({ path }) => [{ path }],
  async preview(args, { workspace }) {
    return diffOf(await planEdit(args, workspace)).diff;
  },
  async execute(args, { workspace }) {
    const plan = await planEdit(args, workspace);
    const { shown, file, splice, found } = plan;
    await writeEdit(workspace, args.path, file, splice);

    const { diff, linesAdded, linesRemoved } = diffOf(plan);
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

/** An edit that can apply: the file as read and the one stretch of it the edit replaces. */
interface EditPlan {
  shown: string;
  file: DecodedText;
  splice: TextSplice;
  found: MatchResult;
}

/** The file as read and its edit; throws the message the model reads when the edit cannot apply. */
async function planEdit(
  { path, old_string, new_string, replace_all = false }: { path: string; old_string: string; new_string: string; replace_all?: boolean | undefined },
  workspace: Workspace,
): Promise<EditPlan> {
  const shown = workspace.relative(path);
  if (old_string === '') throw new Error('old_string is empty. Use write_file to create a file or rewrite it whole.');
  if (old_string === new_string) {
    throw new Error('old_string and new_string are the same, so there is nothing to change.');
  }
  const file = await readText(workspace, path, shown);
  const before = file.text;
  const lineBreak = lineBreakOf(before);
  const search = withLineBreaks(old_string, lineBreak);
  const found = findMatches(before, search);
  if (!found) throw new Error(notFoundMessage(shown, before, search));
  if (found.matches.length > 1 && !replace_all) {
    throw new Error(ambiguousMessage(shown, found.matcher, found.matches));
  }
  const splice = keepFinalLineBreak(before, spliceMatches(before, found.matches, withLineBreaks(new_string, lineBreak)), lineBreak);
  if (!spliceChanges(before, splice)) {
    throw new Error(`The edit leaves ${shown} unchanged: the matched text already reads as new_string.`);
  }
  return { shown, file, splice, found };
}

/** The edit's diff, the lines before the first match already counted by the matcher. */
function diffOf({ shown, file, splice, found }: EditPlan): ReturnType<typeof spliceDiff> {
  const first = found.matches[0]!;
  return spliceDiff(shown, file.text, splice, { at: first.start, line: first.line });
}

/**
 * Writes the edit: the original's bytes around the stretch go out as read
 * and only the stretch is encoded, so no pass encodes the whole text again;
 * the text when those bytes cannot be had. A text that starts with a byte
 * order mark goes as text too, since a backend that decodes bytes by the
 * default rules would drop the mark.
 */
async function writeEdit(workspace: Workspace, path: string, file: DecodedText, splice: TextSplice): Promise<void> {
  const parts = splicedSlice(file.text, splice, 0, 1) === BYTE_ORDER_MARK ? undefined : splicedBytes(file, splice);
  await (parts ? writeParts(workspace, path, parts) : workspace.writeFile(path, splicedText(file.text, splice)));
}

async function readText(workspace: Workspace, path: string, shown: string): Promise<DecodedText> {
  const info = await workspace.stat(path);
  if (!info) {
    throw new Error(`File not found: ${shown}. edit_file changes existing files; use write_file to create one.`);
  }
  if (info.type === 'directory') throw new Error(`${shown} is a directory; edit_file needs a file path.`);
  const bytes = await workspace.readFile(path);
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new Error(`${shown} is a binary file (${bytes.length} bytes); edit_file only edits text.`);
  }
  const decoded = decodeUtf8(bytes);
  if (!decoded) throw new Error(`${shown} is not valid UTF-8; edit_file only edits UTF-8 text.`);
  return decoded;
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
function keepFinalLineBreak(before: string, splice: TextSplice, lineBreak: string): TextSplice {
  // A tail kept from the original ends the text as before.
  if (splice.tail > 0) return splice;
  const { head, middle } = splice;
  const had = before.endsWith('\n');
  const ending = (before.slice(Math.max(0, head - 2), head) + middle).slice(-2);
  if (had && head + middle.length > 0 && !ending.endsWith('\n')) return { head, middle: middle + lineBreak, tail: 0 };
  if (had || !ending.endsWith('\n')) return splice;
  const cut = ending === '\r\n' ? 2 : 1;
  // The break dropped may lie before the middle, in text the edit otherwise keeps.
  return cut <= middle.length ? { head, middle: middle.slice(0, -cut), tail: 0 } : { head: head + middle.length - cut, middle: '', tail: 0 };
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
