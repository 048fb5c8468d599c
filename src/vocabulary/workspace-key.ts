import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';

/**
 * The workspace's real path: the same folder reached through a symlink or a
 * relative path shares one snapshot repository and one undo log.
 */
export function realWorkspace(root: string): string {
  try {
    return realpathSync.native(resolve(root));
  } catch (err) {
    throw new Error(`workspace ${root} cannot be opened: ${(err as Error).message}`);
  }
}

/** A file name for per-workspace data: readable basename plus a hash of the real path. */
export function workspaceKey(realRoot: string): string {
  const name = basename(realRoot).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  const hash = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  return `${name}-${hash}`;
}
