import * as z from 'zod';
import { defineTool } from '../define-tool';
import type { GrepLine, GrepMatch, GrepResult } from '../workspace';

const MAX_CONTEXT = 10;
const DEFAULT_RESULTS = 100;
const MAX_RESULTS = 500;

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a regular expression (ripgrep syntax: \\b, \\s, [^x], look-around). ' +
    'Prints matching lines as `path:line: text`, grouped by file; context lines show `-` instead of `:`. ' +
    'Files ignored by .gitignore or .ignore and binary files are skipped; hidden files are searched. ' +
    'Set fixed_strings to search for literal text such as "foo(" or "a.b". ' +
    `Stops after max_results matching lines (default ${DEFAULT_RESULTS}). To find files by name use glob.`,
  kind: 'search',
  permission: 'read',
  readOnly: true,
  prepare: (workspace) => workspace.prepareSearch?.(),
  parameters: () => z.object({
    pattern: z.string().min(1).describe('Regular expression, or literal text with fixed_strings.'),
    path: z
      .string()
      .optional()
      .describe('Folder or file to search, relative to the workspace root (default: the root).'),
    include: z
      .string()
      .min(1)
      .optional()
      .describe('Only search files whose name matches this glob, e.g. "*.ts" or "*.{ts,tsx}" (no folders: use path).'),
    ignore_case: z.boolean().default(false).describe('Match regardless of case.'),
    context: z
      .number()
      .int()
      .min(0)
      .max(MAX_CONTEXT)
      .default(0)
      .describe(`Lines to show before and after each match (at most ${MAX_CONTEXT}).`),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .default(DEFAULT_RESULTS)
      .describe(`Most matching lines to return (default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS}).`),
    fixed_strings: z.boolean().default(false).describe('Treat the pattern as literal text, not a regular expression.'),
  }),
  summarize: ({ pattern, path, include }) =>
    `/${pattern}/${path === undefined ? '' : ` in ${path}`}${include === undefined ? '' : ` (${include})`}`,
  locations: ({ path }) => (path === undefined ? [] : [{ path }]),
  async execute(args, { workspace, signal }) {
    const result = await workspace.grep({
      pattern: args.pattern,
      path: args.path,
      include: args.include === undefined ? undefined : [args.include],
      ignoreCase: args.ignore_case,
      fixedStrings: args.fixed_strings,
      context: args.context,
      maxMatches: args.max_results,
      signal,
    });
    const files = new Set(result.matches.map((match) => match.path)).size;
    const extra = { matches: result.matches.length, files, truncated: result.truncated };
    if (result.matches.length === 0) return { output: [noMatches(args), ...warningRows(result)].join('\n'), extra };
    const rows = [...matchRows(result.matches, args.context > 0), '', summary(result, files, args.max_results)];
    return { output: [...rows, ...warningRows(result)].join('\n'), extra };
  },
});

/** Rows grouped by file, a blank row between files; with context, `--` between runs of lines that are not adjacent. */
function matchRows(matches: GrepMatch[], withContext: boolean): string[] {
  const rows: string[] = [];
  let file: string | undefined;
  let lastLine = 0;
  for (const match of matches) {
    if (match.path !== file) {
      if (file !== undefined) rows.push('');
      file = match.path;
      lastLine = 0;
    }
    const lines: [GrepLine, string][] = [
      ...match.before.map((line): [GrepLine, string] => [line, '-']),
      [match, ':'],
      ...match.after.map((line): [GrepLine, string] => [line, '-']),
    ];
    for (const [line, mark] of lines) {
      // Context shared with the previous match was printed with it.
      if (line.line <= lastLine) continue;
      if (withContext && lastLine > 0 && line.line > lastLine + 1) rows.push('--');
      rows.push(`${file}:${line.line}${mark} ${line.text}`);
      lastLine = line.line;
    }
  }
  return rows;
}

function summary(result: GrepResult, files: number, maxResults: number): string {
  const found = `${plural(result.matches.length, 'match', 'matches')} in ${plural(files, 'file', 'files')}`;
  if (!result.truncated) return `[${found}]`;
  const raise = maxResults < MAX_RESULTS ? `, or raise max_results (up to ${MAX_RESULTS})` : '';
  return `[Stopped at ${found}; there are more. Narrow the search with path, include or a more specific pattern${raise}]`;
}

function noMatches(args: { pattern: string; path?: string | undefined; include?: string | undefined }): string {
  const where = args.path === undefined ? '' : ` in ${args.path}`;
  const which = args.include === undefined ? '' : ` (files named ${args.include})`;
  return `No matches for /${args.pattern}/${where}${which}.`;
}

function warningRows(result: GrepResult): string[] {
  return result.warnings.length === 0 ? [] : ['', 'Some files could not be searched:', ...result.warnings];
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
