import { z } from 'zod';
import { defineTool } from '../define-tool';

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create a file, or replace the whole content of an existing one. Parent folders are created as needed. ' +
    'Read an existing file before overwriting it.',
  kind: 'edit',
  permission: 'write',
  approval: ({ path }) => ({ title: `Write ${path}` }),
  parameters: z.object({
    path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  summarize: ({ path }) => path,
  locations: ({ path }) => [{ path }],
  async execute({ path, content }, { workspace }) {
    const shown = workspace.relative(path);
    const info = await workspace.stat(path);
    if (info?.type === 'directory') throw new Error(`${shown} is a directory; write_file needs a file path.`);
    const before = info ? new TextDecoder().decode(await workspace.readFile(path)) : undefined;
    await workspace.writeFile(path, content);

    const { added, removed } = countChangedLines(before ?? '', content);
    const output =
      before === undefined ? `Created ${shown} (+${added} lines).` : `Overwrote ${shown} (+${added} -${removed} lines).`;
    return {
      output,
      filesModified: [shown],
      extra: { created: before === undefined, linesAdded: added, linesRemoved: removed },
    };
  },
});

/**
 * Lines added and removed, counted as a multiset difference: a line counts as
 * kept as often as it occurs on both sides, wherever it moved.
 */
export function countChangedLines(before: string, after: string): { added: number; removed: number } {
  const unmatched = new Map<string, number>();
  for (const line of lines(before)) unmatched.set(line, (unmatched.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of lines(after)) {
    const count = unmatched.get(line) ?? 0;
    if (count > 0) unmatched.set(line, count - 1);
    else added++;
  }
  let removed = 0;
  for (const count of unmatched.values()) removed += count;
  return { added, removed };
}

function lines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}
