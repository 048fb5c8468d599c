import type { DirectoryEntry, Workspace } from '../tools/workspace';

/** The file's text, or undefined when there is no such file. */
export async function readText(workspace: Workspace, path: string): Promise<string | undefined> {
  const info = await workspace.stat(path);
  if (info?.type !== 'file') return undefined;
  return new TextDecoder().decode(await workspace.readFile(path));
}

export async function isFolder(workspace: Workspace, path: string): Promise<boolean> {
  return (await workspace.stat(path))?.type === 'directory';
}

/** The folder's entries, none when it does not exist. */
export async function entriesOf(workspace: Workspace, path: string): Promise<DirectoryEntry[]> {
  return (await isFolder(workspace, path)) ? workspace.readDirectory(path) : [];
}

/** Every file under `path` (a file or a folder), workspace-relative with forward slashes. */
export async function filesUnder(workspace: Workspace, path: string, limit = 1_000): Promise<string[]> {
  const info = await workspace.stat(path);
  if (info?.type === 'file') return [path];
  if (info?.type !== 'directory') return [];
  const files: string[] = [];
  for (const entry of await workspace.readDirectory(path)) {
    if (files.length >= limit) break;
    const child = `${path}/${entry.name}`;
    if (entry.type === 'directory') files.push(...(await filesUnder(workspace, child, limit - files.length)));
    else if (entry.type === 'file') files.push(child);
  }
  return files;
}

/** Text cut to `max` characters with a note saying where the rest is. */
export function clipped(text: string, max: number, path: string): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n\n[… ${text.length - max} more characters: read ${path} for the rest]`;
}
