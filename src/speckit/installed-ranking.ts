/** The order in which Spec Kit consults the presets or extensions a project has installed. */
import type { Workspace } from '../tools/workspace';
import { isFolder, readText } from './workspace-text';

/**
 * The ids of the presets or extensions installed under `folder`, in Spec
 * Kit's order: those its `.registry` lists (enabled, by priority, default
 * 10, then by id), and folders it does not list at priority 10 (unless
 * `registeredOnly`: Spec Kit registers a preset's commands only at install).
 */
export async function ranked(workspace: Workspace, folder: string, key: 'presets' | 'extensions', options: { registeredOnly?: boolean } = {}): Promise<string[]> {
  if (!(await isFolder(workspace, folder))) return [];
  let registered: Record<string, { priority?: unknown; enabled?: unknown }> = {};
  const registry = await readText(workspace, `${folder}/.registry`);
  if (registry !== undefined) {
    try {
      const parsed = (JSON.parse(registry) as Record<string, unknown>)[key];
      if (parsed && typeof parsed === 'object') registered = parsed as typeof registered;
    } catch {
      // An unreadable registry ranks nothing: every folder takes the default priority.
    }
  }
  const priority = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 10);
  const ids: [number, string][] = [];
  for (const [id, meta] of Object.entries(registered)) {
    if (/^[a-z0-9-]+$/.test(id) && meta && typeof meta === 'object' && meta.enabled !== false) ids.push([priority(meta.priority), id]);
  }
  for (const entry of options.registeredOnly ? [] : await workspace.readDirectory(folder)) {
    if (entry.type === 'directory' && /^[a-z0-9-]+$/.test(entry.name) && !(entry.name in registered)) ids.push([10, entry.name]);
  }
  return ids.sort(([a, x], [b, y]) => a - b || x.localeCompare(y)).map(([, id]) => id);
}
