import * as z from 'zod';
import { defineTool } from '../define-tool';

const MAX_FILES = 200;

export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by name pattern, newest first, e.g. "src/**/*.ts", "**/*.test.{ts,tsx}" or "package.json". ' +
    '`*` and `?` stay within a folder, `**` spans folders, `{a,b}` gives alternatives; a pattern without "/" ' +
    'matches file names at any depth. Files ignored by .gitignore or .ignore are left out, hidden files are ' +
    'included. ' +
    `Shows at most ${MAX_FILES} paths: when more match, the search stops at the first ${MAX_FILES} it finds, lists them by path and says so. ` +
    'To search file contents use grep.',
  kind: 'search',
  permission: 'read',
  readOnly: true,
  prepare: (workspace) => workspace.prepareSearch?.(),
  parameters: () => z.object({
    pattern: z.string().min(1).describe('Glob matched against paths relative to `path`.'),
    path: z.string().optional().describe('Folder to search, relative to the workspace root (default: the root).'),
  }),
  summarize: ({ pattern, path }) => (path === undefined ? pattern : `${pattern} in ${path}`),
  locations: ({ path }) => (path === undefined ? [] : [{ path }]),
  async execute({ pattern, path }, { workspace, signal }) {
    const found = await workspace.findFiles({ globs: [pattern], path, limit: MAX_FILES, signal });
    const where = path === undefined ? '' : ` in ${workspace.relative(path)}`;
    const extra = { files: found.files.length, truncated: found.truncated };
    const warnings = found.warnings.length === 0 ? [] : ['', 'Some folders could not be read:', ...found.warnings];
    if (found.files.length === 0) return { output: [`No files match "${pattern}"${where}.`, ...warnings].join('\n'), extra };
    const rows = [...found.files];
    if (found.truncated) {
      rows.push(
        '',
        `[Stopped at ${found.files.length} files; more match. These are the first found, by path, not the newest: ` +
          'use a more specific pattern or a subfolder as path]',
      );
    }
    return { output: [...rows, ...warnings].join('\n'), extra };
  },
});
