import * as z from 'zod';
import { defineTool } from '../define-tool';
import { PROTECTED_NOTE } from './protected-note';
import { unifiedDiff } from '../unified-diff';
import type { Workspace } from '../workspace';

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create a file, or replace the whole content of an existing one. Parent folders are created as needed. ' +
    'Read an existing file before overwriting it. ' +
    PROTECTED_NOTE,
  kind: 'edit',
  permission: 'write',
  approval: ({ path }) => ({ title: `Write ${path}` }),
  parameters: () => z.object({
    path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  summarize: ({ path }) => path,
  locations: ({ path }) => [{ path }],
  async preview({ path, content }, { workspace }) {
    return unifiedDiff(workspace.relative(path), await currentText(workspace, path), content).diff;
  },
  async execute({ path, content }, { workspace }) {
    const shown = workspace.relative(path);
    const before = await currentText(workspace, path);
    await workspace.writeFile(path, content);

    const { diff, linesAdded, linesRemoved } = unifiedDiff(shown, before, content);
    const output =
      before === undefined
        ? `Created ${shown} (+${linesAdded} lines).`
        : `Overwrote ${shown} (+${linesAdded} -${linesRemoved} lines).`;
    return {
      output,
      filesModified: [shown],
      diff,
      extra: { created: before === undefined, linesAdded, linesRemoved },
    };
  },
});

/** The file's text now; undefined when there is no file yet. */
async function currentText(workspace: Workspace, path: string): Promise<string | undefined> {
  const info = await workspace.stat(path);
  if (info?.type === 'directory') throw new Error(`${workspace.relative(path)} is a directory; write_file needs a file path.`);
  return info ? new TextDecoder().decode(await workspace.readFile(path)) : undefined;
}
